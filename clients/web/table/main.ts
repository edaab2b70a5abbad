// The reference web table: routes only. What every game shares is in common/ (session and seats,
// decision panel, log, refusals, end screen); each game's board is in games/<game_id>/.
import { h } from "./common/dom.js";
import { homePage, joinPage, keyPage, resumePage } from "./common/home.js";
import { refusalText } from "./common/refusals.js";
import { auditPage, replayPage } from "./common/replay.js";
import { keepSeat, loadConfig, params, route, seatFor, setGateway, setPublishableKey } from "./common/session.js";
import { tablePage } from "./common/table.js";

const app = document.getElementById("app") as HTMLElement;

async function render() {
  const p = params();
  // A link may carry the page's settings (an operator's link, the tests): kept, then dropped.
  if (p.has("pk") || p.has("gateway")) {
    await loadConfig();
    if (p.has("pk")) setPublishableKey(p.get("pk") ?? "");
    if (p.has("gateway")) setGateway(p.get("gateway") ?? "");
    p.delete("pk");
    p.delete("gateway");
    history.replaceState(null, "", `#${route()}${p.size ? `?${p}` : ""}`);
  }
  const config = await loadConfig();
  const matchId = p.get("m") ?? "";
  try {
    if (!config.publishableKey) return await keyPage(app);
    switch (route()) {
      case "/play":
        return await tablePage(app, matchId, seatFor(matchId), true);
      case "/watch": {
        // A spectator link carries its pass; it stays a spectator's page whatever else is known.
        const known = seatFor(matchId);
        const pass = p.get("t") ?? known?.spectatorToken ?? "";
        if (p.get("t") && !known) keepSeat({ matchId, gameId: "", title: "", seat: -1, token: "", spectatorToken: pass, inviteCode: "", createdMs: Date.now() });
        return await tablePage(app, matchId, { ...(known ?? { matchId, gameId: "", title: "", seat: -1, token: "", inviteCode: "", createdMs: 0 }), spectatorToken: pass }, false);
      }
      case "/replay":
        return await replayPage(app, matchId, seatFor(matchId));
      case "/audit":
        return await auditPage(app, matchId, seatFor(matchId));
      case "/join":
        return await joinPage(app, p.get("code") ?? "");
      case "/resume":
        return await resumePage(app, p.get("s") ?? "");
      default:
        return await homePage(app);
    }
  } catch (error) {
    app.append(h("div", { class: "refusal", role: "alert" }, h("p", {}, refusalText(error))));
  }
}

window.addEventListener("hashchange", () => void render());
void render();
