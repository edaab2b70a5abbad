// Names for everything a page shows: seats (as chosen at the table), components and places (from
// the game's data), and one colour per seat used everywhere on the page.
import { type Decision, type DecisionChoice, type Description, type GameData, type Json, type MatchView, type StandsFor, renderDescription, renderLabel, renderPrompt, renderStep } from "../../src/index.js";
import type { Place } from "../games/board.js";

/** Colours told apart by most eyes (Okabe-Ito), each readable with white text on it. */
const COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#7A5C00", "#56489A"];

export function seatColour(seat: number): string {
  return COLOURS[((seat % COLOURS.length) + COLOURS.length) % COLOURS.length];
}

/** Each seat's name: chosen at the table, a bot's kind, else "Player N". */
export function seatNames(view: MatchView): string[] {
  const count = Math.max(view.seatNames.length, playerCount(view));
  const bots = new Map(view.bots.map((b) => [b.seat, b.kind]));
  return Array.from({ length: count }, (_, seat) => {
    const chosen = view.seatNames[seat];
    if (chosen) return chosen;
    const bot = bots.get(seat);
    return bot ? `Bot ${seat + 1} (${bot})` : `Player ${seat + 1}`;
  });
}

function playerCount(view: MatchView): number {
  const v = view.view ?? {};
  if (typeof v.players === "number") return v.players;
  if (Array.isArray(v.seats)) return v.seats.length;
  if (Array.isArray(v.players)) return v.players.length;
  return 0;
}

interface Entry {
  name: string;
  text: string;
}

/** Component and place names, and what each does (its text), of one game's data. */
export class Catalog {
  private readonly byKind = new Map<string, Map<string, Entry>>();
  private readonly anyKind = new Map<string, Entry>();
  readonly places: Place[];
  private readonly placeKinds = new Map<string, string>();
  private readonly seats = new Map<string, { seat: number; seatless: string }>();

  constructor(readonly data: GameData & { places?: Place[] }) {
    for (const c of data.components) {
      this.add(c.kind, c.id, { name: c.name, text: c.text ?? "" });
      const seat = c.values?.seat;
      if (typeof seat === "number") this.seats.set(`${c.kind}\u0000${c.id}`, { seat, seatless: String(c.values?.seatless ?? c.name) });
    }
    this.places = data.places ?? [];
    for (const p of this.places) {
      const entry = { name: p.name, text: p.text ?? "" };
      this.add("place", p.id, entry);
      this.add(p.kind, p.id, entry);
      this.placeKinds.set(p.id, p.kind);
    }
  }

  private add(kind: string, id: string, entry: Entry) {
    if (!this.byKind.has(kind)) this.byKind.set(kind, new Map());
    this.byKind.get(kind)?.set(id, entry);
    if (!this.anyKind.has(id)) this.anyKind.set(id, entry);
  }

  private entry(kind: string, id: string | number): Entry | null {
    const text = String(id);
    for (const candidate of [text, text.replace(/\.\d+$/, "")]) {
      const hit = kind ? this.byKind.get(kind)?.get(candidate) : this.anyKind.get(candidate);
      if (hit) return hit;
    }
    return null;
  }

  /** The name for (kind, id); kind "" looks in every kind. A copy suffix (".2") is ignored. */
  name(kind: string, id: string | number): string | null {
    return this.entry(kind, id)?.name || null;
  }

  /** What (kind, id) does, in words (its text in the game data), or null when it has none. */
  text(kind: string, id: string | number): string | null {
    return this.entry(kind, id)?.text || null;
  }

  /** Whether (kind, id) stands for a place of the board (not a card or piece). */
  isPlace(kind: string, id: string | number): boolean {
    const placeKind = this.placeKinds.get(String(id));
    return placeKind !== undefined && (kind === "place" || kind === placeKind);
  }

  placeKind(id: string): string | null {
    return this.placeKinds.get(id) ?? null;
  }

  /** The seat a component stands for (`values.seat`: Ys's parties), and its name without one. */
  readonly standsFor: StandsFor = (kind, id) => this.seats.get(`${kind}\u0000${id}`) ?? null;
}

/** Every text that names players, with the names chosen at the table (docs/clients.md, "Names
 * chosen at the table"): decisions' prompts, steps and labels, the log's lines. */
export class TableNames {
  constructor(
    readonly names: string[],
    private readonly catalog: Catalog | null,
  ) {}

  /** A seat of this match by its name; undefined for a seat the match does not have. */
  readonly seat = (seat: number): string | undefined => (seat >= 0 ? this.names[seat] : undefined);

  prompt(d: Decision): string {
    return renderPrompt(d, this.seat, this.catalog?.standsFor);
  }

  step(c: DecisionChoice): string {
    return renderStep(c, this.seat, this.catalog?.standsFor);
  }

  /** A choice's label; a player's choice from a server without label templates by the name. */
  label(c: DecisionChoice): string {
    if (c.kind === "seat" && !c.labelTemplate) return this.seat(Number(c.id)) ?? c.label;
    return renderLabel(c, this.seat, this.catalog?.standsFor);
  }

  description(d: Description): string {
    return renderDescription(d, this.seat, this.catalog?.standsFor);
  }
}

/** Which section each top-level field of a view belongs to (the view schema's x-section). */
export function sectionsOf(viewSchema: string | undefined): Record<string, string> {
  if (!viewSchema) return {};
  try {
    const schema = JSON.parse(viewSchema);
    let root: Json = schema;
    if (schema.$ref) root = schema.$defs?.[String(schema.$ref).split("/").pop() ?? ""] ?? schema;
    const out: Record<string, string> = {};
    for (const [field, body] of Object.entries(root.properties ?? {})) {
      const section = (body as Json)["x-section"];
      if (typeof section === "string") out[field] = section;
    }
    return out;
  } catch {
    return {};
  }
}
