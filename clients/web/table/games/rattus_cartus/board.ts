// Rattus Cartus, a card game with no map: the table as the game data lays it out. The building
// row (this round's two or three building cards, each with its supply action, its actions and its
// entry spaces with who entered), the building and reserve decks, the general supply, the
// population deck, the Nun-row (the cards the viewer knows, face down otherwise, and who looked at
// each), the discard pile and the influence board (six tracks, every player's marker); beside it
// each player's rats, victory-point tokens, cards in hand and in front, the viewer's hand first.
import type { BoardContext, GameBoard, Place } from "../board.js";
import { KIT_CSS, card, clip, fitted, h, ink, offer, playerBox, plural, row, s, seatName, style, tip } from "../kit.js";
import { zoomable } from "../zoom.js";

type Json = any;

const W = 1000;
const H = 746;
const CLASS_FILL: Record<string, string> = {
  peasantry: "#c8e6c9",
  bourgeoisie: "#fff3b0",
  church: "#d7ecff",
  chivalry: "#ffd6cc",
  magic: "#e8d8ff",
  royalty: "#f3e0b8",
};

const CSS = `
.bd-rc .bd-rats { font-weight: 700; }
.bd-rc .bd-card[data-class] { border-left-width: 6px; }
`;

interface Ctx {
  ctx: BoardContext;
  view: Json;
  places: Map<string, Place>;
}

function placeName(c: Ctx, id: string): string {
  return c.places.get(id)?.name ?? c.ctx.name("place", id) ?? id;
}

function cardName(c: Ctx, id: string): string {
  return c.ctx.name("card", id) ?? id;
}

function cardClass(id: string): string {
  return id.includes(":") ? id.split(":")[0] : "";
}

function component(c: Ctx, kind: string, id: string): Json {
  return c.ctx.data.components.find((cp) => cp.kind === kind && cp.id === id);
}

