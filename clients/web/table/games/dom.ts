// DOM helpers the HTML boards share (bruges, waterdeep): elements, clickable choices, pawns in
// seat colours with readable ink. Each board's CSS classes carry its own prefix ("gb", "gw"):
// `boardDom(prefix)` gives the helpers that write classes.
import type { BoardContext, Choice } from "./board.js";
import { describedBy } from "./tips.js";

type Child = Node | string | number | null | undefined | false;

/** An element with attributes (class, title, data-*, style...) and children (null/false skipped). */
export function el(tag: string, attrs: Record<string, string | undefined> = {}, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) node.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(typeof c === "number" ? String(c) : c);
  return node;
}

/**
 * Mark `node` as the current step's `choice` when there is one: highlighted, and covered by a
 * focusable button (role, tabindex, aria-label with the choice's label), an empty element over
 * the whole of `node` (its last child). The button holds no text of its own, so its name is
 * exactly the choice's label while `node` keeps showing (and a screen reader keeps reading)
 * everything in it; no interactive element ends up inside another. A click anywhere on `node`,
 * or Enter/Space on the button, calls ctx.choose.
 */
function offer(prefix: string, node: HTMLElement, choice: Choice | null, ctx: BoardContext): HTMLElement {
  if (!choice) return node;
  const label = ctx.label(choice);
  const button = el("span", { class: `${prefix}-button`, role: "button", tabindex: "0", "aria-label": label });
  const described = describedBy(node);
  if (described) button.setAttribute("aria-describedby", described);
  node.removeAttribute("tabindex"); // the button is the one stop for the keyboard
  button.dataset.choiceKind = choice.kind;
  button.dataset.choiceId = choice.id;
  node.append(button);
  node.classList.add(`${prefix}-choosable`);
  const base = node.getAttribute("title");
  node.title = base && base !== label ? `${base}\n→ ${label}` : label;
  node.addEventListener("click", (event) => {
    event.stopPropagation();
    ctx.choose(choice);
  });
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      event.stopPropagation();
      ctx.choose(choice);
    }
  });
  return node;
}

/** Inject a stylesheet once per document (the boards ship their CSS inside their bundle). */
export function ensureStyle(id: string, css: string): void {
  if (document.getElementById(id)) return;
  const style = document.createElement("style");
  style.id = id;
  style.textContent = css;
  document.head.append(style);
}

/** A seat's display name (never its raw index). */
export function seatName(ctx: BoardContext, seat: number): string {
  return ctx.seatNames[seat] ?? `Player ${seat + 1}`;
}

/** Black or white text, whichever reads on a background colour (#rgb, #rrggbb or rgb()/hsl()). */
const inks = new Map<string, string>();
export function inkOn(background: string): string {
  const known = inks.get(background);
  if (known) return known;
  const probe = document.createElement("span");
  probe.style.color = background;
  document.body.append(probe);
  const rgb = getComputedStyle(probe).color.match(/\d+(\.\d+)?/g)?.map(Number) ?? [0, 0, 0];
  probe.remove();
  const [r, g, b] = rgb.slice(0, 3).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // WCAG contrast ratios of white and of #111 (luminance 0.0056) on it: the larger wins.
  const ink = 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.0556 ? "#ffffff" : "#111111";
  inks.set(background, ink);
  return ink;
}

/** A round token in a seat's colour with the seat's initial: a marker, a pawn, an agent. */
function pawn(prefix: string, ctx: BoardContext, seat: number, extra = ""): HTMLElement {
  const colour = ctx.seatColour(seat);
  const name = seatName(ctx, seat);
  return el(
    "span",
    { class: `${prefix}-pawn ${extra}`.trim(), style: `background:${colour};color:${inkOn(colour)}`, title: name, "data-seat": String(seat) },
    initial(name),
  );
}

function initial(name: string): string {
  const m = name.match(/\d+$/);
  if (m) return `P${m[0]}`;
  const letters = name.trim().replace(/[^\p{L}\p{N}]/gu, "");
  return letters ? letters[0].toUpperCase() + (letters[1] ?? "").toLowerCase() : "?";
}

/** The helpers that write a board's classes, with its prefix ("gb" -> gb-button, gb-pawn...). */
export function boardDom(prefix: string) {
  return {
    offer: (node: HTMLElement, choice: Choice | null, ctx: BoardContext) => offer(prefix, node, choice, ctx),
    pawn: (ctx: BoardContext, seat: number, extra = "") => pawn(prefix, ctx, seat, extra),
  };
}
