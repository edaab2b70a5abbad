// The Guildhall gateway from a browser (or Node 20+): GatewayService over Connect, plus a typed layer
// like the Python library's: JSON views and actions decoded, typed rejections and errors, command ids
// with safe retries, a Watch that resumes from the last version it delivered, receipts checked with
// the gateway's published keys, the seed checked against its commitment, and the game's static data
// (names, texts) cached by version.
import { toJson } from "@bufbuild/protobuf";
import { type Value, ValueSchema } from "@bufbuild/protobuf/wkt";
import { type Client, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import {
  type ClaimSeatResponse,
  GatewayService,
  type MatchEvent as PbEvent,
  type MatchView as PbView,
  type Receipt as PbReceipt,
  type SubmitActionResponse,
  type Ticket as PbTicket,
  Ticket_State,
} from "./gen/guildhall/gateway/v1/gateway_pb.js";
import { GatewayError, ReceiptInvalid, Rejected, StaleVersion, gatewayError, rejectionFor, retriable } from "./errors.js";
import { type ReceiptFields, verifyReceipt, verifySeed } from "./verify.js";
import { GameClient, type GameId } from "./games.js";

// biome-ignore lint: game JSON is any game's
export type Json = any;

export interface ClientOptions {
  /** The gateway's HTTP port, e.g. "http://localhost:8080" ("" = the page's own origin). */
  baseUrl: string;
  /** An API key (ghk_...) or a seat/spectator token (ght1....). */
  credential?: string;
  /** Binary protobuf instead of JSON on the wire. */
  binary?: boolean;
  /** Check every receipt `submit` gets back (default true). */
  verifyReceipts?: boolean;
  /** How many times a call that failed in transit is sent again (default 4). */
  retries?: number;
  /** Give the transport another fetch (tests, Node). */
  fetch?: typeof globalThis.fetch;
}

export interface Receipt extends ReceiptFields {
  version: number;
}

/** One slot of a description's template (guildhall.common.v1.DescriptionArg). */
export interface DescriptionArg {
  name: string;
  text: string;
  kind: string;
  id: string;
}

/** An event in words, made for its viewer (guildhall.common.v1.Description). */
export interface Description {
  key: string;
  text: string;
  template: string;
  args: DescriptionArg[];
  internal: boolean;
}

/** One step of a decision option (guildhall.common.v1.DecisionChoice). A step or label that
 * names players has a template with its args ("" and [] when it names nobody). */
export interface DecisionChoice {
  step: string;
  label: string;
  kind: string;
  id: string;
  stepTemplate?: string;
  stepArgs?: DescriptionArg[];
  labelTemplate?: string;
  labelArgs?: DescriptionArg[];
}

export interface DecisionOption {
  choices: DecisionChoice[];
  /** Index into the same view's legalActions. */
  action: number;
}

/** What a seat is asked now, in words, over its legal actions (guildhall.common.v1.Decision). */
export interface Decision {
  seat: number;
  prompt: string;
  options: DecisionOption[];
  key: string;
  simultaneous: boolean;
  /** The prompt with `{name}` slots for `promptArgs` when it names players ("" otherwise). */
  promptTemplate?: string;
  promptArgs?: DescriptionArg[];
}

export interface MatchEvent {
  version: number;
  type: string;
  actor: number;
  data: Json;
  timeMs: number;
  receipt: Receipt | null;
  /** The event in words for this viewer, or null when the game has no presentation. */
  description: Description | null;
}

/** The seat a component stands for (its `values.seat` in the game data: Ys's parties) and what it
 * is called when the match has no such seat (`values.seatless`), or null. */
export type StandsFor = (kind: string, id: string) => { seat: number; seatless: string } | null;

/**
 * A text naming players, with the names chosen at the table (docs/clients.md, "Names chosen at the
 * table"): each `{slot}` of `template` filled with its argument, a seat argument by `seatName`
 * (null or undefined: the argument's own text), an argument whose component stands for a seat by
 * that seat's name when the match has it, else by the component's seatless name. A text starting
 * with a slot starts with a capital. Without a template, `text` as it is.
 */
export function renderTemplate(text: string, template: string | undefined, args: DescriptionArg[] | undefined, seatName: (seat: number) => string | null | undefined, standsFor?: StandsFor): string {
  if (!template) return text;
  const shown = (a: DescriptionArg): string => {
    if (a.kind === "seat" && a.id !== "") return seatName(Number(a.id)) || a.text;
    const stands = a.kind ? standsFor?.(a.kind, a.id) : null;
    if (stands) return seatName(stands.seat) || stands.seatless;
    return a.text;
  };
  const values = new Map((args ?? []).map((a) => [a.name, shown(a)]));
  const out = template.replace(/\{(\w+)\}/g, (slot, name: string) => values.get(name) ?? slot);
  return template.startsWith("{") ? out.charAt(0).toUpperCase() + out.slice(1) : out;
}

/** A description's template rendered with the seats' names (renderTemplate). */
export function renderDescription(d: Description, seatName: (seat: number) => string | null | undefined, standsFor?: StandsFor): string {
  return renderTemplate(d.text, d.template, d.args, seatName, standsFor);
}

/** A decision's prompt, a choice's step or label, rendered with the seats' names (renderTemplate). */
export const renderPrompt = (d: Decision, seatName: (seat: number) => string | null | undefined, standsFor?: StandsFor) =>
  renderTemplate(d.prompt, d.promptTemplate, d.promptArgs, seatName, standsFor);
export const renderStep = (c: DecisionChoice, seatName: (seat: number) => string | null | undefined, standsFor?: StandsFor) =>
  renderTemplate(c.step, c.stepTemplate, c.stepArgs, seatName, standsFor);
export const renderLabel = (c: DecisionChoice, seatName: (seat: number) => string | null | undefined, standsFor?: StandsFor) =>
  renderTemplate(c.label, c.labelTemplate, c.labelArgs, seatName, standsFor);

export interface MatchView {
  matchId: string;
  gameId: string;
  version: number;
  /** The viewer's seat, -1 for the public view. */
  seat: number;
  view: Json;
  legalActions: Json[];
  activeSeats: number[];
  finished: boolean;
  outcome: Json | null;
  /** Whether this seat owes a decision now. */
  myTurn: boolean;
  /** What this seat is asked now, in words (with legalActions), or null. */
  decision: Decision | null;
  /** Each seat's name as chosen at the table, "" where none was. */
  seatNames: string[];
  /** The seats played by the platform's bots, with their kind ("random", "greedy", "strong"). */
  bots: { seat: number; kind: string }[];
  /** Seats that resigned: they act no more and finish after every other seat. */
  resignedSeats: number[];
  /** Seats a platform bot plays since their turn timer ran out, until their player is back. */
  awaySeats: number[];
  /** A private table's seats nobody has taken yet: nobody acts until there are none. */
  unclaimedSeats: number[];
  /** This seat may take back its last move now (`undo`). */
  undoAvailable: boolean;
}

/** A claimed seat: its token, and the secret that moves it to another device (keep it private). */
export interface ClaimedSeat {
  matchId: string;
  seat: number;
  token: string;
  resumeSecret: string;
}

export interface Accepted {
  matchId: string;
  version: number;
  events: MatchEvent[];
  receipt: Receipt | null;
  repeated: boolean;
  commandId: string;
  /** With returnView: the seat's view at `version` (with its legal actions). */
  view: MatchView | null;
  /** How many times a stale decision was sent again because it was still legal. */
  resubmitted: number;
}

export interface WatchUpdate {
  events: MatchEvent[];
  view: MatchView | null;
}

export interface Ticket {
  ticketId: string;
  state: "queued" | "matched" | "cancelled" | "expired" | "unspecified";
  gameId: string;
  matchId: string;
  seat: number;
  seatToken: string;
  players: string[];
}

export interface Game {
  gameId: string;
  title: string;
  rulesVersion: string;
  playerCounts: number[];
  jsonSchemas: Record<string, string>;
}

export interface Component {
  kind: string;
  id: string;
  name: string;
  text: string;
  values: Record<string, Json>;
  count: number;
  stand_in: boolean;
  source: string;
}

export interface GameData {
  game_id: string;
  title: string;
  version: string;
  stand_in: boolean;
  notice: string;
  kinds: Record<string, string>;
  components: Component[];
  decks: { id: string; name: string; parts: { kind: string; id: string; count: number }[] }[];
  boards: Record<string, Json>;
  catalog: Json;
  /** What the score in the views means during play, and the outcome's breakdown and facts in words. */
  score?: ScoreSheet;
}

/** A game's score in words: `seats[i].score` of a view is the score so far (what `during_play`
 * says) while the game runs, the final score (the outcome's) once it is over. */
export interface ScoreSheet {
  during_play?: string;
  breakdown?: Record<string, string>;
  facts?: Record<string, string>;
}

export interface Verification {
  receiptsChecked: number;
  /** Versions whose receipt did not verify. */
  badReceipts: number[];
  seedCommitment: string;
  seedRevealed: boolean;
  /** null until the match ended and revealed its seed. */
  seedOk: boolean | null;
  ok: boolean;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function parse(bytes: Uint8Array): Json {
  return bytes.length ? JSON.parse(decoder.decode(bytes)) : null;
}

/** The game's JSON from either form the gateway sends it in (issue 33): over JSON the value field
 * (`viewValue`, `data`, ...), over binary the bytes beside it. */
function either(value: Value | undefined, bytes: Uint8Array): Json {
  return value !== undefined ? toJson(ValueSchema, value) : parse(bytes);
}

/** Canonical JSON (sorted keys): two actions are the same action when these are equal. */
export function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

function newCommandId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason ?? new Error("aborted"));
    });
  });

