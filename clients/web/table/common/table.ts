// A match's live page, as a seat or as a spectator: the board (the game's own, or the fallback),
// the decision panel (with Undo while the seat's last move may be taken back) and the viewer's hand
// beside it (both kept in view while the board scrolls), the players, the log, refusals, resign and
// the end screen; the tab's title and icon say whose turn it is (attention.ts). Every text naming a
// player uses the names chosen at the table.
import { type DecisionChoice, type GuildhallClient, type MatchView, StaleVersion } from "../../src/index.js";
import { BOARDS } from "../games/index.js";
import { fallbackBoard } from "../games/fallback.js";
import type { BoardContext } from "../games/board.js";
import { TurnSignal } from "./attention.js";
import { DecisionWalk, decisionPanel } from "./decision.js";
import { button, h, words } from "./dom.js";
import { endScreen } from "./endscreen.js";
import { Log } from "./log.js";
import { Catalog, TableNames, sectionsOf, seatColour, seatNames } from "./names.js";
import { Refusals } from "./refusals.js";
import { type SeatRecord, keepSeat, pageClient, resumeLink } from "./session.js";

const catalogs = new Map<string, Promise<{ catalog: Catalog; sections: Record<string, string> }>>();

export function catalogFor(client: GuildhallClient, gameId: string) {
  let found = catalogs.get(gameId);
  if (!found) {
    found = Promise.all([client.getGameData(gameId), client.listGames()]).then(([data, games]) => ({
      catalog: new Catalog(data),
      sections: sectionsOf(games.find((g) => g.gameId === gameId)?.jsonSchemas.view),
    }));
    catalogs.set(gameId, found);
  }
  return found;
}

/** The board's context for one view (the same names and colours everywhere on the page). */
export function boardContext(view: MatchView, catalog: Catalog, names: string[], walk: DecisionWalk | null, choose: (c: DecisionChoice) => void): BoardContext {
  const table = new TableNames(names, catalog);
  return {
    data: catalog.data,
    view: view.view,
    seat: view.seat >= 0 ? view.seat : null,
    seatNames: names,
    seatColour,
    name: (kind, id) => catalog.name(kind, id),
    text: (kind, id) => catalog.text(kind, id),
    choosable: (kind, id) => (walk ? walk.choosable(kind, id, catalog.placeKind(String(id))) : null),
    choose,
    label: (choice) => table.label(choice),
  };
}

export function drawBoard(root: HTMLElement, view: MatchView, ctx: BoardContext, sections: Record<string, string>) {
  const board = BOARDS[view.gameId];
  try {
    if (board) board.render(root, ctx);
    else fallbackBoard(sections).render(root, ctx);
  } catch (error) {
    // A board that cannot draw this view must not take the table down: the fallback draws it.
    console.warn("board failed; drawing the fallback", error);
    fallbackBoard(sections).render(root, ctx);
  }
}

/** Where the match stands: the game's board says it when it has its own words for it. */
function headline(view: MatchView, ctx: BoardContext): string {
  const own = BOARDS[view.gameId]?.headline?.(ctx);
  if (own) return own;
  const v = view.view ?? {};
  const parts: string[] = [];
  if (v.round !== undefined && v.round !== null) parts.push(`Round ${v.round}${v.rounds ? ` of ${v.rounds}` : ""}`);
  else if (v.turn !== undefined && typeof v.turn === "number") parts.push(`Turn ${v.turn}`);
  if (typeof v.phase === "string" && v.phase) parts.push(words(v.phase));
  return parts.join(" · ");
}

const DRAW_EVERY_MS = 100;

/** The element to give the keyboard back to after a redraw: the same choice if it is still
 * offered, else the decision panel's first choice when the keyboard was on a choice. Never
 * scrolls the page: a click on a card of the hand must not jump to the top (issue 41 item 7). */
