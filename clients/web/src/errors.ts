// Typed errors, as the Python library's: a rule saying no is a `Rejected` subclass named after its
// stable code (nothing was written); a failed call is a `GatewayError` with the Connect code.
import { Code, ConnectError } from "@connectrpc/connect";

/** The rejection codes this client knows (services/kernel/rejection.py's list). */
export type KnownRejectionCode =
  | "not_your_turn"
  | "illegal_action"
  | "game_over"
  | "unknown_player"
  | "unknown_action"
  | "stale_version"
  | "unknown_match"
  | "wrong_game"
  | "command_id_in_use"
  | "seat_taken"
  | "bad_invite"
  | "cannot_undo";
/** A rejection code: a known one, or one newer than this client (v1 may add codes: show its
 * message). `string & {}` keeps the known ones offered by editors while any string is allowed. */
export type RejectionCode = KnownRejectionCode | (string & {});

export class Rejected extends Error {
  readonly code: RejectionCode;
  constructor(code: RejectionCode, message: string) {
    super(`rejected ${code}: ${message}`);
    this.name = "Rejected";
    this.code = code;
  }
}

function rejection(code: KnownRejectionCode, name: string) {
  const Named = class extends Rejected {
    constructor(message: string) {
      super(code, message);
      this.name = name;
    }
  };
  Object.defineProperty(Named, "name", { value: name });
  return Named;
}

export const NotYourTurn = rejection("not_your_turn", "NotYourTurn");
export const IllegalAction = rejection("illegal_action", "IllegalAction");
export const GameOver = rejection("game_over", "GameOver");
export const UnknownPlayer = rejection("unknown_player", "UnknownPlayer");
export const UnknownAction = rejection("unknown_action", "UnknownAction");
export const StaleVersion = rejection("stale_version", "StaleVersion");
export const UnknownMatch = rejection("unknown_match", "UnknownMatch");
export const WrongGame = rejection("wrong_game", "WrongGame");
export const CommandIdInUse = rejection("command_id_in_use", "CommandIdInUse");
export const SeatTaken = rejection("seat_taken", "SeatTaken");
export const BadInvite = rejection("bad_invite", "BadInvite");
export const CannotUndo = rejection("cannot_undo", "CannotUndo");
// Each class is a type too (`catch (e) { const refusal: NotYourTurn = ... }`), as a class would be.
export type NotYourTurn = InstanceType<typeof NotYourTurn>;
export type IllegalAction = InstanceType<typeof IllegalAction>;
export type GameOver = InstanceType<typeof GameOver>;
export type UnknownPlayer = InstanceType<typeof UnknownPlayer>;
export type UnknownAction = InstanceType<typeof UnknownAction>;
export type StaleVersion = InstanceType<typeof StaleVersion>;
export type UnknownMatch = InstanceType<typeof UnknownMatch>;
export type WrongGame = InstanceType<typeof WrongGame>;
export type CommandIdInUse = InstanceType<typeof CommandIdInUse>;
export type SeatTaken = InstanceType<typeof SeatTaken>;
export type BadInvite = InstanceType<typeof BadInvite>;
export type CannotUndo = InstanceType<typeof CannotUndo>;

const REJECTIONS: Record<KnownRejectionCode, new (message: string) => Rejected> = {
  not_your_turn: NotYourTurn,
  illegal_action: IllegalAction,
  game_over: GameOver,
  unknown_player: UnknownPlayer,
  unknown_action: UnknownAction,
  stale_version: StaleVersion,
  unknown_match: UnknownMatch,
  wrong_game: WrongGame,
  command_id_in_use: CommandIdInUse,
  seat_taken: SeatTaken,
  bad_invite: BadInvite,
  cannot_undo: CannotUndo,
};

/** The Rejected subclass for a code (a code newer than this client: a plain Rejected). */
export function rejectionFor(code: RejectionCode, message: string): Rejected {
  const Known: (new (message: string) => Rejected) | undefined = REJECTIONS[code as KnownRejectionCode];
  return Known ? new Known(message) : new Rejected(code, message);
}

/** A call that failed: `code` is the Connect code name ("not_found", "resource_exhausted", ...). */
export class GatewayError extends Error {
  readonly code: string;
  /** Over a quota: when to try again, from the gateway's retry-after-ms. */
  readonly retryAfterMs: number;
  readonly cause: unknown;
  constructor(code: string, message: string, retryAfterMs = 0, cause?: unknown) {
    super(`${code}: ${message}`);
    this.name = "GatewayError";
    this.code = code;
    this.retryAfterMs = retryAfterMs;
    this.cause = cause;
  }
}

/** A receipt that does not verify with the gateway's published keys. */
export class ReceiptInvalid extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReceiptInvalid";
  }
}

const CODE_NAMES: Record<number, string> = {
  [Code.Canceled]: "canceled",
  [Code.Unknown]: "unknown",
  [Code.InvalidArgument]: "invalid_argument",
  [Code.DeadlineExceeded]: "deadline_exceeded",
  [Code.NotFound]: "not_found",
  [Code.AlreadyExists]: "already_exists",
  [Code.PermissionDenied]: "permission_denied",
  [Code.ResourceExhausted]: "resource_exhausted",
  [Code.FailedPrecondition]: "failed_precondition",
  [Code.Aborted]: "aborted",
  [Code.OutOfRange]: "out_of_range",
  [Code.Unimplemented]: "unimplemented",
  [Code.Internal]: "internal",
  [Code.Unavailable]: "unavailable",
  [Code.DataLoss]: "data_loss",
  [Code.Unauthenticated]: "unauthenticated",
};

/** Any error of a call as a GatewayError (with the retry hint when the gateway gave one). */
export function gatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const connect = ConnectError.from(error);
  const hint = Number(connect.metadata.get("retry-after-ms") ?? 0);
  return new GatewayError(
    CODE_NAMES[connect.code] ?? "unknown",
    connect.rawMessage,
    Number.isFinite(hint) ? hint : 0,
    error,
  );
}

/** Codes after which the same call, with the same command id, may simply be sent again. */
export function retriable(error: GatewayError): boolean {
  return (
    error.code === "unavailable" ||
    error.code === "deadline_exceeded" ||
    error.code === "aborted" ||
    (error.code === "resource_exhausted" && error.retryAfterMs > 0)
  );
}