function backoff(attempt: number, hintMs = 0): number {
  const capped = Math.min(2000, 50 * 2 ** attempt);
  return Math.max(hintMs, capped / 2 + Math.random() * (capped / 2));
}

function receiptOf(r: PbReceipt | undefined): Receipt | null {
  if (!r || !r.signature.length) return null;
  return {
    keyId: r.keyId,
    version: Number(r.version),
    headHash: r.headHash,
    signature: r.signature,
    tenant: r.tenant,
    matchId: r.matchId,
  };
}

function argsOf(args: { name: string; text: string; kind: string; id: string }[]): DescriptionArg[] {
  return args.map((a) => ({ name: a.name, text: a.text, kind: a.kind, id: a.id }));
}

export function eventOf(e: PbEvent): MatchEvent {
  return {
    version: Number(e.version),
    type: e.type,
    actor: e.actor,
    data: either(e.data, e.json),
    timeMs: Number(e.timeMs),
    receipt: receiptOf(e.receipt),
    description: e.description
      ? {
          key: e.description.key,
          text: e.description.text,
          template: e.description.template,
          args: argsOf(e.description.args),
          internal: e.description.internal,
        }
      : null,
  };
}

/** A wire decision's options, each with its choices: taken from the decision's table of distinct
 * choices by the option's `choiceIndexes` (issue 45), or inline where it has none (rules services
 * before that). */
