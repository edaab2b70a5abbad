// The start page: your name, a new table (each seat a friend or a platform bot), joining by an
// invite code, and "My matches" to resume.
import { type Game, Rejected } from "../../src/index.js";
import { button, h } from "./dom.js";
import { Refusals, refusalText } from "./refusals.js";
import { forgetSeat, go, keepSeat, pageClient, player, seatByInvite, seats, setPlayerName, setPublishableKey } from "./session.js";

const SEAT_KINDS: [string, string][] = [
  ["friend", "a friend (invite link)"],
  ["random", "bot (random)"],
  ["greedy", "bot (greedy)"],
  ["strong", "bot (strong: searches about a second a move)"],
];

export async function keyPage(app: HTMLElement) {
  const input = h("input", { id: "pk", size: "50", autocomplete: "off" }) as HTMLInputElement;
  app.replaceChildren(
    h(
      "div",
      { class: "page narrow" },
      h("h1", {}, "Set up this table"),
      h("p", {}, "This gateway serves no publishable key (PUBLISHABLE_KEY). Paste the tenant's publishable key (scope publishable: it can only open tables and claim seats, so it is safe in a page)."),
      h("p", {}, h("label", { for: "pk" }, "Publishable key "), input, " ", button("Save", () => {
        setPublishableKey(input.value.trim());
        location.reload();
      })),
    ),
  );
}

/** Ask for a name before playing when none is known yet. */
export function nameField(): HTMLInputElement {
  const input = h("input", { id: "name", maxlength: "40", autocomplete: "nickname", value: player().name, "data-testid": "name", placeholder: "e.g. Ada" }) as HTMLInputElement;
  input.addEventListener("change", () => setPlayerName(input.value));
  return input;
}

export async function homePage(app: HTMLElement) {
  const client = pageClient();
  const refusals = new Refusals();
  const games: Game[] = await client.listGames();
  const name = nameField();
  const game = h("select", { id: "game", "data-testid": "game" }) as HTMLSelectElement;
  for (const g of games) game.append(h("option", { value: g.gameId }, g.title));
  const count = h("select", { id: "count", "data-testid": "count" }) as HTMLSelectElement;
  const seatRows = h("ol", { class: "seat-rows", "data-testid": "seat-rows" });
  const drawCounts = () => {
    const g = games.find((x) => x.gameId === game.value);
    const before = count.value;
    count.replaceChildren(...(g?.playerCounts ?? []).map((n) => h("option", { value: String(n) }, `${n} players`)));
    if ([...count.options].some((o) => o.value === before)) count.value = before;
    drawSeats();
  };
  const drawSeats = () => {
    const n = Number(count.value);
    const old = [...seatRows.querySelectorAll("select")].map((s) => (s as HTMLSelectElement).value);
    seatRows.replaceChildren(h("li", {}, "You"));
    for (let seat = 1; seat < n; seat++) {
      const id = `seat-${seat}`;
      const select = h("select", { id, "data-testid": id }) as HTMLSelectElement;
      for (const [value, label] of SEAT_KINDS) select.append(h("option", { value }, label));
      select.value = old[seat - 1] ?? "friend";
      seatRows.append(h("li", {}, h("label", { for: id }, `Seat ${seat + 1}: `), select));
    }
  };
  game.addEventListener("change", drawCounts);
  count.addEventListener("change", drawSeats);
  drawCounts();

  const create = button("Create the table", () => void createTable(), { "data-testid": "create", class: "primary" });
  const createTable = async () => {
    setPlayerName(name.value);
    if (!name.value.trim()) {
      refusals.show("Choose your name first: the other players see it.");
      name.focus();
      return;
    }
    create.disabled = true;
    try {
      const bots: Record<number, string> = {};
      seatRows.querySelectorAll("select").forEach((el, i) => {
        const v = (el as HTMLSelectElement).value;
        if (v !== "friend") bots[i + 1] = v;
      });
      const table = await client.createTable(game.value, Number(count.value), { bots });
      const me = player();
      const seat = await client.claimSeat(table.inviteCode, me.id, me.name);
      keepSeat({
        matchId: seat.matchId,
        gameId: game.value,
        title: game.selectedOptions[0]?.textContent ?? game.value,
        seat: seat.seat,
        token: seat.token,
        spectatorToken: table.spectatorToken,
        inviteCode: table.inviteCode,
        createdMs: Date.now(),
        resumeSecret: seat.resumeSecret,
      });
      go("/play", { m: seat.matchId });
    } catch (error) {
      refusals.show(error, "The table was not created. ");
    } finally {
      create.disabled = false;
    }
  };

  const code = h("input", { id: "code", "data-testid": "invite-code", placeholder: "XXXXX-XXXXX-XXXXX-XXXXX", autocomplete: "off" }) as HTMLInputElement;
  const join = button("Join", () => {
    setPlayerName(name.value);
    go("/join", { code: code.value.trim() });
  });

  const mine = h("section", { class: "panel", "aria-labelledby": "mine-title" }, h("h2", { id: "mine-title" }, "My matches"));
  const records = seats();
  if (!records.length) mine.append(h("p", { class: "muted" }, "None yet: create a table or join one."));
  else {
    const list = h("ul", { class: "my-matches", "data-testid": "my-matches" });
    for (const r of records.slice(0, 30)) {
      const forget = button("Forget", () => {
        forgetSeat(r.matchId);
        void homePage(app);
      }, { class: "secondary small", "aria-label": `Forget ${r.title} ${r.matchId.slice(0, 6)}` });
      const open = r.seat >= 0 ? h("a", { href: `#/play?m=${r.matchId}`, "data-testid": "resume" }, r.finished ? "See the result" : "Resume") : h("a", { href: `#/watch?m=${r.matchId}` }, "Watch");
      list.append(h("li", {}, h("strong", {}, r.title || r.gameId), ` · seat ${r.seat + 1} · ${new Date(r.createdMs).toLocaleString()}${r.finished ? " · over" : ""} `, open, " ", forget));
    }
    mine.append(list);
  }

  app.replaceChildren(
    h(
      "div",
      { class: "page narrow" },
      refusals.root,
      h("section", { class: "panel", "aria-labelledby": "you-title" }, h("h2", { id: "you-title" }, "You"), h("p", {}, h("label", { for: "name" }, "Your name at the table "), name)),
      h(
        "section",
        { class: "panel", "aria-labelledby": "new-title" },
        h("h2", { id: "new-title" }, "A new table"),
        h("p", { class: "row" }, h("label", { for: "game" }, "Game "), game, " ", h("label", { for: "count" }, "Players "), count),
        seatRows,
        h("p", {}, create),
        h("p", { class: "muted small" }, "Bots are played by the platform: the match goes on even when every tab is closed. Friends join with the invite link the table shows."),
      ),
      h("section", { class: "panel", "aria-labelledby": "join-title" }, h("h2", { id: "join-title" }, "Join a table"), h("p", { class: "row" }, h("label", { for: "code" }, "Invite code "), code, " ", join)),
      mine,
    ),
  );
}

