// The board any game without its own gets: the published places drawn at their x, y with their
// names (SVG), the ones the current step offers clickable; the public board's other facts; and
// each player's area (the view's "players" section) and the viewer's own part ("self") as
// labelled lists of names, never raw ids.
import type { Json } from "../../src/index.js";
import { h, s, words } from "../common/dom.js";
import type { BoardContext, GameBoard, Place } from "./board.js";

/** Fields holding a seat number: shown as the seat's name. */
const SEAT_FIELDS = new Set(["player", "owner", "seat", "controller", "current", "first", "start", "start_player", "viewer", "holder"]);
/** Fields a person does not read as facts. */
const SKIP = new Set(["players", "active", "viewer", "round", "rounds", "phase", "turn", "window"]);

function text(ctx: BoardContext, value: Json, field: string, depth = 0): string {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") {
    if (SEAT_FIELDS.has(field) && Number.isInteger(value)) return value >= 0 ? (ctx.seatNames[value] ?? `Player ${value + 1}`) : "nobody";
    return String(value);
  }
  if (typeof value === "string") return ctx.name("", value) ?? words(value);
  if (Array.isArray(value)) {
    if (!value.length) return "none";
    if (depth > 1) return `${value.length} items`;
    return value.map((v) => text(ctx, v, field, depth + 1)).join(", ");
  }
  if (depth > 1) return "…";
  return Object.entries(value)
    .filter(([, v]) => v !== null && v !== "" && !(Array.isArray(v) && !v.length))
    .map(([k, v]) => `${ctx.name("", k) ?? words(k)}: ${text(ctx, v, k, depth + 1)}`)
    .join("; ");
}

function facts(ctx: BoardContext, object: Record<string, Json>, skip: Set<string> = SKIP): HTMLElement {
  const dl = h("dl", { class: "facts" });
  for (const [k, v] of Object.entries(object)) {
    if (skip.has(k)) continue;
    dl.append(h("dt", {}, words(k)), h("dd", {}, text(ctx, v, k)));
  }
  return dl;
}

function placesSvg(ctx: BoardContext, places: Place[]): SVGElement {
  const W = 1000;
  const H = 640;
  const pad = 60;
  const at = (p: Place) => [pad + p.x * (W - 2 * pad), pad + p.y * (H - 2 * pad)];
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "places", role: "group", "aria-label": "The board" });
  const byId = new Map(places.map((p) => [p.id, p]));
  for (const p of places) {
    for (const n of p.neighbours ?? []) {
      const q = byId.get(n);
      if (!q || q.id < p.id) continue;
      const [x1, y1] = at(p);
      const [x2, y2] = at(q);
      svg.append(s("line", { x1, y1, x2, y2, class: "link" }));
    }
  }
  // Labels of places on one row alternate below and above, so neighbours' names do not collide.
  const rows = new Map<number, Place[]>();
  for (const p of places) rows.set(Math.round(p.y * 50), [...(rows.get(Math.round(p.y * 50)) ?? []), p]);
  const above = new Set<string>();
  for (const row of rows.values()) row.sort((a, b) => a.x - b.x).forEach((p, i) => i % 2 && above.add(p.id));
  // On a crowded board (a market grid) a label would cover its neighbours': it is left to the
  // tooltip, unless the place is on offer now.
  const crowded = new Set(
    places
      .filter((p) => places.some((q) => q !== p && Math.abs(q.x - p.x) * (W - 2 * pad) < 120 && Math.abs(q.y - p.y) * (H - 2 * pad) < 40))
      .map((p) => p.id),
  );
  const short = (name: string) => (name.length > 22 ? `${name.slice(0, 21)}…` : name);
  for (const p of places) {
    const [x, y] = at(p);
    const choice = ctx.choosable(p.kind, p.id) ?? ctx.choosable("place", p.id);
    const g = s("g", { class: `place${choice ? " choosable" : ""}`, "data-place": p.id });
    g.append(s("circle", { cx: x, cy: y, r: crowded.has(p.id) ? 11 : 16 }));
    if (!crowded.has(p.id) || choice) g.append(s("text", { x, y: above.has(p.id) ? y - 24 : y + 36, "text-anchor": "middle" }, short(p.name)));
    g.append(s("title", {}, `${p.name}${p.text ? `: ${p.text}` : ""}`));
    if (choice) {
      g.setAttribute("role", "button");
      g.setAttribute("tabindex", "0");
      g.setAttribute("aria-label", `${p.name} — ${ctx.label(choice)}`);
      g.addEventListener("click", () => ctx.choose(choice));
      g.addEventListener("keydown", (e) => {
        const key = (e as KeyboardEvent).key;
        if (key === "Enter" || key === " ") {
          e.preventDefault();
          ctx.choose(choice);
        }
      });
    }
    svg.append(g);
  }
  return svg;
}

