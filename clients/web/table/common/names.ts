// Names for everything a page shows: seats (as chosen at the table), components and places (from
// the game's data), and one colour per seat used everywhere on the page.
import type { GameData, Json, MatchView } from "../../src/index.js";
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

/** Component and place names of one game's data. */
export class Catalog {
  private readonly byKind = new Map<string, Map<string, string>>();
  private readonly anyKind = new Map<string, string>();
  readonly places: Place[];
  private readonly placeKinds = new Map<string, string>();

  constructor(readonly data: GameData & { places?: Place[] }) {
    for (const c of data.components) this.add(c.kind, c.id, c.name);
    this.places = data.places ?? [];
    for (const p of this.places) {
      this.add("place", p.id, p.name);
      this.add(p.kind, p.id, p.name);
      this.placeKinds.set(p.id, p.kind);
    }
  }

  private add(kind: string, id: string, name: string) {
    if (!this.byKind.has(kind)) this.byKind.set(kind, new Map());
    this.byKind.get(kind)?.set(id, name);
    if (!this.anyKind.has(id)) this.anyKind.set(id, name);
  }

  /** The name for (kind, id); kind "" looks in every kind. A copy suffix (".2") is ignored. */
  name(kind: string, id: string | number): string | null {
    const text = String(id);
    for (const candidate of [text, text.replace(/\.\d+$/, "")]) {
      const hit = kind ? this.byKind.get(kind)?.get(candidate) : this.anyKind.get(candidate);
      if (hit) return hit;
    }
    return null;
  }

  placeKind(id: string): string | null {
    return this.placeKinds.get(id) ?? null;
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