function optionsOf(d: NonNullable<PbView["decision"]>): DecisionOption[] {
  const choice = (c: NonNullable<PbView["decision"]>["choices"][number]): DecisionChoice => ({
    step: c.step,
    label: c.label,
    kind: c.kind,
    id: c.id,
    stepTemplate: c.stepTemplate,
    stepArgs: argsOf(c.stepArgs),
    labelTemplate: c.labelTemplate,
    labelArgs: argsOf(c.labelArgs),
  });
  const table = d.choices.map(choice);
  return d.options.map((o) => {
    if (!o.choiceIndexes.length) return { action: o.action, choices: o.choices.map(choice) };
    const choices: DecisionChoice[] = [];
    for (const i of o.choiceIndexes) {
      const c = table[i];
      if (c === undefined) throw new Error(`option ${o.action} names a choice the decision does not list`);
      choices.push(c);
    }
    return { action: o.action, choices };
  });
}

export function viewOf(v: PbView): MatchView {
  return {
    matchId: v.matchId,
    gameId: v.gameId,
    version: Number(v.version),
    seat: v.seat,
    view: either(v.viewValue, v.view),
    legalActions: v.legalActionsValue.length ? v.legalActionsValue.map((a) => toJson(ValueSchema, a)) : v.legalActions.map(parse),
    activeSeats: [...v.activeSeats],
    finished: v.finished,
    outcome: v.outcomeValue !== undefined || v.outcome.length ? either(v.outcomeValue, v.outcome) : null,
    myTurn: v.seat >= 0 && v.activeSeats.includes(v.seat) && !v.finished,
    decision:
      v.decision && v.decision.options.length
        ? {
            seat: v.decision.seat,
            prompt: v.decision.prompt,
            key: v.decision.key,
            simultaneous: v.decision.simultaneous,
            promptTemplate: v.decision.promptTemplate,
            promptArgs: argsOf(v.decision.promptArgs),
            options: optionsOf(v.decision),
          }
        : null,
    seatNames: [...v.seatNames],
    bots: v.bots.map((b) => ({ seat: b.seat, kind: b.kind })),
    resignedSeats: [...v.resignedSeats],
    awaySeats: [...v.awaySeats],
    unclaimedSeats: [...v.unclaimedSeats],
    undoAvailable: v.undoAvailable,
  };
}

