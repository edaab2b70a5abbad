// A drawn board that can be zoomed and panned (issue 41 item 7): on a 360 px phone a whole map is
// a thumbnail nobody can read. The map sits in a scrolling viewport (drag or swipe pans it, as any
// scrolled box), with − / + / Fit buttons, the + and − keys (0 fits) while the viewport has the
// keyboard, the arrow keys to pan, and a two-finger pinch. On a narrow screen it opens zoomed in
// to a readable size. The zoom and the scroll position survive the board being drawn again (every
// update redraws it): they are kept by the board's key.
import { h } from "./kit.js";

const MIN = 1;
const MAX = 4;
const STEP = 1.25;
/** The width (CSS px) under which a board's text stops being readable: a narrower viewport opens
 * zoomed in to this width. */
const READABLE_PX = 760;

interface Kept {
  zoom: number;
  left: number;
  top: number;
}

const kept = new Map<string, Kept>();

const CSS = `
.bd-zoom { position: relative; }
.bd-zoom-bar { display: flex; gap: 4px; align-items: center; justify-content: flex-end; padding: 4px; border-bottom: 1px solid #e3dccb; background: #fbf7ec; border-radius: 8px 8px 0 0; }
.bd-zoom-bar button { min-width: 40px; min-height: 36px; padding: 2px 10px; font: 600 16px/1 system-ui, sans-serif; }
.bd-zoom-bar output { font-size: 12px; color: #5f5446; margin-right: auto; padding-left: 6px; }
.bd-zoom-view { overflow: auto; max-height: min(78vh, 900px); touch-action: pan-x pan-y; overscroll-behavior: contain; }
.bd-zoom-view > svg { display: block; height: auto; }
`;

function style(): void {
  if (document.getElementById("bd-zoom-css")) return;
  const node = document.createElement("style");
  node.id = "bd-zoom-css";
  node.textContent = CSS;
  document.head.append(node);
}

/** `svg` (a viewBox drawing) in a zoomable, pannable frame labelled `label`; `key` names the board
 * so its zoom and position are kept between redraws. */
export function zoomable(svg: SVGElement, label: string, key: string): HTMLElement {
  style();
  const state = kept.get(key) ?? { zoom: 0, left: 0, top: 0 };
  kept.set(key, state);
  const view = h("div", { class: "bd-zoom-view", tabindex: 0, role: "region", "aria-label": `${label}: + and − zoom, the arrow keys move`, "data-testid": "zoom-view" });
  const shown = h("output", { "aria-live": "polite", "data-testid": "zoom-level" });
  const apply = (zoom: number, about?: { x: number; y: number }) => {
    const before = state.zoom || 1;
    state.zoom = Math.min(MAX, Math.max(MIN, zoom));
    svg.style.width = `${state.zoom * 100}%`;
    shown.textContent = state.zoom === 1 ? "Whole board" : `Zoom ×${state.zoom.toFixed(1)}`;
    // Keep the point under the fingers (or the middle of the view) where it was.
    const at = about ?? { x: view.clientWidth / 2, y: view.clientHeight / 2 };
    const ratio = state.zoom / before;
    view.scrollLeft = (view.scrollLeft + at.x) * ratio - at.x;
    view.scrollTop = (view.scrollTop + at.y) * ratio - at.y;
  };
  const button = (text: string, name: string, act: () => void, testid: string) => {
    const b = h("button", { type: "button", class: "secondary", "aria-label": name, title: name, "data-testid": testid }, text);
    b.addEventListener("click", act);
    return b;
  };
  const bar = h(
    "div",
    { class: "bd-zoom-bar" },
    shown,
    button("−", "Zoom out", () => apply(state.zoom / STEP), "zoom-out"),
    button("+", "Zoom in", () => apply(state.zoom * STEP), "zoom-in"),
    button("Fit", "Fit the whole board in view", () => apply(1), "zoom-fit"),
  );
  view.append(svg);
  view.addEventListener("keydown", (event) => {
    if (event.target !== view) return; // a key on a choice inside the map is the choice's
    if (event.key === "+" || event.key === "=") apply(state.zoom * STEP);
    else if (event.key === "-" || event.key === "_") apply(state.zoom / STEP);
    else if (event.key === "0") apply(1);
    else return;
    event.preventDefault();
  });
  view.addEventListener("scroll", () => {
    state.left = view.scrollLeft;
    state.top = view.scrollTop;
  });
  pinch(view, (factor, about) => apply(state.zoom * factor, about));
  const frame = h("div", { class: "bd-zoom" }, bar, view);
  // Once in the page (the board appends it before returning): the zoom and position it had.
  queueMicrotask(() => {
    if (!state.zoom) state.zoom = Math.min(MAX, Math.max(MIN, READABLE_PX / Math.max(1, view.clientWidth || READABLE_PX)));
    svg.style.width = `${state.zoom * 100}%`;
    shown.textContent = state.zoom === 1 ? "Whole board" : `Zoom ×${state.zoom.toFixed(1)}`;
    view.scrollLeft = state.left;
    view.scrollTop = state.top;
  });
  return frame;
}

/** Two fingers on `view`: `zoom(factor, point)` as they spread or close; one finger pans as the
 * browser scrolls (touch-action keeps the page itself from zooming). */
function pinch(view: HTMLElement, zoom: (factor: number, about: { x: number; y: number }) => void): void {
  const touches = new Map<number, { x: number; y: number }>();
  let last = 0;
  const spread = () => {
    const [a, b] = [...touches.values()];
    return Math.hypot(a.x - b.x, a.y - b.y);
  };
  view.addEventListener("pointerdown", (e) => {
    if (e.pointerType !== "touch") return;
    touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (touches.size === 2) last = spread();
  });
  view.addEventListener("pointermove", (e) => {
    if (!touches.has(e.pointerId)) return;
    touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (touches.size !== 2 || !last) return;
    const now = spread();
    const box = view.getBoundingClientRect();
    const [a, b] = [...touches.values()];
    zoom(now / last, { x: (a.x + b.x) / 2 - box.left, y: (a.y + b.y) / 2 - box.top });
    last = now;
  });
  const lift = (e: PointerEvent) => {
    touches.delete(e.pointerId);
    if (touches.size < 2) last = 0;
  };
  view.addEventListener("pointerup", lift);
  view.addEventListener("pointercancel", lift);
}
