// The decision panel: the view's decision, walked step by step (docs/clients.md, "Decisions and
// descriptions"): the prompt, the choices made so far (with Back), the current step's distinct
// choices as buttons; when one option is left, its legal action is submitted. The same choices
// are offered to the board (choosable / choose).
import type { Decision, DecisionChoice, DecisionOption } from "../../src/index.js";
import type { Choice } from "../games/board.js";
import { withText } from "../games/tips.js";
import { button, h } from "./dom.js";
import type { TableNames } from "./names.js";

/** What a choice stands for, explained: its text, and whether it is a place (told in a tooltip
 * only: a list of places, each with its text, would bury the choices) or a card, tile, person...
 * (its text shown under the choice). */
export interface Explained {
  text: string;
  place: boolean;
}

const same = (a: DecisionChoice, b: DecisionChoice) => a.step === b.step && a.label === b.label && a.kind === b.kind && a.id === b.id;

export class DecisionWalk {
  chosen: DecisionChoice[] = [];
  /** How many of `chosen` were taken without asking (a step with one choice). */
  private auto = new Set<number>();

  constructor(readonly decision: Decision) {
    this.advance();
  }

  /** The options whose first choices are the ones made so far. */
  inPlay(): DecisionOption[] {
    return this.decision.options.filter((o) => o.choices.length >= this.chosen.length && this.chosen.every((c, i) => same(c, o.choices[i])));
  }

  /** The current step's distinct choices. */
  next(): DecisionChoice[] {
    const out: DecisionChoice[] = [];
    for (const o of this.inPlay()) {
      const c = o.choices[this.chosen.length];
      if (c && !out.some((x) => same(x, c))) out.push(c);
    }
    return out;
  }

  /** Take a choice: the option decided when only one is left, else null. */
  take(choice: DecisionChoice): DecisionOption | null {
    this.chosen.push(choice);
    const left = this.inPlay();
    if (left.length === 1) return left[0];
    const exact = left.find((o) => o.choices.length === this.chosen.length);
    if (exact) return exact;
    this.advance();
    return null;
  }

  /** Steps with a single choice among several options are taken without asking. */
  private advance() {
    for (;;) {
      const choices = this.next();
      if (choices.length !== 1 || this.inPlay().length < 2) return;
      this.auto.add(this.chosen.length);
      this.chosen.push(choices[0]);
    }
  }

  back() {
    do {
      this.auto.delete(this.chosen.length - 1);
      this.chosen.pop();
    } while (this.chosen.length && this.auto.has(this.chosen.length - 1));
  }

  canGoBack(): boolean {
    return this.chosen.some((_, i) => !this.auto.has(i));
  }

  /** The current step's choice standing for (kind, id), for the board. */
  choosable(kind: string, id: string | number, placeKind: string | null): Choice | null {
    const text = String(id);
    for (const c of this.next()) {
      if (c.id !== text || !c.kind) continue;
      if (c.kind === kind || (placeKind && (c.kind === "place" || c.kind === placeKind) && (kind === "place" || kind === placeKind))) return c;
    }
    return null;
  }
}

/** The panel for a seat owing a decision: every prompt, step and label with the names chosen at
 * the table (`names`). */
export function decisionPanel(
  walk: DecisionWalk,
  names: TableNames,
  busy: boolean,
  choose: (c: DecisionChoice) => void,
  back: () => void,
  explainChoice: (c: DecisionChoice) => Explained | null = () => null,
): HTMLElement {
  const panel = h("section", { class: "decision", "data-testid": "decision", "aria-labelledby": "decision-prompt" });
  panel.append(h("h2", { id: "decision-prompt", class: "prompt" }, names.prompt(walk.decision) || "Your decision"));
  if (walk.decision.simultaneous) panel.append(h("p", { class: "note" }, "Everyone asked decides at the same time; nobody sees your answer before deciding."));
  if (walk.chosen.length) {
    const trail = h("ol", { class: "trail", "aria-label": "Chosen so far" });
    for (const c of walk.chosen) trail.append(h("li", {}, h("span", { class: "step" }, names.step(c)), " ", h("strong", {}, names.label(c))));
    panel.append(trail);
  }
  const choices = walk.next();
  const steps = [...new Set(choices.map((c) => c.step))];
  for (const step of steps) {
    const inStep = choices.filter((x) => x.step === step);
    const said = names.step(inStep[0]);
    const group = h("div", { class: "choices", role: "group", "aria-label": said || "Choices" });
    if (said) panel.append(h("h3", { class: "step" }, said));
    for (const c of inStep) {
      const label = names.label(c);
      const b = button(label, () => choose(c), { "data-testid": "choice", "data-kind": c.kind, "data-id": c.id });
      if (busy) b.disabled = true;
      const about = explainChoice(c);
      if (!about) {
        group.append(b);
        continue;
      }
      // The option with what it stands for: the text under it (a place's only in its tooltip),
      // the button described by it for screen readers.
      const item = h("div", { class: about.place ? "choice-item place" : "choice-item" }, b);
      withText(item, about.text, label, "choice-text", false);
      const text = item.querySelector("[data-card-text]");
      if (text) {
        b.setAttribute("aria-describedby", text.id);
        if (about.place) text.setAttribute("hidden", "");
      }
      group.append(item);
    }
    panel.append(group);
  }
  if (walk.canGoBack()) {
    const b = button("Back", back, { class: "secondary", "data-testid": "back" });
    if (busy) b.disabled = true;
    panel.append(h("p", {}, b));
  }
  return panel;
}
