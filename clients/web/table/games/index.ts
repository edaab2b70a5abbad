// The registry of game boards: the table's shell draws a match with BOARDS[game_id] (board.ts is
// the contract). One line per game; a sixth game adds its folder and its line here.
import type { GameBoard } from "./board.js";
import { board as bruges } from "./bruges/board.js";
import { board as waterdeep } from "./waterdeep/board.js";

export const BOARDS: Record<string, GameBoard> = {
  bruges,
  waterdeep,
};
