// Each game's own board, by game id. A game missing here gets the fallback (games/fallback.ts):
// its places drawn where the game data puts them and every player's area as lists of names.
// Adding a game's board: write games/<game_id>/board.ts (a GameBoard) and add it here.
import type { GameBoard } from "./board.js";

export const BOARDS: Record<string, GameBoard> = {};