/** #/join?code=...: claim a seat with the invite code, under the name chosen here. */
export async function joinPage(app: HTMLElement, code: string) {
  // A seat is claimed once (issue 39): this browser's own seat at this table opens as it is.
  const held = seatByInvite(code);
  if (held) return go("/play", { m: held.matchId });
  const client = pageClient();
  const me = player();
  const refusals = new Refusals();
  const name = nameField();
  const go_ = async () => {
    setPlayerName(name.value);
    if (!name.value.trim()) {
      refusals.show("Choose your name first: the other players see it.");
      return;
    }
    try {
      const seat = await client.claimSeat(code, me.id, name.value.trim());
      const view = await client.as(seat.token).getView(seat.matchId);
      keepSeat({ matchId: seat.matchId, gameId: view.gameId, title: "", seat: seat.seat, token: seat.token, spectatorToken: "", inviteCode: code, createdMs: Date.now(), resumeSecret: seat.resumeSecret });
      go("/play", { m: seat.matchId });
    } catch (error) {
      // A seat is claimed once (issue 39): the seat_taken sentence points to the resume link.
      refusals.show(error, "Could not join. ");
    }
  };
  app.replaceChildren(
    h(
      "div",
      { class: "page narrow" },
      refusals.root,
      h("h1", {}, "You are invited to a table"),
      h("p", {}, h("label", { for: "name" }, "Your name at the table "), name, " ", button("Take a seat", () => void go_(), { class: "primary", "data-testid": "take-seat" })),
      h("p", { class: "muted small" }, `Invite code ${code}`),
    ),
  );
  if (me.name) await go_();
}

/** #/resume?s=...: a seat's resume link, opened on another device: the seat moves here (its
 * secret is spent and this browser keeps the new one). */
export async function resumePage(app: HTMLElement, secret: string) {
  const refusals = new Refusals();
  // The secret leaves the address bar and the history at once: it works once anyway.
  history.replaceState(null, "", "#/resume");
  app.replaceChildren(h("div", { class: "page narrow" }, refusals.root, h("h1", {}, "Taking your seat on this device…")));
  try {
    const client = pageClient();
    const seat = await client.resumeSeat(secret);
    const view = await client.as(seat.token).getView(seat.matchId);
    keepSeat({ matchId: seat.matchId, gameId: view.gameId, title: "", seat: seat.seat, token: seat.token, spectatorToken: "", inviteCode: "", createdMs: Date.now(), resumeSecret: seat.resumeSecret });
    go("/play", { m: seat.matchId });
  } catch (error) {
    const why = error instanceof Rejected ? "It has been used already, or it is not a resume link: each works once." : refusalText(error);
    refusals.show(`This resume link did not work. ${why} The seat's newest resume link is under “Table” on the device that holds the seat.`);
    app.querySelector("h1")?.replaceChildren("Your seat was not moved");
  }
}
