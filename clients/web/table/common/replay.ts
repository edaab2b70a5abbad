// Replay (any earlier position, with a slider) and the receipts checked in the page: both with
// the seat or spectator pass this browser holds for the match.
import { h } from "./dom.js";
import { Catalog, seatNames } from "./names.js";
import { type SeatRecord, pageClient } from "./session.js";
import { boardContext, catalogFor, drawBoard } from "./table.js";

function credential(record: SeatRecord | null): string {
  return record?.token || record?.spectatorToken || "";
}

export async function replayPage(app: HTMLElement, matchId: string, record: SeatRecord | null) {
  const base = pageClient();
  const client = base.as(credential(record));
  const latest = await client.getView(matchId);
  const { catalog, sections } = await catalogFor(base, latest.gameId);
  const slider = h("input", { type: "range", id: "replay-slider", min: "1", max: String(latest.version), value: String(latest.version), "data-testid": "replay-slider" }) as HTMLInputElement;
  const shown = h("output", { for: "replay-slider", "data-testid": "replay-version" }, String(latest.version));
  const boardBox = h("div", { class: "board-box", "data-testid": "board" });
  let asked = 0;
  const show = async () => {
    const version = Number(slider.value);
    const ticket = ++asked;
    const view = await client.replay(matchId, version);
    if (ticket !== asked) return; // a later position was asked for meanwhile
    shown.textContent = String(view.version);
    boardBox.setAttribute("data-version", String(view.version));
    drawBoard(boardBox, view, boardContext(view, catalog as Catalog, seatNames({ ...view, seatNames: latest.seatNames }), null, () => undefined), sections);
  };
  slider.addEventListener("input", () => void show());
  app.replaceChildren(
    h(
      "div",
      { class: "page" },
      h("h1", {}, `Replay: ${catalog.data.title}`),
      h("p", { class: "row" }, h("label", { for: "replay-slider" }, "Position "), slider, " ", shown, ` of ${latest.version}`, " · ", h("a", { href: `#/play?m=${matchId}` }, "back to the table")),
      boardBox,
    ),
  );
  await show();
}

export async function auditPage(app: HTMLElement, matchId: string, record: SeatRecord | null) {
  const client = pageClient().as(credential(record));
  const result = h("div", { "data-testid": "audit-result", "aria-live": "polite" }, "Checking…");
  app.replaceChildren(h("div", { class: "page narrow" }, h("h1", {}, "Check this match"), result, h("p", {}, h("a", { href: `#/play?m=${matchId}` }, "back to the table"))));
  const local = await client.verifyMatch(matchId);
  const ok = local.ok && local.badReceipts.length === 0;
  result.setAttribute("data-ok", String(ok));
  result.setAttribute("data-receipts", String(local.receiptsChecked));
  result.setAttribute("data-seed", String(local.seedOk));
  result.replaceChildren(
    h("p", {}, `${local.receiptsChecked} receipts checked in this page with the gateway's published Ed25519 keys: ${local.badReceipts.length ? `BAD at versions ${local.badReceipts.join(", ")}` : "every one verified"}.`),
    h("p", {}, local.seedRevealed ? `The seed is revealed; its sha256 matches the commitment made at the start (${local.seedCommitment.slice(0, 16)}…): ${local.seedOk ? "yes" : "NO"}.` : `The seed is revealed when the match ends (commitment ${local.seedCommitment.slice(0, 16)}…).`),
    h("p", { class: ok ? "good" : "error" }, ok ? "Everything checks out." : "Something does not check out."),
    h("p", { class: "muted small" }, "The gateway's own audit (re-executing every version) is the tenant's: `guildhall audit` with its key."),
  );
}
