// Each game's own board, by game id (table/games/board.ts is the contract each one implements). A
// game missing here gets the fallback (games/fallback.ts): its places drawn where the game data
// puts them and every player's area as lists of names.
// Adding a game's board: write games/<game_id>/board.ts (a GameBoard) and add its line here.
import { board as ankh_morpork } from "./ankh_morpork/board.js";
import type { GameBoard } from "./board.js";
import { board as bruges } from "./bruges/board.js";
import { board as rattus_cartus } from "./rattus_cartus/board.js";
import { board as waterdeep } from "./waterdeep/board.js";
import { board as ys } from "./ys/board.js";

export const BOARDS: Record<string, GameBoard> = {
  ankh_morpork,
  bruges,
  rattus_cartus,
  waterdeep,
  ys,
};
