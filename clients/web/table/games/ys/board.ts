// Ys: the four neighbourhoods (port, commercial area, palace) around the central market (rows by
// gem columns), the four quotation scales and the throne room, from the places of the game data;
// every broker on them (face up with its value, face down as a blank of its owner's colour, or
// with the value when the viewer may know it); beside it each player's area (gold, gems, order
// card, brokers behind and in front of the screen, character cards), the viewer's own first.
import type { BoardContext, GameBoard, Place } from "../board.js";
import { KIT_CSS, card, fitted, h, ink, offer, playerBox, plural, row, s, seatName, style, tip } from "../kit.js";
import { zoomable } from "../zoom.js";

type Json = any;

const W = 1280;
const H = 900;
const COLUMNS = ["blue", "green", "yellow", "red"];
const GEM_FILL: Record<string, string> = {
  blue: "#2f6fd6",
  green: "#2e9d4a",
  yellow: "#e8c31a",
  red: "#d23b2b",
  black: "#222",
  white: "#fafafa",
};
const NEUTRAL = "#9a9a9a";
const AREA_ORDER = ["port", "commercial", "palace"];
const AREA_TITLE: Record<string, string> = { port: "Port", commercial: "Commercial area", palace: "Palace" };

const CSS = `
.bd-ys .bd-gem { display: inline-flex; align-items: center; gap: 2px; margin-right: 6px; }
.bd-ys .bd-gem i { display: inline-block; width: 11px; height: 11px; border-radius: 2px; transform: rotate(45deg); border: 1px solid #333; }
.bd-ys .bd-token.bd-down { border: 2px dashed #222; }
`;

interface Ctx {
  ctx: BoardContext;
  view: Json;
  places: Map<string, Place>;
}

function partyColour(c: Ctx, party: number): string {
  return party < c.view.players ? c.ctx.seatColour(party) : NEUTRAL;
}

function partyName(c: Ctx, party: number): string {
  return party < c.view.players ? seatName(c.ctx, party) : "Neutral player";
}

function placeName(c: Ctx, id: string): string {
  return c.places.get(id)?.name ?? c.ctx.name("place", id) ?? id;
}

function gemName(c: Ctx, colour: string): string {
  return c.ctx.name("gem", colour) ?? `${colour} gem`;
}

function svgGem(x: number, y: number, colour: string, size = 7): SVGElement {
  return s("rect", {
    x: x - size,
    y: y - size,
    width: size * 2,
    height: size * 2,
    transform: `rotate(45 ${x} ${y})`,
    fill: GEM_FILL[colour] ?? "#ccc",
    stroke: "#333",
    "stroke-width": 1,
  });
}

/** A broker on the board: its owner's colour, its value when the viewer may know it. */
function brokerChip(c: Ctx, b: Json, x: number, y: number, r = 12): SVGElement {
  const colour = partyColour(c, b.owner);
  const g = s("g", { class: "bd-broker", "data-owner": b.owner });
  g.append(
    s("circle", {
      cx: x,
      cy: y,
      r,
      fill: colour,
      stroke: "#222",
      "stroke-width": b.face_up ? 1.2 : 2,
      "stroke-dasharray": b.face_up ? null : "3 2",
    }),
  );
  if (b.value !== null && b.value !== undefined) {
    g.append(
      s(
        "text",
        {
          x,
          y: y + 4.5,
          "text-anchor": "middle",
          "font-size": 13,
          "font-weight": 700,
          "font-style": b.face_up ? null : "italic",
          fill: ink(colour),
        },
        b.mercenary ? "5" : String(b.value),
      ),
    );
  }
  if (b.mercenary) g.append(s("circle", { cx: x + r - 2, cy: y - r + 2, r: 4, fill: "#fff", stroke: "#222" }));
  const face = b.face_up ? "face up" : "face down";
  const value = b.value !== null && b.value !== undefined ? ` ${b.value}` : "";
  tip(g, `${partyName(c, b.owner)}'s broker${value}, ${face}${b.mercenary ? " (Mercenary: counts 5)" : ""}`);
  return g;
}

/** Text wrapped to `width` characters a line. */
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

function multiline(x: number, y: number, text: string, width: number, attrs: Record<string, string | number> = {}): SVGElement {
  const node = s("text", { x, y, "text-anchor": "middle", "font-size": 12, ...attrs });
  lines(text, width).forEach((line, i) => node.append(s("tspan", { x, dy: i ? 14 : 0 }, line)));
  return node;
}

