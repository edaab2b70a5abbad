// Refusals: every rejection (and every failed call) shown in words until the person dismisses it.
import { button, h } from "./dom.js";

export class Refusals {
  readonly root = h("div", { class: "refusals", "data-testid": "refusals", role: "alert" });

  show(message: string) {
    const item = h("div", { class: "refusal", "data-testid": "refusal" }, h("p", {}, message));
    item.append(button("Dismiss", () => item.remove(), { class: "secondary", "data-testid": "dismiss" }));
    this.root.append(item);
  }
}