function lines(text: string, width: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && (line + " " + word).length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

function para(x: number, y: number, text: string, width: number, attrs: Record<string, string | number> = {}): [SVGElement, number] {
  const node = s("text", { x, y, "font-size": 11, ...attrs });
  const all = lines(text, width);
  all.forEach((line, i) => node.append(s("tspan", { x, dy: i ? 13 : 0 }, line)));
  return [node, all.length * 13];
}

/** A face-down stack of cards with its name and count. */
function deck(c: Ctx, id: string, x: number, y: number, count: string): SVGElement {
  const g = s("g", { class: "bd-deck", "data-place": id });
  for (let i = 2; i >= 0; i--) g.append(s("rect", { x: x + i * 3, y: y + i * 3, width: 110, height: 62, rx: 6, fill: "#8d6e63", stroke: "#3e2723" }));
  g.append(s("text", { x: x + 58, y: y + 28, "text-anchor": "middle", "font-size": 12, "font-weight": 700, fill: "#fff" }, placeName(c, id)));
  g.append(s("text", { x: x + 58, y: y + 46, "text-anchor": "middle", "font-size": 12, fill: "#fff" }, count));
  tip(g, `${placeName(c, id)}: ${c.places.get(id)?.text ?? ""}`);
  return g;
}

function building(c: Ctx, slot: number, x: number, y: number, w: number): SVGElement {
  const ctx = c.ctx;
  const v = c.view;
  const id = String(slot);
  const b: Json = v.row?.[slot];
  const g = s("g", { class: "bd-building", "data-place": id, opacity: b ? 1 : 0.45 });
  const hgt = 258;
  const klass = b ? component(c, "building", b.building)?.values?.class ?? "" : "";
  g.append(s("rect", { class: "bd-hit", x, y, width: w, height: hgt, rx: 10, fill: b ? CLASS_FILL[klass] ?? "#fff" : "#eee", stroke: "#5d4037", "stroke-width": 2 }));
  g.append(s("text", { x: x + 10, y: y + 16, "font-size": 11, fill: "#5d4037" }, placeName(c, id)));
  tip(g, b ? `${ctx.name("building", b.building) ?? b.building}: ${ctx.text("building", b.building) ?? ""}` : `${placeName(c, id)}: ${c.places.get(id)?.text ?? ""}`);
  if (!b) {
    g.append(s("text", { x: x + w / 2, y: y + 80, "text-anchor": "middle", "font-size": 13 }, "not in play this game"));
    return offer(g, ctx.choosable("place", id), ctx);
  }
  g.append(s("text", { x: x + 10, y: y + 36, "font-size": 16, "font-weight": 700 }, ctx.name("building", b.building) ?? b.building));
  g.append(s("text", { x: x + 10, y: y + 52, "font-size": 11, "font-style": "italic", fill: "#5d4037" }, `${ctx.name("class", klass) ?? klass} building`));
  const supply: string[] = [];
  if (b.draw) supply.push(`draw ${plural(b.draw, "card")}`);
  if (b.discard_rats) supply.push(`discard ${plural(b.discard_rats, "rat")}`);
  if (b.look) supply.push(`look at ${plural(b.look, "Nun-row card")}`);
  let cy = y + 70;
  const chars = Math.floor((w - 20) / 6.6); // about 6.6 px a character at 11 px
  const [sup, sh] = para(x + 10, cy, `Supply: ${supply.join(" and ") || "nothing"}`, chars - 3, { "font-weight": 600 });
  g.append(sup);
  cy += sh + 2;
  const action = component(c, "building_action", b.building)?.values ?? {};
  const [pre, ph] = para(x + 10, cy, `Premium: ${action.premium ?? "?"}`, chars);
  g.append(pre);
  cy += ph + 2;
  const [std, sth] = para(x + 10, cy, `Standard: ${action.standard ?? "?"}`, chars);
  g.append(std);
  cy += sth + 6;
  // the entry spaces, in order, with who entered
  const entries: number[] = v.entries?.[slot] ?? [];
  const spaces = Math.max(v.players ?? 0, entries.length);
  g.append(s("text", { x: x + 10, y: cy + 6, "font-size": 11, "font-weight": 600 }, "Entry spaces:"));
  cy += 24;
  for (let i = 0; i < spaces; i++) {
    const seat = entries[i];
    const ex = x + 22 + i * 34;
    const colour = seat === undefined ? "#fff" : ctx.seatColour(seat);
    const disc = s("g", { class: "bd-entry" });
    disc.append(s("circle", { cx: ex, cy, r: 13, fill: colour, stroke: "#3e2723", "stroke-dasharray": seat === undefined ? "3 2" : null }));
    disc.append(s("text", { x: ex, y: cy + 4, "text-anchor": "middle", "font-size": 12, "font-weight": 700, fill: ink(colour) }, String(i + 1)));
    g.append(tip(disc, seat === undefined ? `space ${i + 1}: free` : `space ${i + 1}: ${seatName(ctx, seat)}`));
  }
  cy += 26;
  const names = entries.map((seat) => clip(seatName(ctx, seat), 16));
  const [who, wh] = para(x + 10, cy, entries.length ? `Entered: ${names.join(", ")}` : "Nobody entered yet", chars);
  g.append(who);
  cy += wh;
  const premium = v.premium?.[slot];
  if (typeof premium === "number" && premium >= 0) {
    g.append(fitted({ x: x + 10, y: cy + 4, "font-size": 11, "font-weight": 700 }, `Premium action: ${seatName(ctx, premium)}`, w - 20));
    cy += 16;
  }
  if (v.phase === "resolve" && v.resolving === slot) {
    g.append(s("rect", { x: x + 8, y: cy - 4, width: 110, height: 18, rx: 9, fill: "#3e2723" }));
    g.append(s("text", { x: x + 63, y: cy + 9, "text-anchor": "middle", "font-size": 11, fill: "#fff" }, "resolving now"));
  }
  return offer(g, ctx.choosable("place", id), ctx);
}

function nunRow(c: Ctx, x: number, y: number, w: number): SVGElement {
  const ctx = c.ctx;
  const v = c.view;
  const g = s("g", { class: "bd-nun-row", "data-place": "nun_row" });
  g.append(s("rect", { x, y, width: w, height: 150, rx: 10, fill: "#f1ecf7", stroke: "#6a4f8a", "stroke-width": 2 }));
  g.append(s("text", { x: x + 10, y: y + 18, "font-size": 14, "font-weight": 700 }, placeName(c, "nun_row")));
  tip(g, `${placeName(c, "nun_row")}: ${c.places.get("nun_row")?.text ?? ""}`);
  const row: (string | null)[] = v.nun_row ?? [];
  const cw = (w - 20 - 4 * 8) / 5;
  row.forEach((known, i) => {
    const cx = x + 10 + i * (cw + 8);
    const node = s("g", { class: "bd-nun", "data-position": i });
    const klass = known ? cardClass(known) : "";
    node.append(s("rect", { class: "bd-hit", x: cx, y: y + 28, width: cw, height: 76, rx: 6, fill: known ? CLASS_FILL[klass] ?? "#fff" : "#6d5a85", stroke: "#3e2a55" }));
    node.append(s("text", { x: cx + cw / 2, y: y + 44, "text-anchor": "middle", "font-size": 11, fill: known ? "#222" : "#fff" }, `card ${i + 1}`));
    if (known) {
      const name = cardName(c, known);
      const cut = name.indexOf(" (");
      node.append(s("text", { x: cx + cw / 2, y: y + 64, "text-anchor": "middle", "font-size": 12, "font-weight": 700 }, cut > 0 ? name.slice(0, cut) : name));
      if (cut > 0) node.append(s("text", { x: cx + cw / 2, y: y + 80, "text-anchor": "middle", "font-size": 11 }, name.slice(cut + 2, -1)));
    } else {
      node.append(s("text", { x: cx + cw / 2, y: y + 70, "text-anchor": "middle", "font-size": 11, fill: "#fff" }, "face down"));
    }
    // who looked at it (the dots of their colours)
    const lookers = (v.seats ?? []).filter((seat: Json) => (seat.nun_looked ?? []).includes(i));
    lookers.forEach((seat: Json, j: number) => {
      node.append(s("circle", { cx: cx + 10 + j * 14, cy: y + 118, r: 5, fill: ctx.seatColour(seat.player), stroke: "#222" }));
    });
    if (lookers.length) node.append(s("text", { x: cx + 4, y: y + 140, "font-size": 10, fill: "#555" }, "looked"));
    const name = ctx.name("nun_position", i) ?? `Nun-row card ${i + 1}`;
    tip(node, `${name}: ${known ? cardName(c, known) : "face down"}${lookers.length ? `; looked at by ${lookers.map((seat: Json) => seatName(ctx, seat.player)).join(", ")}` : ""}`);
    g.append(offer(node, ctx.choosable("nun_position", i), ctx));
  });
  return g;
}

function supply(c: Ctx, x: number, y: number): SVGElement {
  const ctx = c.ctx;
  const g = s("g", { class: "bd-supply", "data-place": "supply" });
  g.append(s("rect", { x, y, width: 170, height: 150, rx: 10, fill: "#fff8e1", stroke: "#8a6d3b" }));
  g.append(s("text", { x: x + 10, y: y + 18, "font-size": 13, "font-weight": 700 }, placeName(c, "supply")));
  Object.entries(c.view.supply ?? {}).forEach(([key, n], i) => {
    g.append(s("text", { x: x + 10, y: y + 38 + i * 17, "font-size": 12 }, `${ctx.name("special", key) ?? key}: ${n}`));
  });
  return tip(g, `${placeName(c, "supply")}: ${c.places.get("supply")?.text ?? ""}`);
}

function influence(c: Ctx, x: number, y: number, w: number, hgt: number): SVGElement {
  const ctx = c.ctx;
  const v = c.view;
  const tracks: Json[] = v.tracks ?? [];
  const g = s("g", { class: "bd-influence" });
  g.append(s("rect", { x, y, width: w, height: hgt, rx: 10, fill: "#faf6ee", stroke: "#8a6d3b" }));
  g.append(s("text", { x: x + 10, y: y + 18, "font-size": 14, "font-weight": 700 }, "Influence board"));
  const max = Math.max(8, ...tracks.flatMap((t) => t.influence ?? [0]));
  const colW = (w - 90) / Math.max(1, tracks.length);
  const startH = 34;
  const bottom = y + hgt - 10 - startH;
  const top = y + 56;
  const step = (bottom - top) / max;
  // the scale on the left, and the start space along the bottom
  for (let k = 1; k <= max; k++) {
    if (max > 12 && k % 2) continue;
    g.append(s("text", { x: x + 70, y: bottom - (k - 0.5) * step + 4, "text-anchor": "end", "font-size": 10, fill: "#6b5b3e" }, String(k)));
  }
  const start = s("g", { class: "bd-start", "data-place": "influence_start" });
  start.append(s("rect", { x: x + 8, y: bottom + 4, width: w - 16, height: startH - 4, rx: 6, fill: "#efe5cc", stroke: "#b9a77a" }));
  start.append(s("text", { x: x + 14, y: bottom + 23, "font-size": 11, "font-weight": 600 }, placeName(c, "influence_start")));
  g.append(tip(start, `${placeName(c, "influence_start")}: ${c.places.get("influence_start")?.text ?? ""}`));
  tracks.forEach((track, i) => {
    const cx = x + 80 + i * colW;
    const id = track.track;
    const col = s("g", { class: "bd-track", "data-place": id });
    col.append(s("rect", { class: "bd-hit", x: cx, y: top - 24, width: colW - 8, height: bottom - top + 24, rx: 6, fill: CLASS_FILL[id] ?? "#fff", stroke: "#b9a77a" }));
    col.append(s("text", { x: cx + (colW - 8) / 2, y: top - 8, "text-anchor": "middle", "font-size": 12, "font-weight": 700 }, placeName(c, id)));
    for (let k = 1; k < max; k++) col.append(s("line", { x1: cx + 4, x2: cx + colW - 12, y1: bottom - k * step, y2: bottom - k * step, stroke: "#d8ccb0" }));
    // markers by level; at a level, in standing order
    const standing: number[] = track.standing ?? [];
    const order = standing.length ? standing : (track.influence ?? []).map((_: number, p: number) => p);
    const perLevel = new Map<number, number>();
    for (const seat of order) {
      const level = track.influence?.[seat] ?? 0;
      const n = perLevel.get(level) ?? 0;
      perLevel.set(level, n + 1);
      const colour = ctx.seatColour(seat);
      const mx = cx + 12 + n * 15;
      const my = level === 0 ? bottom + 19 : bottom - (level - 0.5) * step;
      const marker = s("circle", { cx: level === 0 ? mx + 60 : mx, cy: my, r: Math.min(7, step / 2 + 1), fill: colour, stroke: "#222" });
      col.append(tip(marker, `${seatName(ctx, seat)}: ${level} in the ${placeName(c, id)}`));
    }
    tip(col, `${placeName(c, id)}: ${c.places.get(id)?.text ?? ""}`);
    g.append(offer(col, ctx.choosable("place", id), ctx));
  });
  return g;
}

function mapSvg(c: Ctx): SVGElement {
  const v = c.view;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "group", "aria-label": "Rattus Cartus table" });
  svg.append(s("rect", { x: 0, y: 0, width: W, height: H, fill: "#fffdf7" }));
  svg.append(deck(c, "building_deck", 10, 14, plural(v.building_deck_size ?? 0, "card")));
  svg.append(deck(c, "reserve", 10, 100, plural(v.reserve_size ?? 0, "card")));
  const slots = [...c.places.values()].filter((p) => p.kind === "building_slot").sort((a, b) => a.x - b.x);
  const bw = (W - 140 - 190 - 2 * 10) / Math.max(1, slots.length);
  slots.forEach((p, i) => svg.append(building(c, Number(p.id), 140 + i * (bw + 10), 10, bw)));
  svg.append(supply(c, W - 180, 10));
  const midY = 278;
  const discard: string[] = v.discard ?? [];
  svg.append(deck(c, "population_deck", 10, midY + 30, plural(v.deck_size ?? 0, "card")));
  svg.append(nunRow(c, 140, midY, W - 140 - 190));
  const pile = s("g", { class: "bd-discard", "data-place": "discard_pile" });
  pile.append(s("rect", { x: W - 180, y: midY, width: 170, height: 150, rx: 10, fill: "#fff", stroke: "#8a6d3b" }));
  pile.append(s("text", { x: W - 170, y: midY + 18, "font-size": 13, "font-weight": 700 }, placeName(c, "discard_pile")));
  pile.append(s("text", { x: W - 170, y: midY + 38, "font-size": 12 }, plural(discard.length, "card")));
  discard.slice(-5).reverse().forEach((id, i) => {
    pile.append(s("text", { x: W - 170, y: midY + 58 + i * 16, "font-size": 11, fill: i ? "#777" : "#222" }, `${i ? "" : "top: "}${cardName(c, id)}`));
  });
  svg.append(tip(pile, `${placeName(c, "discard_pile")}: ${c.places.get("discard_pile")?.text ?? ""}`));
  svg.append(influence(c, 10, midY + 160, W - 20, H - midY - 170));
  return svg;
}

