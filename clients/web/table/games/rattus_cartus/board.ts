import type { BoardContext, GameBoard } from "../board.js";
export const board: GameBoard = { render(root: HTMLElement, ctx: BoardContext): void { root.textContent = "todo"; void ctx; } };
