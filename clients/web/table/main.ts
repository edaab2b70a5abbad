// The reference web table: pick a game, play it against bots or at a private table, watch a match
// live, replay one with a slider, audit one in the page. Built only on the TypeScript client
// (../src): what any third party can build.
import { type GameData, GuildhallClient, type MatchEvent, type MatchView, Rejected } from "../src/index.js";
import { Names, board, h, headline } from "./render.js";

const store = window.localStorage;
const app = document.getElementById("app") as HTMLElement;

interface Settings {
  key: string;
  player: string;
  botDelayMs: number;
}

function settings(): Settings {
  return {
    key: store.getItem("guildhall.key") ?? "",
    player: store.getItem("guildhall.player") ?? `player-${Math.floor(Math.random() * 10000)}`,
    botDelayMs: Number(store.getItem("guildhall.botDelayMs") ?? 400),
  };
}

function tenant(): GuildhallClient {
  return new GuildhallClient({ baseUrl: store.getItem("guildhall.gateway") ?? "", credential: settings().key });
}

function params(): URLSearchParams {
  const hash = location.hash.replace(/^#/, "");
  return new URLSearchParams(hash.includes("?") ? hash.slice(hash.indexOf("?") + 1) : "");
}

function route(): string {
  return location.hash.replace(/^#/, "").split("?")[0] || "/";
}

function go(path: string, query: Record<string, string> = {}) {
  location.hash = `#${path}?${new URLSearchParams(query)}`;
}

function errorBox(error: unknown): HTMLElement {
  const text = error instanceof Error ? error.message : String(error);
  return h("p", { class: "error", "data-testid": "error" }, text);
}

const dataCache = new Map<string, Promise<Names>>();
function namesFor(client: GuildhallClient, gameId: string): Promise<Names> {
  let names = dataCache.get(gameId);
  if (!names) {
    names = client.getGameData(gameId).then((d: GameData) => new Names(d));
    dataCache.set(gameId, names);
  }
  return names;
}

/** Seat tokens and player names of the matches opened from this page (bots keep playing). */
const seats = new Map<string, { players: string[]; mine: number }>();

// -- bots, in the page -------------------------------------------------------------------------

/** A bot seat: whenever it may act, a random legal action (through the same client). */
async function runBot(client: GuildhallClient, matchId: string, signal: AbortSignal) {
  const delay = () => (settings().botDelayMs > 0 ? new Promise((r) => setTimeout(r, settings().botDelayMs)) : Promise.resolve());
  let view = await client.getView(matchId);
  let acted = -1;
  const act = async () => {
    while (view.myTurn && acted !== view.version && !signal.aborted) {
      acted = view.version;
      await delay();
      const action = view.legalActions[Math.floor(Math.random() * view.legalActions.length)];
      try {
        const accepted = await client.submit(matchId, action, { expectedVersion: view.version, returnView: true });
        if (accepted.view) view = accepted.view;
      } catch (error) {
        if (!(error instanceof Rejected)) throw error;
        view = await client.getView(matchId); // another seat moved first and the action went stale
      }
    }
  };
  await act();
  for await (const update of client.watch(matchId, view.version, { signal })) {
    if (update.view && update.view.version >= view.version) view = update.view;
    await act();
    if (view.finished) return;
  }
}

const bots = new AbortController();

// -- pages --------------------------------------------------------------------------------------

async function home() {
  const s = settings();
  const page = h("div", { class: "page" });
  const key = h("input", { id: "key", type: "password", value: s.key, placeholder: "ghk_... (printed by make run)", size: "52" }) as HTMLInputElement;
  const player = h("input", { id: "player", value: s.player, size: "16" }) as HTMLInputElement;
  const save = h("button", {}, "Save");
  save.onclick = () => {
    store.setItem("guildhall.key", key.value.trim());
    store.setItem("guildhall.player", player.value.trim() || s.player);
    void render();
  };
  page.append(h("section", { class: "settings" }, h("label", {}, "API key ", key), " ", h("label", {}, "Your name ", player), " ", save));
  if (!s.key) {
    page.append(h("p", {}, "Paste the API key `make run` printed, then Save."));
    app.replaceChildren(page);
    return;
  }
  const client = tenant();
  const games = await client.listGames();
  const list = h("section", { class: "games" }, h("h2", {}, "Play"));
  for (const game of games) {
    const count = h("select", { "data-testid": `seats-${game.gameId}` }) as HTMLSelectElement;
    for (const n of game.playerCounts) count.append(h("option", { value: String(n) }, `${n} players`));
    const vsBots = h("button", { "data-testid": `bots-${game.gameId}` }, "Play against bots");
    vsBots.onclick = () => void playAgainstBots(game.gameId, Number(count.value)).catch((e) => page.append(errorBox(e)));
    const table = h("button", { "data-testid": `table-${game.gameId}` }, "Open a private table");
    table.onclick = () => void openTable(game.gameId, Number(count.value)).catch((e) => page.append(errorBox(e)));
    list.append(h("div", { class: "game" }, h("strong", {}, game.title), " ", count, " ", vsBots, " ", table));
  }
  const invite = h("input", { placeholder: "invite code", "data-testid": "invite-code" }) as HTMLInputElement;
  const join = h("button", {}, "Join");
  join.onclick = () => go("/join", { code: invite.value.trim() });
  list.append(h("div", { class: "game" }, "Invited? ", invite, " ", join));
  page.append(list);
  const matches = h("section", {}, h("h2", {}, "Matches"));
  const rows = (await client.listMatches()).slice(0, 20);
  const table = h("table", {}, h("tr", {}, h("th", {}, "match"), h("th", {}, "game"), h("th", {}, "players"), h("th", {}, "version"), h("th", {}, "")));
  for (const m of rows) {
    const links = h("span", {});
    for (const [label, path] of [["watch", "/watch"], ["replay", "/replay"], ["audit", "/audit"]]) {
      links.append(h("a", { href: `#${path}?m=${m.matchId}` }, label), " ");
    }
    table.append(h("tr", {}, h("td", {}, m.matchId.slice(0, 12)), h("td", {}, m.gameId), h("td", {}, m.players.join(", ")), h("td", {}, `${m.version}${m.finished ? " (over)" : ""}`), h("td", {}, links)));
  }
  matches.append(rows.length ? table : h("p", { class: "muted" }, "none yet"));
  page.append(matches);
  app.replaceChildren(page);
}

async function playAgainstBots(gameId: string, count: number) {
  const client = tenant();
  const me = settings().player;
  // Everyone queues through matchmaking: this player and one ticket per bot, same game and size.
  const mine = client.enqueueAndWait(gameId, me, count);
  const botTickets = Array.from({ length: count - 1 }, (_, i) => client.enqueueAndWait(gameId, `bot-${i + 1}`, count));
  const [ticket, ...others] = await Promise.all([mine, ...botTickets]);
  for (const bot of others) {
    void runBot(client.as(bot.seatToken), bot.matchId, bots.signal).catch((e) => console.error("bot", e));
  }
  seats.set(ticket.matchId, { players: ticket.players, mine: ticket.seat });
  sessionStorage.setItem(`guildhall.token.${ticket.matchId}`, ticket.seatToken);
  go("/play", { m: ticket.matchId });
}

async function openTable(gameId: string, count: number) {
  const client = tenant();
  const table = await client.createTable(gameId, count);
  const seat = await client.claimSeat(table.inviteCode, settings().player);
  sessionStorage.setItem(`guildhall.token.${seat.matchId}`, seat.token);
  sessionStorage.setItem(`guildhall.invite.${seat.matchId}`, table.inviteCode);
  go("/play", { m: seat.matchId });
}

async function join() {
  const code = params().get("code") ?? "";
  const client = tenant();
  const seat = await client.claimSeat(code, settings().player);
  sessionStorage.setItem(`guildhall.token.${seat.matchId}`, seat.token);
  go("/play", { m: seat.matchId });
}

function seatLabeller(players: string[] | undefined, mine: number) {
  return (seat: number) => {
    const name = players?.[seat] && !players[seat].startsWith("seat-") ? players[seat] : `seat ${seat}`;
    return seat === mine ? `${name} (you)` : name;
  };
}

/** A match's live page: as a seat (with actions) or as a spectator. */
async function live(asSeat: boolean) {
  const matchId = params().get("m") ?? "";
  const token = asSeat ? (params().get("t") ?? sessionStorage.getItem(`guildhall.token.${matchId}`) ?? "") : (params().get("t") ?? "");
  const base = tenant();
  const client = token ? base.as(token) : base;
  let view: MatchView = await client.getView(matchId);
  const names = await namesFor(base, view.gameId);
  const known = seats.get(matchId);
  const label = seatLabeller(known?.players, view.seat);
  const invite = sessionStorage.getItem(`guildhall.invite.${matchId}`);

  const top = h("div", { class: "top" });
  const boardBox = h("div", { "data-testid": "board" });
  const actions = h("div", { class: "actions", "data-testid": "actions" });
  const log = h("ol", { class: "log", "data-testid": "log", reversed: "" });
  const page = h(
    "div",
    { class: "page match", "data-testid": asSeat ? "seat-page" : "spectator" },
    top,
    h("div", { class: "columns" }, h("div", { class: "main" }, boardBox, h("h3", {}, "Your move"), actions), h("div", { class: "side" }, h("h3", {}, "What happened"), log)),
  );
  if (invite && asSeat) {
    const link = `${location.origin}${location.pathname}#/join?code=${encodeURIComponent(invite)}`;
    const fill = h("button", { "data-testid": "fill-bots" }, "Fill the empty seats with bots");
    fill.onclick = async () => {
      fill.setAttribute("disabled", "");
      for (;;) {
        try {
          const bot = await base.claimSeat(invite, `bot-${Math.floor(Math.random() * 1000)}`);
          void runBot(base.as(bot.token), bot.matchId, bots.signal).catch((e) => console.error("bot", e));
        } catch {
          break; // seat_taken: the table is full
        }
      }
    };
    page.prepend(h("p", { class: "invite" }, "Invite link: ", h("a", { href: link, "data-testid": "invite-link" }, link), " ", fill));
  }
  app.replaceChildren(page);

  let sending = false;
  const draw = () => {
    const turn = view.finished ? "finished" : view.myTurn ? "my-turn" : "waiting";
    const whose = view.activeSeats.map(label).join(", ") || "nobody";
    top.replaceChildren(
      h("h2", {}, `${names.data.title} — ${headline(view.view)}`),
      h("p", { class: "status", "data-testid": "status" }, view.finished ? `Game over. ${outcomeText(view, label)}` : `Version ${view.version}. To act: ${whose}.`),
      h("p", {}, h("a", { href: `#/replay?m=${matchId}` }, "replay"), " · ", h("a", { href: `#/audit?m=${matchId}` }, "audit"), " · ", h("a", { href: `#/watch?m=${matchId}` }, "spectate"), " · ", h("a", { href: "#/" }, "home")),
    );
    boardBox.setAttribute("data-version", String(view.version));
    boardBox.setAttribute("data-state", turn);
    boardBox.replaceChildren(board(view.gameId, view.view, names, label));
    actions.replaceChildren();
    if (!asSeat) actions.append(h("p", { class: "muted" }, "Spectating."));
    else if (view.myTurn) {
      view.legalActions.forEach((action) => {
        const button = h("button", { "data-testid": "action" }, names.action(action));
        if (sending) button.setAttribute("disabled", "");
        button.onclick = () => void send(action);
        actions.append(button);
      });
    } else actions.append(h("p", { class: "muted" }, view.finished ? "The match is over." : "Waiting for the others."));
  };
  const send = async (action: unknown) => {
    if (sending) return;
    sending = true;
    draw();
    try {
      const accepted = await client.submit(matchId, action, { expectedVersion: view.version, returnView: true });
      if (accepted.view && accepted.view.version > view.version) view = accepted.view;
    } catch (error) {
      actions.append(errorBox(error));
      if (error instanceof Rejected) view = await client.getView(matchId);
    } finally {
      sending = false;
      draw();
    }
  };
  const addEvents = (events: MatchEvent[]) => {
    for (const e of events) {
      const who = e.actor < 0 ? "table" : label(e.actor);
      log.prepend(h("li", { "data-version": String(e.version) }, names.event(e.type, e.data, who)));
    }
  };
  draw();
  const stop = new AbortController();
  const leave = () => stop.abort();
  window.addEventListener("hashchange", leave, { once: true });
  try {
    for await (const update of client.watch(matchId, 0, { signal: stop.signal })) {
      addEvents(update.events);
      if (update.view && update.view.version >= view.version) view = update.view;
      draw();
    }
  } catch (error) {
    if (!stop.signal.aborted) page.append(errorBox(error));
  }
}

function outcomeText(view: MatchView, label: (seat: number) => string): string {
  const winners: number[] = view.outcome?.winners ?? [];
  const scores = (view.outcome?.results ?? []).map((r: { player: number; score: number }) => `${label(r.player)} ${r.score}`).join(", ");
  return `${winners.length ? `Won by ${winners.map(label).join(" and ")}` : "Nobody won"}. ${scores}`;
}

async function replay() {
  const matchId = params().get("m") ?? "";
  const client = tenant();
  const latest = await client.getView(matchId);
  const names = await namesFor(client, latest.gameId);
  const label = seatLabeller(seats.get(matchId)?.players, -1);
  const slider = h("input", { type: "range", min: "1", max: String(latest.version), value: String(latest.version), "data-testid": "replay-slider" }) as HTMLInputElement;
  const shown = h("span", { "data-testid": "replay-version" }, String(latest.version));
  const boardBox = h("div", { "data-testid": "board" });
  let asked = 0;
  const show = async () => {
    const version = Number(slider.value);
    const ticket = ++asked;
    const view = await client.replay(matchId, version);
    if (ticket !== asked) return; // a later position was asked for meanwhile
    shown.textContent = String(view.version);
    boardBox.setAttribute("data-version", String(view.version));
    boardBox.replaceChildren(h("h3", {}, headline(view.view)), board(view.gameId, view.view, names, label));
  };
  slider.oninput = () => void show();
  app.replaceChildren(
    h("div", { class: "page" }, h("h2", {}, `Replay of ${names.data.title} ${matchId.slice(0, 12)}`), h("p", {}, "Version ", slider, " ", shown, ` of ${latest.version}`, " · ", h("a", { href: "#/" }, "home")), boardBox),
  );
  await show();
}

async function audit() {
  const matchId = params().get("m") ?? "";
  const client = tenant();
  const result = h("div", { "data-testid": "audit-result" }, "Checking...");
  app.replaceChildren(h("div", { class: "page" }, h("h2", {}, `Audit of ${matchId.slice(0, 12)}`), result, h("p", {}, h("a", { href: "#/" }, "home"))));
  const [server, local] = await Promise.all([client.audit(matchId), client.verifyMatch(matchId)]);
  const ok = server.ok && local.ok && local.badReceipts.length === 0;
  result.setAttribute("data-ok", String(ok));
  result.setAttribute("data-receipts", String(local.receiptsChecked));
  result.setAttribute("data-seed", String(local.seedOk));
  result.replaceChildren(
    h("p", {}, `Gateway audit: ${server.ok ? "OK" : `FAILED at version ${server.firstBadVersion}: ${server.reason}`} (${server.checkedVersions} versions re-executed).`),
    h("p", {}, `In this page: ${local.receiptsChecked} receipts checked with the gateway's published Ed25519 keys, ${local.badReceipts.length ? `BAD at versions ${local.badReceipts.join(", ")}` : "every one verified"}.`),
    h("p", {}, local.seedRevealed ? `Seed revealed; sha256 matches the commitment ${local.seedCommitment.slice(0, 16)}…: ${local.seedOk ? "yes" : "NO"}.` : `Seed not revealed yet (the match is on); commitment ${local.seedCommitment.slice(0, 16)}…`),
    h("p", { class: ok ? "good" : "error" }, ok ? "Everything checks out." : "Something does not check out."),
  );
}

async function render() {
  const p = params();
  // Settings can come in the link (the test harness, or a shared link): kept, then dropped from it.
  for (const [param, name] of [["key", "guildhall.key"], ["botDelay", "guildhall.botDelayMs"], ["gateway", "guildhall.gateway"], ["player", "guildhall.player"]]) {
    const value = p.get(param);
    if (value !== null) store.setItem(name, value);
  }
  if (p.has("key")) {
    p.delete("key");
    history.replaceState(null, "", `#${route()}?${p}`);
  }
  try {
    switch (route()) {
      case "/play":
        return await live(true);
      case "/watch":
        return await live(false);
      case "/replay":
        return await replay();
      case "/audit":
        return await audit();
      case "/join":
        return await join();
      default:
        return await home();
    }
  } catch (error) {
    app.append(errorBox(error));
  }
}

window.addEventListener("hashchange", () => void render());
void render();