// -- the neighbourhoods -----------------------------------------------------------------------

function neighbourhood(c: Ctx, k: number, x0: number, y0: number): SVGElement {
  const w = 380;
  const hgt = 420;
  const inPlay = k <= (c.view.neighbourhoods ?? 4);
  const id = `n${k}`;
  const g = s("g", { class: "bd-neighbourhood", "data-place": id, opacity: inPlay ? 1 : 0.45 });
  g.append(s("rect", { x: x0, y: y0, width: w, height: hgt, rx: 12, fill: "#f3ead6", stroke: "#8a6d3b", "stroke-width": 2 }));
  g.append(
    s("text", { x: x0 + 14, y: y0 + 26, "font-size": 18, "font-weight": 700, fill: "#3b2f1e" }, placeName(c, id)),
  );
  if (!inPlay) {
    g.append(s("text", { x: x0 + w - 14, y: y0 + 26, "text-anchor": "end", "font-size": 12 }, "not in play"));
  }
  const colW = 118;
  AREA_ORDER.forEach((area, i) => {
    const place = `${id}.${area}`;
    g.append(areaBox(c, k, area, place, x0 + 8 + i * (colW + 4), y0 + 40, colW, hgt - 50));
  });
  return g;
}

function areaBox(c: Ctx, k: number, area: string, place: string, x: number, y: number, w: number, hgt: number): SVGElement {
  const v = c.view;
  const closed = (v.closed ?? []).includes(place);
  const g = s("g", { class: "bd-area", "data-place": place });
  g.append(
    s("rect", {
      class: "bd-hit",
      x,
      y,
      width: w,
      height: hgt,
      rx: 8,
      fill: closed ? "#e2dcd0" : "#fffdf7",
      stroke: "#b9a77a",
      "stroke-width": 1.5,
    }),
  );
  tip(g, `${placeName(c, place)}${closed ? " (closed)" : ""}: ${c.ctx.text("place", place) ?? ""}`);
  g.append(s("text", { x: x + w / 2, y: y + 18, "text-anchor": "middle", "font-size": 13, "font-weight": 700 }, AREA_TITLE[area]));
  const cx = x + w / 2;
  let cy = y + 40;
  if (area === "port") {
    const ship = v.ports?.[k - 1] ?? "";
    const shipData = c.ctx.data.components.find((cp) => cp.kind === "ship" && cp.id === ship);
    const shipLabel = s("text", { x: cx, y: cy, "text-anchor": "middle", "font-size": 12 }, ship ? c.ctx.name("ship", ship) ?? ship : "no ship");
    g.append(ship ? tip(shipLabel, c.ctx.text("ship", ship) ?? "") : shipLabel);
    if (shipData?.values?.large) {
      const gems: string[] = [shipData.values.large, ...(shipData.values.small ?? [])];
      gems.forEach((gem, j) => g.append(tip(svgGem(cx - 24 + j * 24, cy + 20, gem, j === 0 ? 9 : 6), gemName(c, gem))));
    }
    cy += 40;
  } else if (area === "palace") {
    const offered = v.offered?.[k - 1] ?? "";
    const name = offered ? c.ctx.name("character", offered) ?? offered : "no card";
    const shown = s("g", { class: "bd-character" });
    shown.append(s("rect", { x: x + 10, y: cy - 14, width: w - 20, height: 34, rx: 4, fill: "#fff", stroke: "#8a6d3b" }));
    shown.append(multiline(cx, cy + 1, name, 16, { "font-weight": 600 }));
    g.append(offered ? tip(shown, `${name}: ${c.ctx.text("character", offered) ?? ""}`) : shown);
    const pile = v.pile_sizes?.[k - 1] ?? 0;
    g.append(s("text", { x: cx, y: cy + 36, "text-anchor": "middle", "font-size": 11, fill: "#6b5b3e" }, `${plural(pile, "card")} in pile`));
    cy += 40;
  } else {
    g.append(s("text", { x: cx, y: cy, "text-anchor": "middle", "font-size": 12 }, `majority: ${v.commercial_vp ?? 0} gold`));
    cy += 20;
  }
  if (closed) {
    g.append(s("text", { x: cx, y: cy + 10, "text-anchor": "middle", "font-size": 13, "font-weight": 700, fill: "#a40000" }, "CLOSED"));
    cy += 20;
  }
  const brokers = (v.board ?? []).filter((b: Json) => b.place === place);
  brokers.forEach((b: Json, j: number) => {
    const col = j % 4;
    const line = Math.floor(j / 4);
    g.append(brokerChip(c, b, x + 17 + col * 28, cy + 22 + line * 30));
  });
  offer(g, c.ctx.choosable("place", place), c.ctx);
  return g;
}

