// The client typed for one game: `client.game("ys")` (or `new GameClient(client, "ys")`) takes and
// gives the game's own types, generated from its published JSON Schemas (scripts/games.mjs into
// src/gen/games/): `submit` takes only the game's actions, `getView` gives its view with its legal
// actions and outcome, `watch` and `events` its events. The untyped GuildhallClient stays as it was.
import type { Accepted, GuildhallClient, MatchEvent, MatchView, Ticket, WatchUpdate } from "./client.js";
import { WrongGame } from "./errors.js";
import type { GameId, Games, StreamEntry } from "./gen/games/index.js";

export type { GameId, Games, StreamEntry } from "./gen/games/index.js";
export type * as games from "./gen/games/index.js";

export type ActionOf<G extends GameId> = Games[G]["action"];
export type EventOf<G extends GameId> = Games[G]["event"];
export type ViewOf<G extends GameId> = Games[G]["view"];
export type OptionsOf<G extends GameId> = Games[G]["options"];
export type OutcomeOf<G extends GameId> = Games[G]["outcome"];
export type GameDataOf<G extends GameId> = Games[G]["game_data"];
export type DecisionOf<G extends GameId> = Games[G]["decision"];
export type DescriptionOf<G extends GameId> = Games[G]["description"];

/** An action of the game with this `type`: `ActionNamed<"ys", "place_broker">`. */
export type ActionNamed<G extends GameId, T extends ActionOf<G>["type"]> = Extract<ActionOf<G>, { type: T }>;

/** A view of a match of game G: the game's view, its legal actions and outcome typed. */
export interface TypedMatchView<G extends GameId> extends Omit<MatchView, "gameId" | "view" | "legalActions" | "outcome"> {
  gameId: G;
  view: ViewOf<G>;
  legalActions: ActionOf<G>[];
  outcome: OutcomeOf<G> | null;
}

/** An event of a match of game G: one of the game's events or one of the gateway's own entries. */
export interface TypedMatchEvent<G extends GameId> extends Omit<MatchEvent, "data"> {
  data: EventOf<G> | StreamEntry;
}

export interface TypedAccepted<G extends GameId> extends Omit<Accepted, "events" | "view"> {
  events: TypedMatchEvent<G>[];
  view: TypedMatchView<G> | null;
}

export interface TypedWatchUpdate<G extends GameId> extends Omit<WatchUpdate, "events" | "view"> {
  events: TypedMatchEvent<G>[];
  view: TypedMatchView<G> | null;
}

export type SubmitOptions = NonNullable<Parameters<GuildhallClient["submit"]>[2]>;

/** One game's calls over a GuildhallClient, with that game's types. */
export class GameClient<G extends GameId> {
  constructor(
    readonly client: GuildhallClient,
    readonly gameId: G,
  ) {}

  /** The same game under another credential (a seat or spectator token). */
  as(credential: string): GameClient<G> {
    return new GameClient(this.client.as(credential), this.gameId);
  }

  private typed(view: MatchView): TypedMatchView<G> {
    // A match of another game: its types would be wrong (the gateway's own wrong_game rejection).
    if (view.gameId && view.gameId !== this.gameId) {
      throw new WrongGame(`match ${view.matchId} is ${view.gameId}, not ${this.gameId}`);
    }
    return view as unknown as TypedMatchView<G>;
  }

  async getGameData(): Promise<GameDataOf<G>> {
    return (await this.client.getGameData(this.gameId)) as unknown as GameDataOf<G>;
  }

  createMatch(players: string[], options?: OptionsOf<G>) {
    return this.client.createMatch(this.gameId, players, options);
  }

  createTicket(playerId: string, seats: number | [number, number], options?: OptionsOf<G>): Promise<Ticket> {
    return this.client.createTicket(this.gameId, playerId, seats, options);
  }

  enqueueAndWait(playerId: string, seats: number, signal?: AbortSignal): Promise<Ticket> {
    return this.client.enqueueAndWait(this.gameId, playerId, seats, signal);
  }

  /** A private table with the game's own options (checked against its Options type). */
  createTable(seats: number, opts: { bots?: Record<number, string>; options?: OptionsOf<G> } = {}) {
    return this.client.createTable(this.gameId, seats, opts);
  }

  listMatches(finished?: boolean) {
    return this.client.listMatches(this.gameId, finished);
  }

  async getView(matchId: string): Promise<TypedMatchView<G>> {
    return this.typed(await this.client.getView(matchId));
  }

  async replay(matchId: string, version: number): Promise<TypedMatchView<G>> {
    return this.typed(await this.client.replay(matchId, version));
  }

  /** Act for this token's seat with one of the game's actions (GuildhallClient.submit). */
  async submit(matchId: string, action: ActionOf<G>, opts: SubmitOptions = {}): Promise<TypedAccepted<G>> {
    const accepted = await this.client.submit(matchId, action, opts);
    return { ...accepted, view: accepted.view && this.typed(accepted.view) } as unknown as TypedAccepted<G>;
  }

  async resign(matchId: string, commandId?: string): Promise<TypedAccepted<G>> {
    return (await this.client.resign(matchId, commandId)) as unknown as TypedAccepted<G>;
  }

  async undo(matchId: string, opts: { commandId?: string; expectedVersion?: number } = {}): Promise<TypedAccepted<G>> {
    return (await this.client.undo(matchId, opts)) as unknown as TypedAccepted<G>;
  }

  async *watch(
    matchId: string,
    fromVersion = 0,
    opts: { signal?: AbortSignal; untilFinished?: boolean } = {},
  ): AsyncGenerator<TypedWatchUpdate<G>> {
    for await (const update of this.client.watch(matchId, fromVersion, opts)) {
      yield { events: update.events as unknown as TypedMatchEvent<G>[], view: update.view && this.typed(update.view) };
    }
  }

  async events(matchId: string): Promise<TypedMatchEvent<G>[]> {
    return (await this.client.events(matchId)) as unknown as TypedMatchEvent<G>[];
  }

  audit(matchId: string) {
    return this.client.audit(matchId);
  }

  verifyMatch(matchId: string, events?: TypedMatchEvent<G>[]) {
    return this.client.verifyMatch(matchId, events as unknown as MatchEvent[] | undefined);
  }
}
