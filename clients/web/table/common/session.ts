// The page's credentials and seats. The page holds no secret: only the tenant's publishable key
// (served by the gateway at /config.json, or given once in a link) and the seat and spectator
// tokens it obtained. Seats are kept in localStorage per gateway and key, by match: a reload or a
// second tab of the same player resumes the seat.
import { GuildhallClient } from "../../src/index.js";

const store = window.localStorage;

export interface SeatRecord {
  matchId: string;
  gameId: string;
  title: string;
  /** -1 for a match only watched. */
  seat: number;
  /** The seat token ("" when only watching). */
  token: string;
  spectatorToken: string;
  inviteCode: string;
  createdMs: number;
  finished?: boolean;
  /** The seat's resume secret (issue 39): its resume link moves the seat to another device. */
  resumeSecret?: string;
}

interface Config {
  publishableKey: string;
  gateway: string;
}

let config: Config | null = null;

/** The page's configuration: /config.json from the gateway, then anything the link overrides. */
export async function loadConfig(): Promise<Config> {
  if (config) return config;
  let served = "";
  try {
    const response = await fetch("config.json", { cache: "no-cache" });
    if (response.ok) served = String((await response.json()).publishableKey ?? "");
  } catch {
    // No /config.json (a page served elsewhere): the key comes from the link or the form.
  }
  config = { publishableKey: store.getItem("gh.publishableKey") || served, gateway: store.getItem("gh.gateway") ?? "" };
  return config;
}

export function setPublishableKey(key: string) {
  store.setItem("gh.publishableKey", key);
  if (config) config.publishableKey = key;
}

export function setGateway(url: string) {
  store.setItem("gh.gateway", url);
  if (config) config.gateway = url;
}

/** The client under the publishable key (tables, seats, game data). */
export function pageClient(): GuildhallClient {
  if (!config) throw new Error("loadConfig() first");
  return new GuildhallClient({ baseUrl: config.gateway, credential: config.publishableKey });
}

/** Seats are kept per gateway and tenant key: another gateway's tokens are never sent here. */
function namespace(): string {
  const c = config ?? { gateway: "", publishableKey: "" };
  return `${c.gateway || location.origin}|${c.publishableKey.slice(0, 16)}`;
}

function allSeats(): Record<string, SeatRecord> {
  try {
    return JSON.parse(store.getItem(`gh.seats.${namespace()}`) ?? "{}");
  } catch {
    return {};
  }
}

export function seats(): SeatRecord[] {
  return Object.values(allSeats()).sort((a, b) => b.createdMs - a.createdMs);
}

export function seatFor(matchId: string): SeatRecord | null {
  return allSeats()[matchId] ?? null;
}

export function keepSeat(record: SeatRecord) {
  const all = allSeats();
  all[record.matchId] = { ...all[record.matchId], ...record };
  store.setItem(`gh.seats.${namespace()}`, JSON.stringify(all));
}

/** A seat this browser already holds at the table of this invite code, if any. */
export function seatByInvite(code: string): SeatRecord | null {
  const plain = (c: string) => c.toUpperCase().replace(/[^0-9A-Z]/g, "");
  return seats().find((r) => r.seat >= 0 && r.inviteCode && plain(r.inviteCode) === plain(code)) ?? null;
}

/** The link that takes this seat on another device (it holds the seat's resume secret). */
export function resumeLink(record: SeatRecord): string {
  return `${location.origin}${location.pathname}#/resume?s=${encodeURIComponent(record.resumeSecret ?? "")}`;
}

export function forgetSeat(matchId: string) {
  const all = allSeats();
  delete all[matchId];
  store.setItem(`gh.seats.${namespace()}`, JSON.stringify(all));
}

/** This browser's player: a stable id (claiming again returns the same seat) and a chosen name. */
export function player(): { id: string; name: string } {
  let id = store.getItem("gh.playerId");
  if (!id) {
    id = `web-${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
    store.setItem("gh.playerId", id);
  }
  return { id, name: store.getItem("gh.playerName") ?? "" };
}

export function setPlayerName(name: string) {
  store.setItem("gh.playerName", name.trim().slice(0, 40));
}

export function params(): URLSearchParams {
  const hash = location.hash.replace(/^#/, "");
  return new URLSearchParams(hash.includes("?") ? hash.slice(hash.indexOf("?") + 1) : "");
}

export function route(): string {
  return location.hash.replace(/^#/, "").split("?")[0] || "/";
}

export function go(path: string, query: Record<string, string> = {}) {
  const q = new URLSearchParams(query).toString();
  location.hash = `#${path}${q ? `?${q}` : ""}`;
}