// -- the market, the scales, the throne --------------------------------------------------------

function market(c: Ctx, x0: number, y0: number): SVGElement {
  const v = c.view;
  const g = s("g", { class: "bd-market", "data-place": "market" });
  const w = 470;
  g.append(s("rect", { x: x0, y: y0, width: w, height: 380, rx: 12, fill: "#eef1f6", stroke: "#5b6b8a", "stroke-width": 2 }));
  g.append(s("text", { x: x0 + w / 2, y: y0 + 24, "text-anchor": "middle", "font-size": 18, "font-weight": 700 }, placeName(c, "market")));
  const labelW = 110;
  const cellW = 88;
  const cellH = 74;
  COLUMNS.forEach((colour, i) => {
    const cx = x0 + labelW + 10 + i * cellW + cellW / 2;
    g.append(svgGem(cx - 26, y0 + 48, colour, 6));
    g.append(s("text", { x: cx - 14, y: y0 + 53, "font-size": 13, "font-weight": 600 }, colour));
  });
  for (let rowN = 0; rowN < 4; rowN++) {
    const y = y0 + 64 + rowN * (cellH + 4);
    const used = rowN > 0 && (rowN > 1 || v.players >= 4);
    const rowId = `m${rowN}`;
    const label = s("g", { class: "bd-row-label", "data-place": rowId, opacity: used ? 1 : 0.5 });
    label.append(s("rect", { class: "bd-hit", x: x0 + 8, y, width: labelW, height: cellH, rx: 6, fill: "#fff", stroke: "#9aa6bd" }));
    label.append(s("text", { x: x0 + 8 + labelW / 2, y: y + 18, "text-anchor": "middle", "font-size": 12, "font-weight": 600 }, placeName(c, rowId)));
    const gem = v.market_gems?.[rowN] ?? "";
    if (gem) {
      label.append(tip(svgGem(x0 + 8 + labelW / 2, y + 44, gem, 9), gemName(c, gem)));
    } else {
      label.append(s("text", { x: x0 + 8 + labelW / 2, y: y + 48, "text-anchor": "middle", "font-size": 11, fill: "#777" }, used ? "no gem" : "not used"));
    }
    tip(label, c.places.get(rowId)?.text ?? placeName(c, rowId));
    offer(label, c.ctx.choosable("place", rowId), c.ctx);
    g.append(label);
    COLUMNS.forEach((colour, i) => {
      const id = `m${rowN}.${colour}`;
      const x = x0 + labelW + 10 + i * cellW + 2;
      const cell = s("g", { class: "bd-square", "data-place": id, opacity: used ? 1 : 0.5 });
      cell.append(s("rect", { class: "bd-hit", x, y, width: cellW - 4, height: cellH, rx: 6, fill: "#fff", stroke: GEM_FILL[colour], "stroke-width": 2 }));
      tip(cell, `${placeName(c, id)}: ${c.ctx.text("place", id) ?? ""}`);
      const closed = (v.closed ?? []).includes(id);
      const brokers = (v.board ?? []).filter((b: Json) => b.place === id);
      brokers.forEach((b: Json, j: number) => cell.append(brokerChip(c, b, x + (cellW - 4) / 2 + j * 26 - (brokers.length - 1) * 13, y + cellH / 2, 15)));
      if (closed) cell.append(s("text", { x: x + (cellW - 4) / 2, y: y + cellH - 6, "text-anchor": "middle", "font-size": 11, fill: "#a40000", "font-weight": 700 }, "CLOSED"));
      offer(cell, c.ctx.choosable("place", id), c.ctx);
      g.append(cell);
    });
  }
  return g;
}