// Why every seat's rats show (docs/rules/rattus_cartus.md, "Are rat totals secret?").
const RATS_TIP =
  "Rat tokens lie face down, but every rat taken or given back is a 1-rat token in view of the table and everyone starts with 10: this is the total a player who watched the whole game knows.";

function playerArea(c: Ctx, seat: Json): HTMLElement {
  const ctx = c.ctx;
  const v = c.view;
  const p = seat.player as number;
  const me = ctx.seat === p;
  const box = playerBox(ctx, p, (v.active ?? []).includes(p));
  box.append(tip(row("Rats", h("span", { class: "bd-rats" }, String(seat.rats))), RATS_TIP));
  box.append(row("Victory-point tokens", String(seat.vp_tokens)));
  box.append(row("Cards in hand", String(seat.hand_size)));
  const revealed: string[] = v.revealed_cards?.[p] ?? [];
  const hidden = Math.max(0, (seat.played ?? 0) - revealed.length);
  const front = [
    ...revealed.map((id) => card(cardName(c, id), null, ctx, "", ctx.text("card", id))),
    ...(hidden && !me ? [h("span", { class: "bd-muted" }, `${plural(hidden, "card")} face down`)] : []),
  ];
  if (me) for (const id of v.my_played ?? []) if (!revealed.includes(id)) front.push(card(`${cardName(c, id)} (face down)`, null, ctx, "bd-new", ctx.text("card", id)));
  box.append(row("Cards in front", ...(front.length ? front : [h("span", { class: "bd-muted" }, "none")])));
  const levels = (v.tracks ?? []).map((t: Json) => `${ctx.name("class", t.track) ?? t.track} ${t.influence?.[p] ?? 0}`);
  box.append(row("Influence", levels.join(", ")));
  if (typeof seat.supply_choice === "number" && seat.supply_choice >= 0) {
    const b = v.row?.[seat.supply_choice];
    box.append(row("Supply action taken", b ? ctx.name("building", b.building) ?? b.building : placeName(c, String(seat.supply_choice))));
  }
  if (seat.looks_owed) box.append(row("Nun-row looks owed", String(seat.looks_owed)));
  if (seat.nun_looked?.length) box.append(row("Nun-row cards seen", seat.nun_looked.map((i: number) => String(i + 1)).join(", ")));
  if (me) {
    const hand = h("div", { class: "bd-hand", "data-testid": "own-hand", "data-own-hand": "" }, h("span", { class: "bd-key" }, "Your hand"));
    const cards: string[] = v.hand ?? [];
    hand.append(
      ...(cards.length
        ? cards.map((id) => {
            const chip = card(cardName(c, id), ctx.choosable("card", id), ctx, "", ctx.text("card", id));
            const klass = cardClass(id);
            if (klass) {
              chip.dataset.class = klass;
              chip.style.borderLeftColor = CLASS_FILL[klass] ?? "#b9a77a";
            }
            return chip;
          })
        : [h("span", { class: "bd-muted" }, "no card")]),
    );
    box.append(hand);
  }
  return box;
}

export const board: GameBoard = {
  render(root: HTMLElement, ctx: BoardContext): void {
    style("bd-kit-css", KIT_CSS);
    style("bd-rc-css", CSS);
    const c: Ctx = { ctx, view: ctx.view, places: new Map((ctx.data.places ?? []).map((p) => [p.id, p])) };
    root.replaceChildren();
    const wrap = h("div", { class: "bd-root bd-rc", "data-game": "rattus_cartus" });
    wrap.append(h("div", { class: "bd-map" }, zoomable(mapSvg(c), "Rattus Cartus table", "rattus_cartus")));
    const side = h("div", { class: "bd-side" });
    const seats: Json[] = [...(c.view.seats ?? [])];
    seats.sort((a, b) => Number(b.player === ctx.seat) - Number(a.player === ctx.seat) || a.player - b.player);
    for (const seat of seats) side.append(playerArea(c, seat));
    wrap.append(side);
    root.append(wrap);
  },
};
