// What a card, tile or place does, where a player decides: its text on the card itself, and the
// whole text in a tooltip on hover, on keyboard focus and on a long press (touch). One tooltip for
// the page, driven by `data-tip` on any element (HTML or SVG); boards and the decision panel mark
// elements with `explain`. The tooltip follows WCAG 1.4.13: Escape dismisses it, the pointer may
// move onto it, and it stays until the pointer or focus leaves. Screen readers get the text from
// the card itself (`aria-describedby` on a card's button points at its text), not from the tooltip.

const TIP_ID = "gh-tip";
const LONG_PRESS_MS = 450;
const MOVE_CANCELS_PX = 10;
let textIds = 0;

const CSS = `
.gh-tip { position: fixed; z-index: 1000; max-width: min(340px, calc(100vw - 16px)); padding: 8px 10px; border-radius: 6px;
  background: #2b2218; color: #fff8ea; font: 14px/1.4 system-ui, sans-serif; box-shadow: 0 4px 14px rgba(0,0,0,.3); pointer-events: auto; }
.gh-tip[hidden] { display: none; }
.gh-tip b { display: block; margin-bottom: 2px; }
[data-tip] { -webkit-touch-callout: none; }
`;

let box: HTMLElement | null = null;
let shownFor: Element | null = null;
let press: { timer: number; x: number; y: number } | null = null;
let swallowClick = false;

/** Mark `node` as explained by `text` (nothing when there is no text); `title` heads the tooltip. */
export function explain<T extends Element>(node: T, text: string | null | undefined, title = ""): T {
  if (!text) return node;
  install();
  node.setAttribute("data-tip", text);
  if (title) node.setAttribute("data-tip-title", title);
  return node;
}

/**
 * Put `text` on the card `node` (a child of class `className`, clamped by the board's CSS), the
 * whole of it in the tooltip headed `title`. The card becomes a keyboard stop (unless `focusable`
 * is false: a button inside it is one) so the tooltip can be read without a mouse; when the card
 * is offered as a choice, its button takes that role and is described by the text (kit.ts and
 * dom.ts `offer`).
 */
export function withText<T extends HTMLElement>(node: T, text: string | null | undefined, title: string, className: string, focusable = true): T {
  if (!text) return node;
  const shown = document.createElement("span");
  shown.className = className;
  textIds += 1;
  shown.id = `gh-text-${textIds}`;
  shown.setAttribute("data-card-text", "");
  shown.textContent = text;
  node.append(shown);
  if (focusable) node.setAttribute("tabindex", "0");
  return explain(node, text, title);
}

/** The id of the text a card shows (its `[data-card-text]` child), for the card's button. */
export function describedBy(node: Element): string | null {
  return node.querySelector(":scope > [data-card-text]")?.id || null;
}

function install(): void {
  if (box) return;
  const style = document.createElement("style");
  style.id = "gh-tip-css";
  style.textContent = CSS;
  document.head.append(style);
  box = document.createElement("div");
  box.id = TIP_ID;
  box.className = "gh-tip";
  box.setAttribute("role", "tooltip");
  box.hidden = true;
  document.body.append(box);
  box.addEventListener("pointerleave", (event) => {
    if (!shownFor?.contains(event.relatedTarget as Node | null)) hide();
  });
  document.addEventListener("pointerover", (event) => {
    if (event.pointerType === "touch") return; // a tap is a choice; a long press explains
    const target = tipped(event.target);
    if (target) show(target);
  });
  document.addEventListener("pointerout", (event) => {
    if (event.pointerType === "touch" || !shownFor) return;
    const to = event.relatedTarget as Node | null;
    if (to && (shownFor.contains(to) || box?.contains(to))) return;
    if (tipped(event.target) === shownFor) hide();
  });
  document.addEventListener("focusin", (event) => {
    // Only a keyboard's focus asks for the text (a page moving focus after a click does not).
    if (!(event.target instanceof Element && event.target.matches(":focus-visible"))) return;
    const target = tipped(event.target);
    if (target) show(target);
    else hide();
  });
  document.addEventListener("focusout", (event) => {
    if (shownFor && !shownFor.contains(event.relatedTarget as Node | null)) hide();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && shownFor) hide();
  });
  document.addEventListener("pointerdown", (event) => {
    cancelPress();
    const target = tipped(event.target);
    if (!target) {
      if (!box?.contains(event.target as Node)) hide();
      return;
    }
    if (event.pointerType !== "touch") return;
    const timer = window.setTimeout(() => {
      press = null;
      swallowClick = true; // the finger lifts after a long press: that is no choice
      show(target);
    }, LONG_PRESS_MS);
    press = { timer, x: event.clientX, y: event.clientY };
  });
  document.addEventListener("pointermove", (event) => {
    if (press && Math.hypot(event.clientX - press.x, event.clientY - press.y) > MOVE_CANCELS_PX) cancelPress();
  });
  document.addEventListener("pointerup", cancelPress);
  document.addEventListener("pointercancel", cancelPress);
  document.addEventListener(
    "click",
    (event) => {
      if (!swallowClick) return;
      swallowClick = false;
      event.preventDefault();
      event.stopPropagation();
    },
    true,
  );
  document.addEventListener("contextmenu", (event) => {
    if (tipped(event.target)) event.preventDefault(); // a long press shows the text, not a menu
  });
  // Scrolling (focus moving down the page scrolls it too) carries the tooltip along with its card.
  window.addEventListener("scroll", () => shownFor && place(shownFor), { passive: true, capture: true });
  // A board drawn again takes the explained element away: its tooltip goes with it.
  new MutationObserver(() => {
    if (shownFor && !shownFor.isConnected) hide();
  }).observe(document.body, { childList: true, subtree: true });
}

function cancelPress(): void {
  if (press) window.clearTimeout(press.timer);
  press = null;
}

function tipped(target: EventTarget | null): Element | null {
  return target instanceof Element ? target.closest("[data-tip]") : null;
}

function show(target: Element): void {
  if (!box) return;
  shownFor = target;
  const title = target.getAttribute("data-tip-title");
  box.replaceChildren();
  if (title) {
    const head = document.createElement("b");
    head.textContent = title;
    box.append(head);
  }
  box.append(target.getAttribute("data-tip") ?? "");
  box.hidden = false;
  place(target);
}

/** The tooltip under its element (above it when there is no room below), inside the screen. */
function place(target: Element): void {
  if (!box) return;
  const at = target.getBoundingClientRect();
  const room = { width: document.documentElement.clientWidth, height: document.documentElement.clientHeight };
  const size = box.getBoundingClientRect();
  const left = Math.min(Math.max(8, at.left), Math.max(8, room.width - size.width - 8));
  const below = at.bottom + 6;
  const top = below + size.height <= room.height - 8 ? below : Math.max(8, at.top - size.height - 6);
  box.style.left = `${left}px`;
  box.style.top = `${top}px`;
}

function hide(): void {
  if (!box) return;
  box.hidden = true;
  shownFor = null;
}
