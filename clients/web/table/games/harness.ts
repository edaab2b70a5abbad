// A page that draws one board without the shell, for tests/web/test_boards_a.py: the fixture in
// `window.__fixture` (game data, view, seat, the viewer's decision and the choices already made)
// stands in for the shell. choose() records the choice in `window.__chosen`. The game data may be
// set once in `window.__data` (a fixture without `data` uses it).
import type { BoardContext, Choice, Place } from "./board.js";
import { Catalog, TableNames } from "../common/names.js";
import { BOARDS } from "./index.js";

interface Fixture {
  game: string;
  data?: BoardContext["data"];
  view: unknown;
  seat: number | null;
  seatNames: string[];
  decision: { options: { choices: Choice[] }[] } | null;
  chosen: Choice[];
}

const PALETTE = ["#c62828", "#1565c0", "#f9a825", "#2e7d32", "#6a1b9a"];

function same(a: Choice, b: Choice): boolean {
  return a.step === b.step && a.label === b.label && (a.kind ?? "") === (b.kind ?? "") && (a.id ?? "") === (b.id ?? "");
}

/** The current step's choices, as the shell computes them (docs/clients.md, steps 1-2). */
function nextChoices(fixture: Fixture): Choice[] {
  const out: Choice[] = [];
  for (const option of fixture.decision?.options ?? []) {
    const path = option.choices;
    if (path.length <= fixture.chosen.length) continue;
    if (!fixture.chosen.every((c, i) => same(c, path[i]))) continue;
    const next = path[fixture.chosen.length];
    if (!out.some((c) => same(c, next))) out.push(next);
  }
  return out;
}

function render(given: Fixture): void {
  const fixture = { ...given, data: given.data ?? (window as unknown as { __data: BoardContext["data"] }).__data };
  const places = new Map<string, Place>((fixture.data.places ?? []).map((p) => [p.id, p]));
  const names = new Map<string, string>();
  for (const c of fixture.data.components) names.set(`${c.kind}\u0000${c.id}`, c.name);
  const catalog = new Catalog(fixture.data);
  const next = nextChoices(fixture);
  const w = window as unknown as { __chosen: Choice[]; __next: Choice[] };
  w.__chosen = [];
  w.__next = next;
  const ctx: BoardContext = {
    data: fixture.data,
    view: fixture.view,
    seat: fixture.seat,
    seatNames: fixture.seatNames,
    seatColour: (seat) => PALETTE[seat % PALETTE.length],
    name(kind, id) {
      const key = String(id);
      if (kind === "seat") return fixture.seatNames[Number(key)] ?? null;
      const found = names.get(`${kind}\u0000${key}`);
      if (found !== undefined) return found;
      const place = places.get(key);
      return place && (kind === "place" || kind === place.kind) ? place.name : null;
    },
    text: (kind, id) => catalog.text(kind, id),
    choosable(kind, id) {
      const key = String(id);
      const place = places.get(key);
      for (const choice of next) {
        if (!choice.kind || choice.id !== key) continue;
        if (choice.kind === kind) return choice;
        if (place && (kind === "place" || kind === place.kind) && (choice.kind === "place" || choice.kind === place.kind)) {
          return choice;
        }
      }
      return null;
    },
    choose(choice) {
      w.__chosen.push(choice);
    },
    label: (choice) => new TableNames(fixture.seatNames, catalog).label(choice),
  };
  const root = document.getElementById("root") as HTMLElement;
  const board = BOARDS[fixture.game];
  if (!board) throw new Error(`no board for ${fixture.game}`);
  board.render(root, ctx);
}

(window as unknown as { __render: (f: Fixture) => void }).__render = render;
