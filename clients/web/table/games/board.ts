// The contract between the table's common shell (table/common/) and each game's board
// (table/games/<game_id>/board.ts). A person adding a sixth game writes one folder: a board that
// draws the game's view from its published board data, and registers it in table/games/index.ts.
//
// The shell owns everything common to every game: the session and seats, the decision (prompt,
// steps, the choices of the current step, back, submit), the log, refusals, resign, the end
// screen. A board only draws, and offers the current step's choices where they stand on the
// board: a place, a card, a player.
//
// The viewer's hand (what they hold and choose from, with its own title) is one element marked
// `data-own-hand`: the shell shows it beside the decision panel, where both stay in view while
// the board scrolls (issue 41 item 7), inside a box with the classes of the board's root (the
// element marked `data-game`) so the board's CSS still applies. A drawn map a phone could not read is wrapped in `zoomable` (zoom.ts).
import type { DecisionChoice, GameData, Json } from "../../src/index.js";

/** One choice of a decision step, as the gateway sends it (guildhall.common.v1.DecisionChoice). */
/** One choice of a decision step, as the gateway sends it (guildhall.common.v1.DecisionChoice):
 * `kind` and `id` say what it stands for (a component kind, "place", a place kind, or "seat"). */
export type Choice = DecisionChoice;

/** A place of the board (GetGameData `places`): x, y in the unit square, 0,0 top left. */
export interface Place {
  id: string;
  name: string;
  kind: string;
  x: number;
  y: number;
  neighbours?: string[];
  group?: string;
  text?: string;
  values?: Record<string, Json>;
  stand_in?: boolean;
}

export interface BoardContext {
  /** The game's published data: components (cards, persons...) and `places`. */
  data: GameData & { places?: Place[] };
  /** The viewer's view JSON (schemas/<game>/view.schema.json). */
  view: Json;
  /** The viewer's seat, or null for a spectator. */
  seat: number | null;
  /** Seat count, and each seat's name as chosen at the table ("Player N" when none). */
  seatNames: string[];
  /** A stable colour per seat (CSS colour), the same in every part of the page. */
  seatColour(seat: number): string;
  /** The component's or place's name for (kind, id), or null when the data has none. */
  name(kind: string, id: string | number): string | null;
  /** What the component or place (kind, id) does, in words (its `text` in the game data), or null. */
  text(kind: string, id: string | number): string | null;
  /**
   * The current step's choice standing for (kind, id), if the viewer may pick it now. A board
   * marks the thing it draws for (kind, id) as clickable when this returns a choice, and calls
   * `choose` with it on click (and on Enter/Space: clickable things are focusable buttons).
   * A place matches a choice of kind "place" or of the place's own kind.
   */
  choosable(kind: string, id: string | number): Choice | null;
  choose(choice: Choice): void;
  /** A choice's label with the names chosen at the table (a choice naming a player says its
   * name): what a board writes on the thing it offers. */
  label(choice: Choice): string;
}

export interface GameBoard {
  /** Draw the board and every player's area (the viewer's own, hand included, set apart). */
  render(root: HTMLElement, ctx: BoardContext): void;
  /** Where the match stands, in a few words ("Turn 2 of 4 · placement round 3 of 4"), when the
   * shell's own (the view's round, turn and phase) would mislead; null for the shell's. */
  headline?(ctx: BoardContext): string | null;
}