function claimedOf(r: ClaimSeatResponse): ClaimedSeat {
  if (r.result.case === "rejection") throw rejectionFor(r.result.value.code, r.result.value.message);
  const seat = r.result.case === "seat" ? r.result.value : undefined;
  return { matchId: r.matchId, seat: seat?.seat ?? -1, token: seat?.token ?? "", resumeSecret: r.resumeSecret };
}

const TICKET_STATES: Record<number, Ticket["state"]> = {
  [Ticket_State.QUEUED]: "queued",
  [Ticket_State.MATCHED]: "matched",
  [Ticket_State.CANCELLED]: "cancelled",
  [Ticket_State.EXPIRED]: "expired",
};

function ticketOf(t: PbTicket): Ticket {
  return {
    ticketId: t.ticketId,
    state: TICKET_STATES[t.state] ?? "unspecified",
    gameId: t.gameId,
    matchId: t.matchId,
    seat: t.seat,
    seatToken: t.seatToken,
    players: [...t.players],
  };
}

/** Status codes after which resuming a Watch cannot help. */
const FINAL = new Set(["unauthenticated", "permission_denied", "not_found", "invalid_argument", "unimplemented"]);

export class GuildhallClient {
  readonly options: Required<Omit<ClientOptions, "fetch" | "credential">> & Pick<ClientOptions, "fetch">;
  readonly credential: string;
  readonly rpc: Client<typeof GatewayService>;
  private keys: Map<string, Uint8Array> | null = null;
  private readonly gameData = new Map<string, GameData>();

  constructor(options: ClientOptions) {
    this.options = {
      baseUrl: options.baseUrl,
      binary: options.binary ?? false,
      verifyReceipts: options.verifyReceipts ?? true,
      retries: options.retries ?? 4,
      fetch: options.fetch,
    };
    this.credential = options.credential ?? "";
    // Every call carries this client's credential.
    const bearer: Interceptor = (next) => async (request) => {
      if (this.credential) request.header.set("authorization", `Bearer ${this.credential}`);
      return next(request);
    };
    const transport = createConnectTransport({
      baseUrl: options.baseUrl || globalThis.location?.origin || "",
      useBinaryFormat: this.options.binary,
      fetch: options.fetch,
      interceptors: [bearer],
    });
    this.rpc = createClient(GatewayService, transport);
  }

  /** The same gateway under another credential (a seat or spectator token, another key). */
  as(credential: string): GuildhallClient {
    const client = new GuildhallClient({ ...this.options, credential });
    client.keys = this.keys;
    for (const [k, v] of this.gameData) client.gameData.set(k, v);
    return client;
  }

  /** This client typed for one game: its actions, views and events (src/games.ts). */
  game<G extends GameId>(gameId: G): GameClient<G> {
    return new GameClient(this, gameId);
  }