function refocus(root: HTMLElement, before: Element | null) {
  if (!(before instanceof HTMLElement) || before.isConnected) return;
  const kind = before.dataset.choiceKind ?? before.dataset.kind;
  const id = before.dataset.choiceId ?? before.dataset.id;
  const testid = before.dataset.testid;
  const same =
    kind !== undefined
      ? root.querySelector<HTMLElement>(`[data-choice-kind="${CSS.escape(kind)}"][data-choice-id="${CSS.escape(id ?? "")}"], [data-testid=choice][data-kind="${CSS.escape(kind)}"][data-id="${CSS.escape(id ?? "")}"]`)
      : testid // a button of the panel (Undo, Back, I'm back) drawn again
        ? root.querySelector<HTMLElement>(`[data-testid="${CSS.escape(testid)}"]`)
        : null;
  const next = same ?? root.querySelector<HTMLElement>("[data-testid=decision] [data-testid=choice]:not([disabled]), [data-testid=back], [data-testid=im-back]");
  next?.focus({ preventScroll: true });
}

export async function tablePage(app: HTMLElement, matchId: string, record: SeatRecord | null, asSeat: boolean) {
  const base = pageClient();
  const token = asSeat ? (record?.token ?? "") : (record?.spectatorToken ?? "");
  if (!token) {
    app.replaceChildren(h("div", { class: "page" }, h("p", { class: "error" }, "This browser holds no seat or spectator pass for this match."), h("p", {}, h("a", { href: "#/" }, "Back to the start"))));
    return;
  }
  const client = base.as(token);
  let view = await client.getView(matchId);
  const { catalog, sections } = await catalogFor(base, view.gameId);
  let names = seatNames(view);
  let table = new TableNames(names, catalog);
  if (record && !record.title) keepSeat({ ...record, title: catalog.data.title });

  const refusals = new Refusals();
  const log = new Log();
  const signal = new TurnSignal(catalog.data.title);
  const title = h("h1", { class: "match-title" }, catalog.data.title);
  const sub = h("p", { class: "headline", "data-testid": "headline" });
  const status = h("p", { class: "status", "data-testid": "status", "aria-live": "polite" });
  const boardBox = h("div", { class: "board-box", "data-testid": "board" });
  const decisionBox = h("div", { class: "decision-box", "data-testid": "decision-box" });
  // The viewer's hand, moved here from the board after each drawing (games/board.ts).
  const handDock = h("section", { class: "hand-dock", "aria-label": "Your hand", "data-testid": "hand-dock" });
  const players = h("section", { class: "panel players-panel", "aria-labelledby": "players-title" });
  const end = h("div", {});
  const away = h("div", { "data-testid": "away-box" });
  const tools = h("section", { class: "panel tools", "aria-label": "Match tools" });
  const side = h("div", { class: "side", "data-testid": "side" }, decisionBox, handDock, players, log.root, tools);
  const page = h(
    "div",
    { class: "page match", "data-testid": asSeat ? "seat-page" : "spectator" },
    h("div", { class: "match-head" }, title, sub, status),
    refusals.root,
    away,
    end,
    h("div", { class: "columns" }, h("section", { class: "main", id: "board", "aria-label": "Board" }, boardBox), side),
  );
  app.replaceChildren(page);

  // Tools: invite, spectate, replay, audit, the turn signal's settings, resign.
  const invite = record?.inviteCode ?? "";
  const here = `${location.origin}${location.pathname}`;
  const toolItems = h("ul", { class: "links" });
  if (invite && asSeat) {
    const link = `${here}#/join?code=${encodeURIComponent(invite)}`;
    toolItems.append(h("li", {}, "Invite a friend: ", h("a", { href: link, "data-testid": "invite-link" }, "invite link"), " ", h("code", {}, invite)));
  }
  if (asSeat && record?.resumeSecret) {
    // Issue 39: the seat's resume link, for this player only: it moves the seat to another device.
    const link = resumeLink(record);
    const field = h("input", { readonly: "", value: link, "aria-label": "Resume link", "data-testid": "resume-link", class: "resume-link" }) as HTMLInputElement;
    const copy = button("Copy", () => {
      void navigator.clipboard?.writeText(link).then(
        () => (copy.textContent = "Copied"),
        () => field.select(),
      );
    }, { class: "secondary small", "data-testid": "copy-resume-link" });
    toolItems.append(
      h("li", {}, "Play this seat on another device: open your resume link there (keep it to yourself; it works once, and this page then shows the new one). ", field, " ", copy),
    );
  }
  if (record?.spectatorToken) {
    const watch = `#/watch?m=${matchId}&t=${encodeURIComponent(record.spectatorToken)}`;
    toolItems.append(h("li", {}, h("a", { href: watch, "data-testid": "spectate-link" }, "Spectator link"), " (sees only the public table)"));
  }
  toolItems.append(h("li", {}, h("a", { href: `#/replay?m=${matchId}` }, "Replay"), " · ", h("a", { href: `#/audit?m=${matchId}` }, "Check the receipts"), " · ", h("a", { href: "#/" }, "My matches")));
  tools.append(h("h2", {}, "Table"), toolItems);
  if (asSeat) tools.append(signal.controls());
  const resignBox = h("div", { class: "resign" });
  if (asSeat) tools.append(resignBox);

  let walk: DecisionWalk | null = null;
  let walkVersion = -1;
  let sending = false;
  let simultaneousStart: number[] | null = null;

  const drawResign = () => {
    resignBox.replaceChildren();
    if (view.finished) return;
    const ask = button("Resign…", () => {
      resignBox.replaceChildren(
        h("p", {}, "Resign this match? The others play on without you."),
        button("Yes, resign", () => void resign(), { class: "danger", "data-testid": "resign-confirm" }),
        " ",
        button("Cancel", drawResign, { class: "secondary", "data-testid": "resign-cancel" }),
      );
      (resignBox.querySelector("[data-testid=resign-confirm]") as HTMLElement | null)?.focus();
    }, { class: "secondary", "data-testid": "resign" });
    resignBox.append(ask);
  };

  const resign = async () => {
    try {
      await client.resign(matchId);
    } catch (error) {
      refusals.show(error, "You did not resign. ");
    }
    drawResign();
  };

  // Issue 41: while a bot plays this seat (its timer ran out), the player takes it back here.
  const drawAway = () => {
    away.replaceChildren();
    if (!asSeat || view.finished || !view.awaySeats.includes(view.seat)) return;
    away.append(
      h(
        "section",
        { class: "away", role: "status", "data-testid": "away" },
        h("p", {}, "Your time ran out, so a bot is playing your seat. Take it back whenever you are ready (acting does it too)."),
        button("I'm back", () => void comeBack(), { class: "primary", "data-testid": "im-back" }),
      ),
    );
  };
  const comeBack = async () => {
    try {
      const accepted = await client.returnToSeat(matchId);
      if (accepted.version > view.version) view = await client.getView(matchId);
    } catch (error) {
      refusals.show(error, "Your seat was not taken back. ");
    }
    draw();
  };

  /** Seats by name, "you" for this seat: "Ann, Bob and you". */
  const nameList = (seats: number[]) => {
    const list = seats.map((s) => (s === view.seat ? "you" : names[s]));
    return list.length <= 1 ? (list[0] ?? "") : `${list.slice(0, -1).join(", ")} and ${list.at(-1)}`;
  };

  const drawPlayers = () => {
    // The score column: the game's score so far while it runs (the game data says what that
    // counts), the final score, equal to the outcome, once it is over.
    const final = view.finished && view.outcome;
    const rows = h("table", { class: "players", "data-testid": "players" });
    rows.append(h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Now"), h("th", { scope: "col", class: "num", "data-testid": "score-head" }, final ? "Final score" : "Score so far"))));
    const body = h("tbody");
    const seatViews: unknown[] = Array.isArray(view.view?.seats) ? view.view.seats : [];
    const results = new Map<number, number>((final ? (view.outcome?.results ?? []) : []).map((r: { player: number; score: number }) => [r.player, r.score]));
    names.forEach((name, seat) => {
      const score = results.get(seat) ?? (seatViews[seat] as { score?: number } | undefined)?.score;
      const acting = view.finished ? "" : view.activeSeats.includes(seat) ? "to act" : simultaneousStart?.includes(seat) ? "decided" : "";
      // Issues 39 and 41: who resigned, who is away (a bot plays for them), whose seat is free.
      const mark = view.resignedSeats.includes(seat) ? "resigned" : view.awaySeats.includes(seat) ? "away (a bot plays)" : view.unclaimedSeats.includes(seat) ? "seat free" : "";
      const now = [mark, acting].filter(Boolean).join(", ");
      body.append(
        h(
          "tr",
          { class: seat === view.seat ? "me" : "", "data-seat": String(seat), "data-mark": mark },
          h("th", { scope: "row" }, h("span", { class: "swatch", style: `background:${seatColour(seat)}` }), " ", name, seat === view.seat ? " (you)" : ""),
          h("td", {}, now),
          h("td", { class: "num", "data-testid": "score", "data-seat": String(seat) }, score === undefined ? "" : String(score)),
        ),
      );
    });
    rows.append(body);
    const meaning = final ? "" : (catalog.data.score?.during_play ?? "");
    players.replaceChildren(h("h2", { id: "players-title" }, "Players"), h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Players" }, rows));
    if (meaning) players.append(h("p", { class: "score-note", "data-testid": "score-note" }, h("b", {}, "Score so far: "), meaning));
  };

  const statusText = (): string => {
    if (view.finished) return "The match is over.";
    if (view.myTurn) {
      if (!view.decision?.simultaneous) return "Your turn.";
      const others = nameList(view.activeSeats.filter((s) => s !== view.seat));
      return others ? `Your decision (at the same time as ${others}).` : "Your decision (the others have decided).";
    }
    if (view.unclaimedSeats.length || !view.activeSeats.length) return "Waiting for the table to fill.";
    return `Waiting for ${nameList(view.activeSeats)}${view.activeSeats.length > 1 ? " (deciding at the same time)" : ""}.`;
  };

  /** The board's hand beside the decision panel, in a box with the board root's classes. */
  const dockHand = () => {
    const hand = boardBox.querySelector<HTMLElement>("[data-own-hand]");
    const root = hand?.closest("[data-game]");
    if (!hand || !root) return handDock.replaceChildren();
    handDock.replaceChildren(h("div", { class: `${root.className} hand-scope` }, hand));
  };

  // Updates can come in bursts (bots finishing a match: many a second): the page is drawn at
  // most every DRAW_EVERY_MS, the last update always.
  let drawTimer = 0;
  let drawn = 0;
  const drawSoon = () => {
    if (drawTimer) return;
    drawTimer = window.setTimeout(() => {
      drawTimer = 0;
      draw();
    }, Math.max(0, drawn + DRAW_EVERY_MS - performance.now()));
  };

  const draw = () => {
    drawn = performance.now();
    if (drawTimer) window.clearTimeout(drawTimer);
    drawTimer = 0;
    const focused = document.activeElement;
    names = seatNames(view);
    table = new TableNames(names, catalog);
    log.show(table);
    // Who has decided, while this seat is in a simultaneous decision.
    simultaneousStart = view.decision?.simultaneous ? (simultaneousStart ?? [...view.activeSeats]) : null;
    status.textContent = statusText();
    boardBox.setAttribute("data-version", String(view.version));
    boardBox.setAttribute("data-state", view.finished ? "finished" : view.myTurn ? "my-turn" : "waiting");

    if (view.myTurn && view.decision) {
      if (!walk || walkVersion !== view.version) {
        walk = new DecisionWalk(view.decision);
        walkVersion = view.version;
      }
    } else walk = null;

    const ctx = boardContext(view, catalog, names, walk && !sending ? walk : null, (c) => void choose(c));
    sub.textContent = headline(view, ctx);
    drawBoard(boardBox, view, ctx, sections);
    dockHand();

    decisionBox.replaceChildren();
    if (walk) decisionBox.append(decisionPanel(walk, table, sending, (c) => void choose(c), back, explainChoice));
    else if (!view.finished && asSeat && view.myTurn) {
      // A game without a presentation: its legal actions, as they are.
      const panel = h("section", { class: "decision", "data-testid": "decision" }, h("h2", {}, "Your move"));
      for (const action of view.legalActions) panel.append(button(words(String(action?.type ?? "action")), () => void send(action), { "data-testid": "choice" }));
      decisionBox.append(panel);
    } else if (!view.finished) {
      decisionBox.append(h("section", { class: "decision waiting", "data-testid": "waiting" }, h("p", {}, asSeat ? status.textContent ?? "" : `Spectating. ${status.textContent ?? ""}`)));
    }
    // Issue 41: your last move may be taken back until something is revealed or another seat acts.
    if (asSeat && view.undoAvailable && !view.finished) {
      const b = button("Undo my last move", () => void undo(), { class: "secondary", "data-testid": "undo", title: "Take back your last move: nothing was revealed and nobody has acted since" });
      if (sending) b.disabled = true;
      decisionBox.append(h("p", { class: "undo" }, b));
    }
    drawPlayers();
    drawAway();
    if (view.finished) {
      end.replaceChildren(endScreen(view, names, log.endReason(), catalog.data.score ?? {}));
      if (record) keepSeat({ ...record, finished: true });
    }
    if (asSeat) {
      drawResign();
      signal.update(view.myTurn, view.finished, view.decision ? table.prompt(view.decision) : "");
    }
    refocus(page, focused);
  };

  const explainChoice = (c: DecisionChoice) => {
    if (!c.kind || c.kind === "seat") return null;
    const text = catalog.text(c.kind, c.id);
    return text ? { text, place: catalog.isPlace(c.kind, c.id) } : null;
  };

  const back = () => {
    walk?.back();
    draw();
    (decisionBox.querySelector("[data-testid=choice]") as HTMLElement | null)?.focus({ preventScroll: true });
  };

  const choose = async (choice: DecisionChoice) => {
    if (!walk || sending) return;
    const option = walk.take(choice);
    if (!option) {
      draw();
      (decisionBox.querySelector("[data-testid=choice]") as HTMLElement | null)?.focus({ preventScroll: true });
      return;
    }
    await send(view.legalActions[option.action]);
  };

  const undo = async () => {
    if (sending) return;
    sending = true;
    draw();
    try {
      await client.undo(matchId, { expectedVersion: view.version });
      view = await client.getView(matchId);
      walk = null;
    } catch (error) {
      refusals.show(error, "Not taken back. ");
      try {
        view = await client.getView(matchId);
      } catch {
        // the Watch below brings the next view
      }
    } finally {
      sending = false;
      draw();
      (decisionBox.querySelector("[data-testid=choice], [data-testid=undo]") as HTMLElement | null)?.focus({ preventScroll: true });
    }
  };

  const send = async (action: unknown) => {
    if (sending) return;
    sending = true;
    draw();
    try {
      // Another seat acting first (a simultaneous decision) is answered stale_version: the client
      // sends the same choice again while it is still legal (client.ts `submit`).
      const accepted = await client.submit(matchId, action, { expectedVersion: view.version, returnView: true });
      if (accepted.view && accepted.view.version > view.version) view = accepted.view;
    } catch (error) {
      // The refusal says what happened; the table as it stands now is read again without a word.
      refusals.show(error, error instanceof StaleVersion ? "" : "Not played: ");
      try {
        view = await client.getView(matchId);
      } catch {
        // the Watch below brings the next view
      }
      walk = null;
    } finally {
      sending = false;
      draw();
    }
  };

  draw();
  const stop = new AbortController();
  window.addEventListener(
    "hashchange",
    () => {
      stop.abort();
      signal.reset();
    },
    { once: true },
  );
  // A friend taking a seat appends nothing (no new version for the Watch): while a seat waits for
  // its player, the view is read again now and then to learn the name.
  const waitingForNames = window.setInterval(() => {
    const empty = view.seatNames.some((n, seat) => !n && !view.bots.some((b) => b.seat === seat));
    if (stop.signal.aborted || view.finished || !empty) return;
    client
      .getView(matchId)
      .then((fresh) => {
        if (fresh.version >= view.version && fresh.seatNames.join("\u0000") !== view.seatNames.join("\u0000")) {
          view = fresh;
          draw();
        }
      })
      .catch(() => undefined);
  }, 2000);
  stop.signal.addEventListener("abort", () => window.clearInterval(waitingForNames));
  try {
    for await (const update of client.watch(matchId, 0, { signal: stop.signal })) {
      if (update.view && update.view.version >= view.version) view = update.view;
      log.add(update.events);
      drawSoon();
    }
  } catch (error) {
    if (!stop.signal.aborted) refusals.show(error, "The live connection to the table ended: reload the page to reconnect. ");
  }
}