function scales(c: Ctx, x0: number, y0: number): SVGElement {
  const v = c.view;
  const limit = Number(v.price_limit ?? 8);
  const g = s("g", { class: "bd-scales" });
  const w = 470;
  const hgt = 250;
  g.append(s("rect", { x: x0, y: y0, width: w, height: hgt, rx: 12, fill: "#f6f3ee", stroke: "#8a6d3b" }));
  g.append(s("text", { x: x0 + 14, y: y0 + 22, "font-size": 15, "font-weight": 700 }, "Gem quotations"));
  const top = y0 + 44;
  const bottom = y0 + hgt - 22;
  const step = (bottom - top) / (2 * limit);
  // the value ticks, once, on the left
  for (let p = -limit; p <= limit; p += 2) {
    const y = bottom - (p + limit) * step;
    g.append(s("text", { x: x0 + 40, y: y + 4, "text-anchor": "end", "font-size": 10, fill: "#6b5b3e" }, String(p)));
    g.append(s("line", { x1: x0 + 44, x2: x0 + w - 10, y1: y, y2: y, stroke: p === 0 ? "#8a6d3b" : "#e5dccb", "stroke-width": p === 0 ? 1.5 : 1 }));
  }
  COLUMNS.forEach((colour, i) => {
    const id = `scale.${colour}`;
    const x = x0 + 110 + i * 88;
    const price = Number(v.prices?.[colour] ?? 0);
    const scale = s("g", { class: "bd-scale", "data-place": id, "data-price": price });
    scale.append(s("rect", { class: "bd-hit", x: x - 34, y: top - 12, width: 68, height: bottom - top + 24, rx: 8, fill: "transparent", stroke: "transparent" }));
    scale.append(s("line", { x1: x, x2: x, y1: top, y2: bottom, stroke: GEM_FILL[colour], "stroke-width": 6, "stroke-linecap": "round" }));
    const y = bottom - (price + limit) * step;
    scale.append(s("circle", { cx: x, cy: y, r: 13, fill: GEM_FILL[colour], stroke: "#222", "stroke-width": 1.5 }));
    scale.append(s("text", { x, y: y + 4.5, "text-anchor": "middle", "font-size": 13, "font-weight": 700, fill: ink(GEM_FILL[colour]) }, String(price)));
    scale.append(s("text", { x: x + 18, y: y + 4, "font-size": 11, fill: "#333" }, colour));
    tip(scale, `${placeName(c, id)}: ${price}`);
    offer(scale, c.ctx.choosable("place", id) ?? c.ctx.choosable("gem", colour), c.ctx);
    g.append(scale);
  });
  return g;
}

function throne(c: Ctx, x0: number, y0: number): SVGElement {
  const v = c.view;
  const g = s("g", { class: "bd-throne", "data-place": "throne" });
  const w = 470;
  const hgt = 150;
  g.append(s("rect", { class: "bd-hit", x: x0, y: y0, width: w, height: hgt, rx: 12, fill: "#f5eef8", stroke: "#7a4f8a", "stroke-width": 2 }));
  g.append(s("text", { x: x0 + 14, y: y0 + 22, "font-size": 15, "font-weight": 700 }, placeName(c, "throne")));
  tip(g, c.places.get("throne")?.text ?? placeName(c, "throne"));
  let y = y0 + 44;
  const seats = v.seats ?? [];
  let any = false;
  for (const seat of seats) {
    if (!seat.throne_size) continue;
    any = true;
    g.append(fitted({ x: x0 + 14, y: y + 4, "font-size": 12 }, seatName(c.ctx, seat.player), 118));
    for (let j = 0; j < seat.throne_size; j++) {
      const value = seat.throne ? seat.throne[j] : null;
      g.append(brokerChip(c, { owner: seat.player, face_up: false, value, mercenary: false }, x0 + 140 + j * 26, y, 11));
    }
    y += 26;
  }
  if (!any) g.append(s("text", { x: x0 + 14, y: y + 4, "font-size": 12, fill: "#777" }, "no broker in the throne room"));
  // what lies beside the board: gems waiting in the port pool, the ship deck
  const pool: string[] = v.port_pool ?? [];
  const info = `Ship deck: ${plural(v.ship_deck_size ?? 0, "card")}`;
  g.append(s("text", { x: x0 + w - 14, y: y0 + 22, "text-anchor": "end", "font-size": 12, fill: "#444" }, info));
  if (pool.length) {
    g.append(s("text", { x: x0 + 250, y: y0 + 46, "font-size": 12 }, "Port gems:"));
    pool.forEach((gem, j) => {
      const node = s("g", { class: "bd-pool-gem" });
      node.append(s("rect", { class: "bd-hit", x: x0 + 334 + j * 22 - 10, y: y0 + 32, width: 20, height: 20, fill: "transparent", stroke: "transparent" }));
      node.append(svgGem(x0 + 334 + j * 22, y0 + 42, gem, 6));
      tip(node, gemName(c, gem));
      offer(node, c.ctx.choosable("gem", gem), c.ctx);
      g.append(node);
    });
  }
  offer(g, c.ctx.choosable("place", "throne"), c.ctx);
  return g;
}