function seatArea(ctx: BoardContext, seat: number, body: HTMLElement, own: boolean): HTMLElement {
  const name = ctx.seatNames[seat] ?? `Player ${seat + 1}`;
  return h(
    "section",
    { class: `area${own ? " own" : ""}`, style: `border-color:${ctx.seatColour(seat)}`, "aria-label": `${name}'s area` },
    h("h3", {}, h("span", { class: "swatch", style: `background:${ctx.seatColour(seat)}` }), " ", name, own ? " (you)" : ""),
    body,
  );
}

export function fallbackBoard(sections: Record<string, string>): GameBoard {
  return {
    render(root: HTMLElement, ctx: BoardContext) {
      const view: Record<string, Json> = ctx.view ?? {};
      const sectionOf = (field: string) => sections[field] ?? (field === "seats" ? "players" : "board");
      const parts: HTMLElement[] = [];
      const places = ctx.data.places ?? [];
      if (places.length) parts.push(h("section", { class: "board-svg" }, placesSvg(ctx, places)));

      const board: Record<string, Json> = {};
      for (const [k, v] of Object.entries(view)) if (sectionOf(k) === "board") board[k] = v;
      if (Object.keys(board).length) parts.push(h("section", { class: "panel" }, h("h2", {}, "On the table"), facts(ctx, board)));

      // Every player's public area: per-seat lists become one box per seat.
      const count = ctx.seatNames.length;
      const perSeat: Record<string, Json>[] = Array.from({ length: count }, () => ({}));
      const shared: Record<string, Json> = {};
      for (const [k, v] of Object.entries(view)) {
        if (sectionOf(k) !== "players") continue;
        if (Array.isArray(v) && v.length === count) {
          v.forEach((item, seat) => {
            if (item && typeof item === "object" && !Array.isArray(item)) Object.assign(perSeat[seat], item);
            else perSeat[seat][k] = item;
          });
        } else shared[k] = v;
      }
      const own: Record<string, Json> = {};
      for (const [k, v] of Object.entries(view)) if (sectionOf(k) === "self" && k !== "viewer") own[k] = v;
      const areas = h("div", { class: "areas" });
      perSeat.forEach((fields, seat) => {
        const mine = ctx.seat === seat;
        const body = h("div", {}, facts(ctx, fields, new Set([...SKIP, "player"])));
        if (mine && Object.keys(own).length) body.append(h("h4", {}, "Only you see"), facts(ctx, own));
        areas.append(seatArea(ctx, seat, body, mine));
      });
      if (ctx.seat === null && Object.keys(own).length) areas.append(h("section", { class: "area" }, h("h3", {}, "Yours"), facts(ctx, own)));
      parts.push(h("section", { class: "panel" }, h("h2", {}, "Players' areas"), areas));
      if (Object.keys(shared).length) parts.push(h("section", { class: "panel" }, h("h2", {}, "Between the players"), facts(ctx, shared)));
      root.replaceChildren(...parts);
    },
  };
}
