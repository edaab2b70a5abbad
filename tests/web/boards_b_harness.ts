// A tiny page for tests/web/test_boards_b.py: draws BOARDS[game] from a fixture (the game data,
// a view, the viewer's seat, the current step's choices) with a BoardContext standing in for the
// table's shell, and records every choice the board sends to `choose`. Bundled by esbuild.
import { Catalog, TableNames } from "../../clients/web/table/common/names.js";
import { BOARDS } from "../../clients/web/table/games/index.js";
import type { BoardContext, Choice, Place } from "../../clients/web/table/games/board.js";

interface Fixture {
  game: string;
  /** The game data document, or null for the one given to __setData for this game. */
  data: BoardContext["data"] | null;
  view: unknown;
  seat: number | null;
  seatNames: string[];
  choices: Choice[];
}

const PALETTE = ["#c62828", "#1565c0", "#2e7d32", "#f9a825", "#6a1b9a"];

declare global {
  interface Window {
    __chosen: Choice[];
    __render(fixture: Fixture): void;
    __setData(game: string, data: BoardContext["data"]): void;
  }
}

const documents = new Map<string, BoardContext["data"]>();
window.__setData = (game, data) => void documents.set(game, data);
window.__chosen = [];
window.__render = (fixture: Fixture) => {
  window.__chosen = [];
  const data = fixture.data ?? documents.get(fixture.game);
  if (!data) throw new Error(`no game data for ${fixture.game}`);
  const places = new Map<string, Place>((data.places ?? []).map((p) => [p.id, p]));
  const catalog = new Catalog(data);
  const components = new Map<string, string>();
  for (const c of data.components ?? []) components.set(`${c.kind}:${c.id}`, c.name);
  const ctx: BoardContext = {
    data,
    view: fixture.view,
    seat: fixture.seat,
    seatNames: fixture.seatNames,
    seatColour: (seat) => PALETTE[seat % PALETTE.length],
    name(kind, id) {
      const key = String(id);
      if (kind === "seat") return fixture.seatNames[Number(id)] ?? null;
      const component = components.get(`${kind}:${key}`);
      if (component !== undefined) return component;
      const place = places.get(key);
      return place && (kind === "place" || kind === place.kind) ? place.name : null;
    },
    text: (kind, id) => catalog.text(kind, id),
    choosable(kind, id) {
      const key = String(id);
      const place = kind === "place" ? places.get(key) : undefined;
      return fixture.choices.find((c) => c.id === key && (c.kind === kind || (place !== undefined && c.kind === place.kind))) ?? null;
    },
    choose(choice) {
      window.__chosen.push(choice);
    },
    label: (choice) => new TableNames(fixture.seatNames, catalog).label(choice),
  };
  const root = document.getElementById("root");
  if (!root) throw new Error("no #root");
  const board = BOARDS[fixture.game];
  if (!board) throw new Error(`no board for ${fixture.game}`);
  board.render(root, ctx);
};
