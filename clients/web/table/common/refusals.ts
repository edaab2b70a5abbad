// Refusals: every rejection (and every failed call) shown in words until the person dismisses it.
// A refusal says what happened and what to do, never an engine code (issue 41 item 8): each
// rejection code of the rules contract (services/kernel/rejection.py) and each way a call to the
// gateway can fail has its sentence here; tests/web/test_refusals.py keeps the list complete.
import { GatewayError, ReceiptInvalid, Rejected } from "../../src/index.js";
import { button, h } from "./dom.js";

/** A rule's own message as a sentence ("it is not your turn" -> "It is not your turn."). */
function sentence(message: string): string {
  const text = message.trim();
  if (!text) return "";
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** Per rejection code: what happened, in words, and what to do. `message` is the rule's own
 * sentence, used where it says something a player reads (why a move is illegal). */
const REJECTIONS: Record<string, (message: string) => string> = {
  // Given by every rules service.
  not_your_turn: (m) => `${sentence(m) || "It is not your turn."} Your choice was not played; the table shows when it is your turn.`,
  illegal_action: (m) => `${sentence(m) || "The rules do not allow that move now."} Choose again among the choices shown.`,
  game_over: () => "The match is over: nothing more can be played.",
  unknown_player: () => "This page holds a seat the match does not have. Open the match again from “My matches”.",
  unknown_action: () => "The game does not know that move: this page may be out of date. Reload it.",
  // Added by the gateway.
  stale_version: () => "The table moved on before your choice arrived (another move was played first, perhaps from your other tab or device). The table now shows where things stand: choose again.",
  unknown_match: () => "This match does not exist (or not on this site). Check the link, or open it from “My matches”.",
  wrong_game: () => "That move belongs to another game: reload the page.",
  command_id_in_use: () => "Your move arrived under a name another seat already used. Nothing was played: choose again.",
  seat_taken: (m) =>
    `${sentence(m) || "Every seat at this table is taken."} If one of these seats is yours, open its resume link (under “Table” on the device that holds the seat); otherwise ask the host for a table with a free seat.`,
  bad_invite: (m) =>
    `${sentence(m) || "No table has this invite code."} Check the link or code with whoever sent it: an invite stops working once the table has started or closed.`,
  // Issue 41 item 4 (the undo branch): a move that can no longer be taken back.
  cannot_undo: (m) => `${sentence(m) || "That move can no longer be taken back."} It stands.`,
};

/** Per gateway status (a call that failed rather than a rule saying no). */
const FAILURES: Record<string, string> = {
  unauthenticated: "This page's pass for the match is no longer valid (the seat may have moved to another device). Open your newest resume link, or the match from “My matches”.",
  permission_denied: "This page may not do that with the pass it holds: a spectator cannot play, and a seat plays only its own match.",
  not_found: "The server does not know this match (it may belong to another site). Check the link.",
  resource_exhausted: "Too many requests just now. Wait a few seconds and try again.",
  invalid_argument: "The server could not read what this page sent. Reload the page and try again.",
  failed_precondition: "The server cannot do that now. Reload the page to see where things stand.",
  unimplemented: "This server does not offer that yet.",
  already_exists: "That was done already.",
  out_of_range: "That position is not in the match.",
  data_loss: "The server lost data for this match. Tell whoever runs the site.",
  unavailable: "The game server cannot be reached. Check your connection; reload if it keeps failing.",
  deadline_exceeded: "The game server took too long to answer. Try again; reload if it keeps failing.",
  aborted: "The table changed while your move was on its way. Try again.",
  canceled: "The request was cancelled.",
  internal: "The game server failed on this request. Try again; tell whoever runs the site if it keeps failing.",
  unknown: "The game server failed on this request. Try again; tell whoever runs the site if it keeps failing.",
};

/** Every rejection code and gateway status with its sentence (for the tests). */
export const REFUSAL_CODES = { rejections: Object.keys(REJECTIONS), failures: Object.keys(FAILURES) };

/** What went wrong, in words a player reads, with what to do about it. */
export function refusalText(error: unknown): string {
  if (error instanceof Rejected) {
    const say = REJECTIONS[error.code];
    const message = error.message.replace(/^rejected \S+: /, "");
    return say ? say(message) : `${sentence(message) || "The game refused that."} Choose again.`;
  }
  if (error instanceof ReceiptInvalid) {
    return "The server's signature on this move does not check out: the match may have been tampered with. See “Check the receipts” under Table.";
  }
  if (error instanceof GatewayError) return FAILURES[error.code] ?? FAILURES.unknown;
  if (error instanceof TypeError) return FAILURES.unavailable; // fetch itself failed: offline
  return FAILURES.unknown;
}

export class Refusals {
  readonly root = h("div", { class: "refusals", "data-testid": "refusals", role: "alert" });

  /** Show `message` (a sentence) or, for an error, its refusalText, after `lead` ("Not played: "). */
  show(what: string | unknown, lead = "") {
    const text = `${lead}${typeof what === "string" ? what : refusalText(what)}`;
    const item = h("div", { class: "refusal", "data-testid": "refusal" }, h("p", {}, text));
    item.append(button("Dismiss", () => item.remove(), { class: "secondary", "data-testid": "dismiss" }));
    this.root.append(item);
  }
}