function mapSvg(c: Ctx): SVGElement {
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "group", "aria-label": "Ys board" });
  svg.append(s("rect", { x: 0, y: 0, width: W, height: H, fill: "#fffdf7" }));
  // 1 top left, 2 top right, 3 bottom right, 4 bottom left (the data's positions)
  const corners: Record<number, [number, number]> = {};
  for (let k = 1; k <= 4; k++) {
    const p = c.places.get(`n${k}`);
    const left = p ? p.x < 0.5 : k === 1 || k === 4;
    const topSide = p ? p.y < 0.5 : k <= 2;
    corners[k] = [left ? 10 : W - 390, topSide ? 10 : 470];
  }
  for (let k = 1; k <= 4; k++) svg.append(neighbourhood(c, k, ...corners[k]));
  svg.append(market(c, 405, 10));
  svg.append(scales(c, 405, 400));
  svg.append(throne(c, 405, 660));
  const legend = s("g", { "font-size": 11, fill: "#444" });
  legend.append(s("circle", { cx: 420, cy: 830, r: 8, fill: "#ddd", stroke: "#222" }));
  legend.append(s("text", { x: 434, y: 834 }, "face up"));
  legend.append(s("circle", { cx: 500, cy: 830, r: 8, fill: "#ddd", stroke: "#222", "stroke-width": 2, "stroke-dasharray": "3 2" }));
  legend.append(s("text", { x: 514, y: 834 }, "face down (value only if you may know it)"));
  svg.append(legend);
  return svg;
}

// -- the players' areas -----------------------------------------------------------------------

function gems(c: Ctx, counts: Record<string, number>): HTMLElement {
  const out = h("span");
  for (const [colour, n] of Object.entries(counts ?? {})) {
    out.append(
      tip(h("span", { class: "bd-gem" }, h("i", { style: `background:${GEM_FILL[colour] ?? "#ccc"}` }), String(n)), `${n} × ${gemName(c, colour)}`),
    );
  }
  return out;
}

function brokerTokens(c: Ctx, seat: number, values: number[], where: string, clickable: boolean): HTMLElement[] {
  return values.map((value) => {
    const token = tip(h("span", { class: "bd-token" }, String(value)), `${c.ctx.name("broker", value) ?? `Broker ${value}`} ${where}`);
    return clickable ? offer(token, c.ctx.choosable("broker", value), c.ctx) : token;
  });
}

function playerArea(c: Ctx, seat: Json): HTMLElement {
  const ctx = c.ctx;
  const v = c.view;
  const p = seat.player as number;
  const me = ctx.seat === p;
  const box = playerBox(ctx, p, (v.active ?? []).includes(p));
  box.append(row(c.view.phase === "over" ? "Final gold" : "Gold so far", h("b", {}, String(seat.score))));
  box.append(row("Gems", gems(c, seat.gems)));
  if (seat.order_card) box.append(row("Order card", String(seat.order_card)));
  box.append(row("In front of the screen", ...(seat.front?.length ? brokerTokens(c, p, seat.front, "in front of the screen", me) : [h("span", { class: "bd-muted" }, "none")])));
  if (!me) box.append(row("Behind the screen", plural(seat.screen_size ?? 0, "broker")));
  if (seat.bid) box.append(row("Bid", seat.bid.length ? seat.bid.join(" + ") : "none"));
  else if (seat.has_bid) box.append(row("Bid", h("span", { class: "bd-muted" }, "placed, secret")));
  const cards = [
    ...(seat.hand ?? []).map((id: string) => card(ctx.name("character", id) ?? id, me ? ctx.choosable("character", id) : null, ctx, "", ctx.text("character", id))),
    ...(seat.new_cards ?? []).map((id: string) => card(`${ctx.name("character", id) ?? id} (new)`, me ? ctx.choosable("character", id) : null, ctx, "bd-new", ctx.text("character", id))),
  ];
  box.append(row("Character cards", ...(cards.length ? cards : [h("span", { class: "bd-muted" }, "none")])));
  if (seat.throne_size) box.append(row("In the throne room", plural(seat.throne_size, "broker")));
  if (seat.neutral_left) box.append(row("Neutral brokers left", String(seat.neutral_left)));
  if (me) {
    const hand = h("div", { class: "bd-hand", "data-testid": "own-hand", "data-own-hand": "" }, h("span", { class: "bd-key" }, "Behind your screen"));
    const screen: number[] = seat.screen ?? [];
    hand.append(...(screen.length ? brokerTokens(c, p, screen, "behind your screen", true) : [h("span", { class: "bd-muted" }, "no broker")]));
    if (seat.neutral_pool?.length) {
      hand.append(h("span", { class: "bd-key" }, "Your neutral brokers"));
      for (const value of seat.neutral_pool) {
        const token = h("span", { class: "bd-token", style: `--seat:${NEUTRAL}` }, String(value));
        hand.append(offer(token, ctx.choosable("broker", value), ctx));
      }
    }
    if (seat.throne?.length) {
      hand.append(h("span", { class: "bd-key" }, "Your throne brokers"));
      hand.append(...seat.throne.map((value: number | null) => h("span", { class: "bd-token bd-down" }, value === null ? "?" : String(value))));
    }
    box.append(hand);
  }
  return box;
}