  private async call<T>(make: () => Promise<T>, retry: boolean): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await make();
      } catch (error) {
        const failed = gatewayError(error);
        if (!retry || !retriable(failed) || attempt >= this.options.retries) throw failed;
        await sleep(backoff(attempt, failed.retryAfterMs));
      }
    }
  }

  // -- games, data and keys -----------------------------------------------------------------------

  async listGames(): Promise<Game[]> {
    const r = await this.call(() => this.rpc.listGames({}), true);
    return r.games.map((g) => ({
      gameId: g.gameId,
      title: g.title,
      rulesVersion: g.rulesVersion,
      playerCounts: [...g.playerCounts],
      jsonSchemas: { ...g.jsonSchemas },
    }));
  }

  /** The game's static data (cards, boards, names), fetched once per rules version. */
  async getGameData(gameId: string): Promise<GameData> {
    const known = this.gameData.get(gameId);
    const r = await this.call(() => this.rpc.getGameData({ gameId, knownVersion: known?.version ?? "" }), true);
    if (r.notModified && known) return known;
    const data = either(r.dataValue, r.data) as GameData;
    this.gameData.set(gameId, data);
    return data;
  }

  async publicKeys(refresh = false): Promise<Map<string, Uint8Array>> {
    if (!this.keys || refresh) {
      const r = await this.call(() => this.rpc.getPublicKeys({}), true);
      this.keys = new Map(r.keys.map((k) => [k.keyId, k.ed25519]));
    }
    return this.keys;
  }

  async checkReceipt(receipt: Receipt): Promise<boolean> {
    let keys = await this.publicKeys();
    if (!keys.has(receipt.keyId)) keys = await this.publicKeys(true); // a rotated key
    return verifyReceipt(receipt, keys);
  }

  // -- matchmaking and tables -------------------------------------------------------------------

  async createTicket(gameId: string, playerId: string, seats: number | [number, number], options?: Json): Promise<Ticket> {
    const [minSeats, maxSeats] = Array.isArray(seats) ? seats : [seats, seats];
    // Never retried: a lost reply would queue the player twice.
    const t = await this.call(
      () =>
        this.rpc.createTicket({
          gameId,
          playerId,
          minSeats,
          maxSeats,
          options: options === undefined ? new Uint8Array() : encoder.encode(JSON.stringify(options)),
        }),
      false,
    );
    return ticketOf(t);
  }

  async cancelTicket(ticketId: string): Promise<Ticket> {
    return ticketOf(await this.call(() => this.rpc.cancelTicket({ ticketId }), true));
  }

  /** The ticket's status until it is matched, cancelled or expired. */
  async *watchTicket(ticketId: string, signal?: AbortSignal): AsyncGenerator<Ticket> {
    const ended = new AbortController(); // leaving early ends the HTTP stream too
    const forward = () => ended.abort(signal?.reason);
    signal?.addEventListener("abort", forward);
    try {
      yield* this.ticketStream(ticketId, ended.signal);
    } finally {
      ended.abort();
      signal?.removeEventListener("abort", forward);
    }
  }

  private async *ticketStream(ticketId: string, signal: AbortSignal): AsyncGenerator<Ticket> {
    for (let attempt = 0; ; attempt++) {
      try {
        for await (const t of this.rpc.watchTicket({ ticketId }, { signal })) {
          attempt = 0;
          const ticket = ticketOf(t);
          yield ticket;
          if (ticket.state !== "queued") return;
        }
      } catch (error) {
        const failed = gatewayError(error);
        if (signal.aborted || FINAL.has(failed.code) || attempt >= this.options.retries) throw failed;
      }
      await sleep(backoff(attempt), signal);
    }
  }

  /** Queue and wait until matched: the ticket with the seat token (withdrawn if `signal` aborts). */
  async enqueueAndWait(gameId: string, playerId: string, seats: number, signal?: AbortSignal): Promise<Ticket> {
    const ticket = await this.createTicket(gameId, playerId, seats);
    try {
      for await (const status of this.watchTicket(ticket.ticketId, signal)) {
        if (status.state === "matched") return status;
        if (status.state !== "queued") throw new GatewayError("aborted", `ticket ${status.state}`);
      }
    } catch (error) {
      await this.cancelTicket(ticket.ticketId).catch(() => undefined);
      throw error;
    }
    throw new GatewayError("aborted", "the ticket stream ended");
  }

  async createMatch(gameId: string, players: string[], options?: Json) {
    const r = await this.call(
      () =>
        this.rpc.createMatch({
          gameId,
          players,
          options: options === undefined ? new Uint8Array() : encoder.encode(JSON.stringify(options)),
        }),
      false,
    );
    return {
      matchId: r.matchId,
      seats: r.seats.map((s) => ({ seat: s.seat, playerId: s.playerId, token: s.token })),
      spectatorToken: r.spectatorToken,
      seedCommitment: r.seedCommitment,
    };
  }

  /** A private table; `bots` gives seats to the platform's bot worker ({seat: kind}); `options`
   * are the game's (typed per game through `game(id).createTable`). */
  async createTable(gameId: string, seats: number, opts: { bots?: Record<number, string>; options?: Json } = {}) {
    const bots = Object.entries(opts.bots ?? {}).map(([seat, kind]) => ({ seat: Number(seat), kind }));
    const options = opts.options === undefined ? new Uint8Array() : encoder.encode(JSON.stringify(opts.options));
    const r = await this.call(() => this.rpc.createTable({ gameId, seats, bots, options }), false);
    return { matchId: r.matchId, inviteCode: r.inviteCode, spectatorToken: r.spectatorToken };
  }

  /**
   * Claim a seat with an invite code; `displayName` is shown to everyone at the table. A seat is
   * claimed once: the claim carries a random claim id (made up when not given), so a retry after
   * a lost reply answers the same seat and nothing else does. `resumeSecret` moves the seat to
   * another device (`resumeSeat`).
   */
  async claimSeat(inviteCode: string, playerId: string, displayName = "", opts: { claimId?: string } = {}): Promise<ClaimedSeat> {
    const claimId = opts.claimId ?? newCommandId();
    const r = await this.call(() => this.rpc.claimSeat({ inviteCode, playerId, displayName, claimId }), true);
    return claimedOf(r);
  }

  /**
   * Take a claimed seat on this device with its resume secret: a fresh token and a new secret
   * (the one given stops working). Not retried: a secret works once.
   */
  async resumeSeat(resumeSecret: string): Promise<ClaimedSeat> {
    return claimedOf(await this.call(() => this.rpc.resumeSeat({ resumeSecret }), false));
  }

  async issueToken(matchId: string, seat: number | null) {
    const r = await this.call(() => this.rpc.issueToken({ matchId, seat: seat ?? undefined }), true);
    return r.token;
  }

  async listMatches(gameId = "", finished?: boolean) {
    const r = await this.call(() => this.rpc.listMatches({ gameId, finished }), true);
    return r.matches.map((m) => ({
      matchId: m.matchId,
      gameId: m.gameId,
      players: [...m.players],
      version: Number(m.version),
      finished: m.finished,
      createdMs: Number(m.createdMs),
    }));
  }

  // -- play -------------------------------------------------------------------------------------

  async getView(matchId: string): Promise<MatchView> {
    return viewOf(await this.call(() => this.rpc.getView({ matchId }), true));
  }

  /**
   * Act for this token's seat; a rule saying no throws a Rejected subclass (nothing was written).
   *
   * The command id (made up when not given) makes retries safe: a call lost in transit is sent
   * again with it and the gateway answers with the first result. With `expectedVersion`, another
   * seat acting first (a simultaneous decision) answers stale_version: if only other seats acted
   * in between and the action is still among this seat's legal actions at the new version, it is
   * sent again for that version (`Accepted.resubmitted`), else StaleVersion is thrown.
   */
  async submit(
    matchId: string,
    action: Json,
    opts: { commandId?: string; expectedVersion?: number; returnView?: boolean; resubmitWhenStale?: boolean } = {},
  ): Promise<Accepted> {
    const commandId = opts.commandId ?? newCommandId();
    let expected = opts.expectedVersion;
    for (let resubmitted = 0; ; resubmitted++) {
      const id = resubmitted ? `${commandId}.${resubmitted}` : commandId;
      const response = await this.call(
        () =>
          this.rpc.submitAction({
            matchId,
            commandId: id,
            action: encoder.encode(JSON.stringify(action)),
            expectedVersion: expected === undefined ? undefined : BigInt(expected),
            returnView: opts.returnView ?? false,
          }),
        true,
      );
      try {
        return { ...(await this.accepted(matchId, id, response)), resubmitted };
      } catch (error) {
        if (!(error instanceof StaleVersion) || opts.resubmitWhenStale === false || resubmitted >= 3) throw error;
        const now = await this.getView(matchId);
        if (expected === undefined || now.version <= expected) throw error; // never overtaken
        const wanted = canonical(action);
        if (!now.myTurn || !now.legalActions.some((a) => canonical(a) === wanted)) throw error;
        const since = expected;
        const between = (await this.events(matchId)).filter((e) => e.version > since);
        if (between.some((e) => e.actor === now.seat)) throw error; // this seat acted meanwhile: decided
        expected = now.version; // still legal after the other seats' moves: the same decision again
      }
    }
  }

  async resign(matchId: string, commandId = newCommandId()): Promise<Accepted> {
    const response = await this.call(() => this.rpc.resign({ matchId, commandId }), true);
    return { ...(await this.accepted(matchId, commandId, response)), resubmitted: 0 };
  }

  /**
   * Take back this seat's last move (while `MatchView.undoAvailable` says it may): the answer's
   * event is `action_undone`. CannotUndo says why not; with `expectedVersion`, StaleVersion when
   * the match moved on. Safe to retry with the same command id.
   */
  async undo(matchId: string, opts: { commandId?: string; expectedVersion?: number } = {}): Promise<Accepted> {
    const commandId = opts.commandId ?? newCommandId();
    const expectedVersion = opts.expectedVersion === undefined ? undefined : BigInt(opts.expectedVersion);
    const response = await this.call(() => this.rpc.undo({ matchId, commandId, expectedVersion }), true);
    return { ...(await this.accepted(matchId, commandId, response)), resubmitted: 0 };
  }

  /** "I'm back": take this seat back from the platform's bot that played it while away. */
  async returnToSeat(matchId: string, commandId = newCommandId()): Promise<Accepted> {
    const response = await this.call(() => this.rpc.returnToSeat({ matchId, commandId }), true);
    return { ...(await this.accepted(matchId, commandId, response)), resubmitted: 0 };
  }

  private async accepted(matchId: string, commandId: string, response: SubmitActionResponse): Promise<Omit<Accepted, "resubmitted">> {
    if (response.result.case === "rejection") {
      throw rejectionFor(response.result.value.code, response.result.value.message);
    }
    if (response.result.case !== "accepted") throw new GatewayError("unknown", "an empty answer");
    const a = response.result.value;
    const receipt = receiptOf(a.receipt);
    const version = Number(a.version);
    if (
      this.options.verifyReceipts &&
      receipt &&
      (receipt.matchId !== matchId || receipt.version !== version || !(await this.checkReceipt(receipt)))
    ) {
      throw new ReceiptInvalid(`the receipt for version ${version} of ${matchId} does not verify`);
    }
    return {
      matchId,
      version,
      events: a.events.map(eventOf),
      receipt,
      repeated: a.repeated,
      commandId,
      view: a.view ? viewOf(a.view) : null,
    };
  }

  /**
   * New events and the new view from `fromVersion` on. A broken stream (or a draining gateway
   * ending it) is opened again from the last version delivered: no gap, no duplicate. Ends after
   * the update showing the match finished (the gateway ends the stream there too), unless
   * `untilFinished` is false: then at the stream's end after it. Leaving the loop, or aborting
   * `signal`, closes the HTTP stream at once (the gateway frees its stream slot).
   */
  async *watch(
    matchId: string,
    fromVersion = 0,
    opts: { signal?: AbortSignal; untilFinished?: boolean } = {},
  ): AsyncGenerator<WatchUpdate> {
    let last = fromVersion;
    // Leaving the loop early (break, return, an exception) must end the HTTP stream too.
    const ended = new AbortController();
    const forward = () => ended.abort(opts.signal?.reason);
    opts.signal?.addEventListener("abort", forward);
    try {
      yield* this.watchFrom(matchId, () => last, (v) => (last = v), ended.signal, opts);
    } finally {
      ended.abort();
      opts.signal?.removeEventListener("abort", forward);
    }
  }

  private async *watchFrom(
    matchId: string,
    last: () => number,
    delivered: (version: number) => void,
    signal: AbortSignal,
    opts: { signal?: AbortSignal; untilFinished?: boolean },
  ): AsyncGenerator<WatchUpdate> {
    let finished = false;
    for (let attempt = 0; ; attempt++) {
      // One controller per stream, aborted before leaving it: returning from a `for await` over
      // a Connect stream first waits for the response body to end, which an open stream never
      // does (Node then held the program for its 300 s body timeout).
      const call = new AbortController();
      const forward = () => call.abort(signal.reason);
      signal.addEventListener("abort", forward);
      try {
        for await (const u of this.rpc.watch({ matchId, fromVersion: BigInt(last()) }, { signal: call.signal })) {
          attempt = 0;
          const events = u.events.map(eventOf).filter((e) => e.version > last());
          const view = u.view ? viewOf(u.view) : null;
          if (events.length) delivered(events[events.length - 1].version);
          if (view) delivered(Math.max(last(), view.version));
          finished ||= Boolean(view?.finished);
          let resumed = false;
          try {
            if (events.length || view) yield { events, view };
            resumed = true;
          } finally {
            if (!resumed) call.abort(); // the caller left the loop: close the stream before the loop does
          }
          if (finished && opts.untilFinished !== false) {
            call.abort();
            return;
          }
        }
        if (finished) return; // the gateway ends the stream at the match's end: nothing follows
      } catch (error) {
        const failed = gatewayError(error);
        if (signal.aborted || FINAL.has(failed.code) || attempt >= this.options.retries) throw failed;
      } finally {
        call.abort();
        signal.removeEventListener("abort", forward);
      }
      await sleep(backoff(attempt), signal);
    }
  }

  async replay(matchId: string, version: number): Promise<MatchView> {
    return viewOf(await this.call(() => this.rpc.replay({ matchId, version: BigInt(version) }), true));
  }

  async audit(matchId: string) {
    const r = await this.call(() => this.rpc.audit({ matchId }), true);
    return { ok: r.ok, checkedVersions: Number(r.checkedVersions), firstBadVersion: Number(r.firstBadVersion), reason: r.reason };
  }

  /** Every event this credential may see, up to the match's version now. */
  async events(matchId: string): Promise<MatchEvent[]> {
    const target = (await this.getView(matchId)).version;
    const collected: MatchEvent[] = [];
    const stop = new AbortController();
    try {
      for await (const update of this.watch(matchId, 0, { signal: stop.signal, untilFinished: false })) {
        collected.push(...update.events);
        if ((update.view?.version ?? 0) >= target || (collected.at(-1)?.version ?? 0) >= target) break;
      }
    } finally {
      stop.abort();
    }
    return collected;
  }

  /** Check, in this process, every receipt among the events and (once revealed) the seed. */
  async verifyMatch(matchId: string, events?: MatchEvent[]): Promise<Verification> {
    const seen = events ?? (await this.events(matchId));
    let keys = await this.publicKeys();
    if (seen.some((e) => e.receipt && !keys.has(e.receipt.keyId))) keys = await this.publicKeys(true);
    const result: Verification = {
      receiptsChecked: 0,
      badReceipts: [],
      seedCommitment: "",
      seedRevealed: false,
      seedOk: null,
      ok: false,
    };
    for (const event of seen) {
      if (event.receipt) {
        result.receiptsChecked++;
        const r = event.receipt;
        const bound = r.matchId === matchId && r.version === event.version;
        if (!bound || !(await verifyReceipt(r, keys))) result.badReceipts.push(event.version);
      }
      const commitment = field(event.data, "seed_commitment");
      if (commitment) result.seedCommitment = String(commitment);
      const seed = event.type === "match_created" ? null : field(event.data, "seed");
      if (seed) {
        result.seedRevealed = true;
        result.seedOk = Boolean(result.seedCommitment) && (await verifySeed(String(seed), result.seedCommitment));
      }
    }
    result.ok = result.badReceipts.length === 0 && result.seedOk !== false;
    return result;
  }
}

function field(data: Json, key: string): Json {
  if (data && typeof data === "object") {
    if (key in data) return data[key];
    for (const value of Object.values(data)) {
      if (value && typeof value === "object" && key in (value as object)) return (value as Json)[key];
    }
  }
  return null;
}

export { Rejected };
