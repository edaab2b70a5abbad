// The boards of the games, by game id (table/games/board.ts is the contract each one implements).
import type { GameBoard } from "./board.js";
import { board as ankh_morpork } from "./ankh_morpork/board.js";
import { board as rattus_cartus } from "./rattus_cartus/board.js";
import { board as ys } from "./ys/board.js";

export const BOARDS: Record<string, GameBoard> = {
  ankh_morpork,
  rattus_cartus,
  ys,
};
