// The log: what happened, from each event's description rendered with the seats' names; engine
// bookkeeping hidden unless "show all" is ticked; newest first, so the latest is always in sight.
// A move taken back (action_undone) stays in the log, struck through and marked "taken back".
import type { MatchEvent } from "../../src/index.js";
import { h, words } from "./dom.js";
import { TableNames } from "./names.js";

export class Log {
  readonly root: HTMLElement;
  private readonly list: HTMLElement;
  private readonly all: HTMLInputElement;
  private readonly events: MatchEvent[] = [];
  private names = new TableNames([], null);

  constructor() {
    this.list = h("ol", { class: "log", "data-testid": "log", reversed: "", "aria-live": "polite", tabindex: "0", "aria-label": "The log, newest first" });
    this.all = h("input", { type: "checkbox", id: "log-all", "data-testid": "log-all" }) as HTMLInputElement;
    this.all.addEventListener("change", () => this.draw());
    this.root = h(
      "section",
      { class: "panel log-panel", "aria-labelledby": "log-title" },
      h("div", { class: "panel-head" }, h("h2", { id: "log-title" }, "What happened"), h("label", { class: "small" }, this.all, " show all")),
      this.list,
    );
  }

  private drawn = true;

  /** New events, shown at the next `show`. */
  add(events: MatchEvent[]) {
    const known = new Set(this.events.map((e) => e.version));
    for (const e of events) if (!known.has(e.version)) this.events.push(e);
    this.drawn = false;
  }

  /** The log with these names, drawn again only when something changed. */
  show(names: TableNames) {
    if (this.drawn && names.names.join("\u0000") === this.names.names.join("\u0000")) return;
    this.names = names;
    this.draw();
  }

  /** The match_ended event's reason, if any ("resigned", "finished", ...). */
  endReason(): string | null {
    const ended = this.events.find((e) => e.type === "match_ended");
    return ended ? String(ended.data?.reason ?? "") : null;
  }

  private line(e: MatchEvent): string {
    if (e.description) return this.names.description(e.description);
    const who = e.actor >= 0 ? `${this.names.seat(e.actor) ?? `Player ${e.actor + 1}`}: ` : "";
    return `${who}${words(e.type)}`;
  }

  /** The versions some action_undone took back. */
  private takenBack(): Set<number> {
    const out = new Set<number>();
    for (const e of this.events) {
      if (e.type !== "action_undone") continue;
      const first = Number(e.data?.first_version ?? 0);
      const last = Number(e.data?.last_version ?? -1);
      for (let v = first; v <= last; v++) out.add(v);
    }
    return out;
  }

  private draw() {
    this.drawn = true;
    const items: HTMLElement[] = [];
    const gone = this.takenBack();
    for (const e of [...this.events].sort((a, b) => b.version - a.version)) {
      const internal = e.description?.internal ?? false;
      if (internal && !this.all.checked) continue;
      const undone = gone.has(e.version);
      const kind = [internal ? "internal" : "", undone ? "taken-back" : ""].filter(Boolean).join(" ");
      items.push(h("li", { "data-version": String(e.version), class: kind }, undone ? h("s", {}, this.line(e)) : this.line(e), undone ? " (taken back)" : ""));
    }
    this.list.replaceChildren(...items);
  }
}