function neutralArea(c: Ctx): HTMLElement | null {
  const n = c.view.neutral;
  if (!n) return null;
  const box = h("section", { class: "bd-player", style: `--seat:${NEUTRAL}; --ink:#111` });
  box.append(h("h4", {}, h("span", { class: "bd-swatch" }), "Neutral player"));
  box.append(row(c.view.phase === "over" ? "Final gold" : "Gold so far", h("b", {}, String(n.score ?? 0))));
  const counts: Record<string, number> = {};
  for (const [key, value] of Object.entries(n)) if (key !== "score") counts[key] = value as number;
  box.append(row("Gems", gems(c, counts)));
  return box;
}

/** The order cards: who holds which, and the ones the viewer may choose now. */
function orderCards(c: Ctx): HTMLElement {
  const ctx = c.ctx;
  const box = h("section", { class: "bd-player bd-order", style: "--seat:#8a6d3b" });
  box.append(h("h4", {}, "Order cards"));
  const holders = new Map<number, number>();
  for (const seat of c.view.seats ?? []) if (seat.order_card) holders.set(seat.order_card, seat.player);
  const numbers = ctx.data.components.filter((cp) => cp.kind === "order_card" && Number(cp.id) > 0).map((cp) => Number(cp.id));
  for (const n of numbers) {
    const holder = holders.get(n);
    const choice = ctx.choosable("order_card", n);
    if (holder === undefined && !choice && n > c.view.players) continue;
    const colour = holder === undefined ? "#fff" : ctx.seatColour(holder);
    const token = h("span", { class: "bd-token", style: `--seat:${colour}; --ink:${ink(colour)}; min-width:26px` }, String(n));
    tip(token, `${ctx.name("order_card", n) ?? `Order card ${n}`}${holder === undefined ? "" : ` (${seatName(ctx, holder)})`}: ${ctx.text("order_card", n) ?? ""}`);
    box.append(offer(token, choice, ctx));
  }
  return box;
}

export const board: GameBoard = {
  render(root: HTMLElement, ctx: BoardContext): void {
    style("bd-kit-css", KIT_CSS);
    style("bd-ys-css", CSS);
    const c: Ctx = { ctx, view: ctx.view, places: new Map((ctx.data.places ?? []).map((p) => [p.id, p])) };
    root.replaceChildren();
    const wrap = h("div", { class: "bd-root bd-ys", "data-game": "ys" });
    wrap.append(h("div", { class: "bd-map" }, zoomable(mapSvg(c), "Ys board", "ys")));
    const side = h("div", { class: "bd-side" });
    side.append(orderCards(c));
    const seats: Json[] = [...(c.view.seats ?? [])];
    seats.sort((a, b) => Number(b.player === ctx.seat) - Number(a.player === ctx.seat) || a.player - b.player);
    for (const seat of seats) side.append(playerArea(c, seat));
    const neutral = neutralArea(c);
    if (neutral) side.append(neutral);
    wrap.append(side);
    root.append(wrap);
  },

  /** The game turn (of four) and the placement round within it: "Round 3 of 4" alone read as
   * the game's third turn of four (issue 41 item 6). */
  headline(ctx: BoardContext): string {
    const v = ctx.view ?? {};
    const turns = ctx.data.boards?.turns;
    const parts = [`Turn ${v.turn}${turns ? ` of ${turns}` : ""}`];
    if (v.phase === "place") parts.push(`placement round ${v.round} of ${v.rounds}`);
    if (v.phase) parts.push(ctx.name("phase", v.phase) ?? String(v.phase).replaceAll("_", " "));
    return parts.join(" · ");
  },
};
