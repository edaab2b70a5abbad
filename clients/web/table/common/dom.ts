// Small DOM helpers shared by the whole page.

type Child = Node | string | null | undefined | false;

/** An element with attributes (on* handlers are set as properties) and children. */
export function h(tag: string, attrs: Record<string, string | ((e: Event) => void) | undefined> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined) continue;
    if (typeof v === "function") el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element with attributes and children. */
export function s(tag: string, attrs: Record<string, string | number> = {}, ...children: (Node | string)[]): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const child of children) el.append(child);
  return el;
}

/** A button: a real <button>, so keyboard and screen readers get it for free. */
export function button(label: string, onClick: () => void, attrs: Record<string, string> = {}): HTMLButtonElement {
  const b = h("button", { type: "button", ...attrs }, label) as HTMLButtonElement;
  b.addEventListener("click", onClick);
  return b;
}

export const words = (text: string) => text.replaceAll("_", " ");
