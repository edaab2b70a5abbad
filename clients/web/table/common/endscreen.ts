// The end screen: who won, every seat's score and where the points came from, and why it ended.
import type { Json, MatchView, ScoreSheet } from "../../src/index.js";
import { h, words } from "./dom.js";
import { seatColour } from "./names.js";

const REASONS: Record<string, string> = {
  resigned: "A player resigned, leaving the others to finish.",
  forfeit: "A player forfeited.",
  forfeited: "A player forfeited.",
  finished: "The game reached its end under its rules.",
  completed: "The game reached its end under its rules.",
};

/** The end screen: `reason` is how the match ended for the gateway (resigned...), `sheet` the
 * game data's words for the outcome's keys; the outcome's own reason says how the game ended. */
export function endScreen(view: MatchView, names: string[], reason: string | null, sheet: ScoreSheet): HTMLElement {
  const outcome: Json = view.outcome ?? {};
  const winners: number[] = outcome.winners ?? [];
  // Issue 39: a seat that resigned (or was away at the end) finishes after every seat that stayed.
  const left = (seat: number) => view.resignedSeats.includes(seat) || view.awaySeats.includes(seat);
  const results: Json[] = [...(outcome.results ?? [])].sort((a, b) => Number(left(a.player)) - Number(left(b.player)) || b.score - a.score);
  const name = (seat: number) => names[seat] ?? `Player ${seat + 1}`;
  const ended = reason && reason !== "finished" && reason !== "completed" ? REASONS[reason] ?? `${words(reason)}.` : "";
  const why = ended || outcome.reason || "The game reached its end under its rules.";
  const label = (labels: Record<string, string> | undefined, key: string) => labels?.[key] ?? words(key);
  const box = h("section", { class: "end", "data-testid": "end-screen", "aria-labelledby": "end-title" });
  box.append(
    h("h2", { id: "end-title" }, "Game over"),
    h("p", { class: "winners", "data-testid": "winners" }, winners.length ? `${winners.map(name).join(" and ")} ${winners.length > 1 ? "win" : "wins"}!` : "Nobody wins."),
    h("p", { class: "why", "data-testid": "end-reason" }, why),
  );
  const keys = [...new Set(results.flatMap((r) => Object.keys(r.breakdown ?? {})))];
  const table = h("table", { class: "scores", "data-testid": "scores" });
  table.append(h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Score"), h("th", { scope: "col" }, "Where the points came from"))));
  const body = h("tbody");
  for (const r of results) {
    const parts = keys.filter((k) => r.breakdown?.[k]).map((k) => `${label(sheet.breakdown, k)} ${r.breakdown[k]}`);
    const facts = Object.entries(r.facts ?? {}).map(([k, v]) => `${label(sheet.facts, k)}: ${v}`);
    const note = r.note ? `${r.note}${/[.!?]$/.test(r.note) ? "" : "."}` : r.eliminated ? "Eliminated." : "";
    const detail = [`${parts.join(", ") || "—"}.`, facts.length ? `(${facts.join("; ")})` : "", note].filter(Boolean).join(" ");
    body.append(
      h(
        "tr",
        { "data-seat": String(r.player), "data-score": String(r.score), "data-left": left(r.player) ? "1" : "0" },
        h(
          "th",
          { scope: "row" },
          h("span", { class: "swatch", style: `background:${seatColour(r.player)}` }),
          " ",
          name(r.player),
          winners.includes(r.player) ? h("span", { class: "badge" }, "winner") : "",
          view.resignedSeats.includes(r.player) ? h("span", { class: "badge left" }, "resigned") : "",
        ),
        h("td", { class: "num" }, String(r.score)),
        h("td", {}, detail),
      ),
    );
  }
  table.append(body);
  box.append(h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Scores" }, table));
  return box;
}
