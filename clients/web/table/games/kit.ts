// Drawing helpers the SVG boards share (ys, ankh_morpork, rattus_cartus): HTML and SVG elements,
// clickable choices, seat colours and readable ink on them, player boxes. A board may use them or
// draw on its own (board.ts is the contract; dom.ts has the HTML-only boards' helpers).
import type { BoardContext, Choice } from "./board.js";
import { describedBy, explain, withText } from "./tips.js";

export const SVG_NS = "http://www.w3.org/2000/svg";

type Attrs = Record<string, string | number | boolean | null | undefined>;
type Child = Node | string | number | null | undefined | false;

function fill(node: Element, attrs: Attrs | undefined, children: Child[]): void {
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element. */
export function h(tag: string, attrs?: Attrs, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  fill(node, attrs, children);
  return node;
}

/** An SVG element. */
export function s(tag: string, attrs?: Attrs, ...children: Child[]): SVGElement {
  const node = document.createElementNS(SVG_NS, tag) as SVGElement;
  fill(node, attrs, children);
  return node;
}

/** A tooltip (on hover, keyboard focus and long press: tips.ts); in SVG also its `<desc>`. */
export function tip<T extends Element>(node: T, text: string): T {
  if (node instanceof SVGElement) node.prepend(s("desc", {}, text));
  return explain(node, text);
}

/**
 * Mark `node` as the place to pick `choice`: highlighted, and covered by a focusable button
 * labelled with the choice (an empty element over the whole of `node`, its last child). The
 * button holds no text of its own, so its name is exactly the choice's label while `node` keeps
 * showing (and a screen reader keeps reading) everything it draws; no interactive element ends
 * up inside another. A click anywhere on `node`, or Enter/Space on the button, picks it.
 */
export function offer<T extends Element>(node: T, choice: Choice | null, ctx: BoardContext): T {
  if (!choice) return node;
  node.classList.add("bd-offered");
  const svg = node instanceof SVGElement;
  const button = svg ? s("rect", { fill: "transparent" }) : h("span");
  button.setAttribute("class", "bd-choosable");
  button.setAttribute("role", "button");
  button.setAttribute("tabindex", "0");
  button.setAttribute("aria-label", ctx.label(choice));
  const described = describedBy(node);
  if (described) button.setAttribute("aria-describedby", described);
  node.removeAttribute("tabindex"); // the button is the one stop for the keyboard
  button.setAttribute("data-choice-kind", choice.kind);
  button.setAttribute("data-choice-id", choice.id);
  node.append(button);
  if (svg) {
    // Over the group's hit area (or, failing one, its drawing), once the caller has drawn it all.
    const cover = (): void => {
      node.append(button); // last: drawn over everything else of the group
      const hit = node.querySelector(":scope > .bd-hit");
      let box: { x: number; y: number; width: number; height: number; rx?: string | null } | null = null;
      if (hit) {
        const n = (key: string): number => Number(hit.getAttribute(key) ?? 0);
        box = { x: n("x"), y: n("y"), width: n("width"), height: n("height"), rx: hit.getAttribute("rx") };
      } else if (node.isConnected) {
        for (const child of Array.from(node.children)) {
          if (child === button || !(child instanceof SVGGraphicsElement)) continue;
          const b = child.getBBox();
          if (!box) box = { x: b.x, y: b.y, width: b.width, height: b.height };
          else {
            const right = Math.max(box.x + box.width, b.x + b.width);
            const bottom = Math.max(box.y + box.height, b.y + b.height);
            box.x = Math.min(box.x, b.x);
            box.y = Math.min(box.y, b.y);
            box.width = right - box.x;
            box.height = bottom - box.y;
          }
        }
      }
      if (!box) return;
      for (const [key, value] of Object.entries(box)) if (value !== null && value !== undefined) button.setAttribute(key, String(value));
    };
    cover();
    queueMicrotask(cover);
  }
  node.addEventListener("click", (event) => {
    event.stopPropagation();
    ctx.choose(choice);
  });
  node.addEventListener("keydown", (event) => {
    const key = (event as KeyboardEvent).key;
    if (key === "Enter" || key === " ") {
      event.preventDefault();
      event.stopPropagation();
      ctx.choose(choice);
    }
  });
  return node;
}

/** A seat's name as chosen at the table. */
export function seatName(ctx: BoardContext, seat: number): string {
  return ctx.seatNames[seat] ?? `Player ${seat + 1}`;
}

/** `text` cut to `chars` characters with an ellipsis, or as it is when it fits. */
export function clip(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, Math.max(1, chars - 1)).trimEnd()}…`;
}

/**
 * SVG text that must stay inside its box (issue 41 item 7: a long name spilled out of map boxes):
 * cut with an ellipsis to about `width` px at its font size, the whole text on hover and, being a
 * keyboard stop then, on focus.
 */
export function fitted(attrs: Attrs, text: string, width: number): SVGElement {
  const size = Number(attrs["font-size"] ?? 12);
  const chars = Math.floor(width / (size * (attrs["font-weight"] ? 0.62 : 0.56)));
  const shown = clip(text, chars);
  const node = s("text", attrs, shown);
  if (shown === text) return node;
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", text);
  return explain(node, text);
}

const inks = new Map<string, string>();

/** Black or white, whichever reads better on `colour` (any CSS colour). */
export function ink(colour: string): string {
  let found = inks.get(colour);
  if (found) return found;
  const probe = document.createElement("span");
  probe.style.color = colour;
  document.body.append(probe);
  const rgb = (getComputedStyle(probe).color.match(/[\d.]+/g) ?? ["0", "0", "0"]).map(Number);
  probe.remove();
  const [r, g, b] = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // WCAG contrast ratios of white and of #111 (luminance 0.0056) on it: the larger wins.
  found = 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.0556 ? "#fff" : "#111";
  inks.set(colour, found);
  return found;
}

/** A CSS block added to the page once. */
export function style(id: string, css: string): void {
  if (document.getElementById(id)) return;
  const node = document.createElement("style");
  node.id = id;
  node.textContent = css;
  document.head.append(node);
}

/** The classes every board of this kit shares (highlight of what can be picked, player areas). */
export const KIT_CSS = `
.bd-root { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; font: 13px/1.35 system-ui, sans-serif; color: #222; }
.bd-map { flex: 1 1 720px; min-width: min(100%, 480px); max-width: 1100px; background: #fffdf7; border: 1px solid #e3dccb; border-radius: 8px; }
.bd-map svg { display: block; width: 100%; height: auto; }
.bd-side { flex: 0 1 340px; min-width: min(100%, 280px); display: flex; flex-direction: column; gap: 8px; }
.bd-player { background: #fff; border: 1px solid #e3dccb; border-left: 6px solid var(--seat); border-radius: 6px; padding: 6px 10px; }
.bd-player.bd-me { border: 3px solid var(--seat); border-left-width: 10px; background: #fffaf0; box-shadow: 0 1px 6px rgba(0,0,0,.15); }
.bd-player h4 { margin: 0 0 4px; font-size: 14px; display: flex; align-items: center; gap: 6px; }
.bd-player .bd-you { font-size: 11px; background: var(--seat); color: var(--ink); border-radius: 8px; padding: 0 6px; }
.bd-player .bd-turn { font-size: 11px; border: 1px solid #8a6d3b; border-radius: 8px; padding: 0 6px; color: #8a6d3b; }
.bd-swatch { display: inline-block; width: 12px; height: 12px; border-radius: 50%; background: var(--seat); border: 1px solid rgba(0,0,0,.4); }
.bd-row { margin: 2px 0; }
.bd-row > .bd-key { color: #6b5b3e; margin-right: 4px; }
.bd-hand { margin-top: 6px; padding: 6px; border-radius: 6px; background: #f4efe2; border: 1px dashed #b9a77a; }
.bd-hand > .bd-key { display: block; font-weight: 600; color: #3b2f1e; margin-bottom: 3px; }
.bd-card { display: inline-block; padding: 2px 8px; margin: 2px; border-radius: 5px; background: #fff; border: 1px solid #b9a77a; font-size: 12px; }
.bd-card.bd-new { border-style: dashed; }
.bd-card-explained { display: inline-flex; flex-direction: column; vertical-align: top; max-width: min(100%, 240px); padding: 4px 8px; }
.bd-card-explained .bd-card-name { font-weight: 600; }
.bd-card-text { font-size: 12px; line-height: 1.3; color: #4a4033; display: -webkit-box; -webkit-line-clamp: 3; -webkit-box-orient: vertical; overflow: hidden; }
.bd-token { display: inline-flex; align-items: center; justify-content: center; min-width: 20px; height: 20px; padding: 0 3px; margin: 1px; border-radius: 10px; background: var(--seat, #ccc); color: var(--ink, #111); border: 1px solid rgba(0,0,0,.45); font-weight: 700; font-size: 12px; box-sizing: border-box; }
.bd-muted { color: #675f52; }
.bd-offered { cursor: pointer; outline: 3px solid #e08a00; outline-offset: 1px; background-color: #fff1c9; position: relative; }
.bd-offered:hover, .bd-offered:focus-within { outline: 3px solid #b35c00; background-color: #ffe08a; }
.bd-offered > .bd-choosable { position: absolute; inset: 0; border-radius: inherit; }
.bd-offered > .bd-choosable:focus-visible { outline: 3px solid #0b57d0; outline-offset: 3px; }
svg .bd-offered, svg .bd-offered:hover, svg .bd-offered:focus-within { outline: none; }
svg .bd-offered > .bd-hit { stroke: #e08a00; stroke-width: 5; }
svg .bd-offered:hover > .bd-hit, svg .bd-offered:focus-within > .bd-hit { stroke: #b35c00; stroke-width: 8; }
svg .bd-offered > .bd-choosable { outline: none; stroke: none; }
svg .bd-offered > .bd-choosable:focus-visible { stroke: #0b57d0; stroke-width: 4; }
svg text { font-family: system-ui, sans-serif; }
`;

/** The player area's frame: name, colour, "you", whose turn. */
export function playerBox(ctx: BoardContext, seat: number, active: boolean): HTMLElement {
  const colour = ctx.seatColour(seat);
  const me = ctx.seat === seat;
  const box = h("section", {
    class: me ? "bd-player bd-me" : "bd-player",
    "data-seat": seat,
    style: `--seat: ${colour}; --ink: ${ink(colour)}`,
  });
  box.append(
    h(
      "h4",
      {},
      h("span", { class: "bd-swatch" }),
      seatName(ctx, seat),
      me ? h("span", { class: "bd-you" }, "you") : null,
      active ? h("span", { class: "bd-turn" }, "to play") : null,
    ),
  );
  offer(box, ctx.choosable("seat", seat), ctx);
  return box;
}

/** `key: value` line of a player area. */
export function row(key: string, ...value: Child[]): HTMLElement {
  return h("div", { class: "bd-row" }, h("span", { class: "bd-key" }, `${key}:`), ...value);
}

/**
 * A card by name with what it does (`text`, from the game data) on it, the whole text in its
 * tooltip; clickable when `choice`. A card nobody may pick now is still a keyboard stop, so its
 * tooltip can be read without a mouse.
 */
export function card(label: string, choice: Choice | null, ctx: BoardContext, extra = "", text: string | null = null): HTMLElement {
  const node = h("span", { class: `bd-card ${text ? "bd-card-explained" : ""} ${extra}`.replace(/\s+/g, " ").trim() }, h("span", { class: "bd-card-name" }, label));
  return offer(withText(node, text, label, "bd-card-text"), choice, ctx);
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
