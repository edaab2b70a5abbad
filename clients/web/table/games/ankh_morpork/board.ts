// Ankh-Morpork: the twelve areas of the city at the data's positions, with the bridges between
// neighbours, each with its minions (per seat colour), building, trouble marker, trolls and demons,
// who controls it; the supply, piles and bank beside the city; each player's area (money, loans,
// City Area cards, pieces in supply, hand size), the viewer's own with its hand and personality.
import type { BoardContext, GameBoard, Place } from "../board.js";
import { KIT_CSS, card, clip, fitted, h, offer, playerBox, plural, row, s, seatName, style, tip } from "../kit.js";
import { zoomable } from "../zoom.js";

type Json = any;

const W = 1000;
const H = 720;
const AREA_W = 158;
const AREA_H = 132;
const TROLL = -1;
const DEMON = -2;

const CSS = `
.bd-am .bd-personality { margin-top: 4px; padding: 4px 6px; border-radius: 5px; background: #efe7ff; border: 1px solid #8f7bbf; }
.bd-am .bd-loan { border-color: #a40000; color: #a40000; }
.bd-am .bd-personality-goal { font-size: 12px; color: #3b3050; }
`;

interface Ctx {
  ctx: BoardContext;
  view: Json;
  areas: Place[];
  offBoard: Place[];
}

function cardName(c: Ctx, id: string): string {
  return c.ctx.name("card", id) ?? id;
}

/** A player card by name with what it does, clickable when the step offers it. */
function playerCard(c: Ctx, id: string, extra = "", offered = true): HTMLElement {
  return card(cardName(c, id), offered ? c.ctx.choosable("card", id) : null, c.ctx, extra, c.ctx.text("card", id));
}

/** The area's centre on the drawing, from its position in the data. */
function layout(areas: Place[]): Map<string, [number, number]> {
  const xs = areas.map((a) => a.x);
  const ys = areas.map((a) => a.y);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const out = new Map<string, [number, number]>();
  for (const a of areas) {
    const x = AREA_W / 2 + 12 + ((a.x - x0) / (x1 - x0 || 1)) * (W - AREA_W - 24);
    const y = AREA_H / 2 + 12 + ((a.y - y0) / (y1 - y0 || 1)) * (H - 130 - AREA_H - 24);
    out.set(a.id, [x, y]);
  }
  return out;
}

function piece(x: number, y: number, fill: string, label: string, tipText: string, shape: "minion" | "troll" | "demon"): SVGElement {
  const g = s("g", { class: `bd-${shape}` });
  if (shape === "minion") {
    g.append(s("circle", { class: "bd-hit", cx: x, cy: y - 6, r: 7, fill, stroke: "#222" }));
    g.append(s("path", { d: `M${x - 9} ${y + 10} Q${x} ${y - 6} ${x + 9} ${y + 10} Z`, fill, stroke: "#222" }));
  } else {
    g.append(s("rect", { class: "bd-hit", x: x - 10, y: y - 12, width: 20, height: 22, rx: shape === "troll" ? 3 : 10, fill, stroke: "#222" }));
    g.append(s("text", { x, y: y + 4, "text-anchor": "middle", "font-size": 11, "font-weight": 700, fill: "#fff" }, shape === "troll" ? "T" : "D"));
  }
  if (label) g.append(s("text", { x: x + 12, y: y + 6, "font-size": 12, "font-weight": 700 }, label));
  return tip(g, tipText);
}

/** The choice of a troll or a demon (kind "owner") in this area. Such a step names its area in
 * its question ("Remove whose minion from Dolly Sisters?"), not in the choice: a troll is offered
 * where the question says, or in every area when it names none. */
function neutralPiece(c: Ctx, owner: number, place: Place): ReturnType<BoardContext["choosable"]> {
  const choice = c.ctx.choosable("owner", owner);
  if (!choice) return null;
  const named = c.areas.filter((a) => choice.step.includes(a.name));
  return named.length === 0 || named.some((a) => a.id === place.id) ? choice : null;
}

function area(c: Ctx, place: Place, at: [number, number]): SVGElement {
  const ctx = c.ctx;
  const a: Json = (c.view.areas ?? []).find((v: Json) => String(v.area) === place.id) ?? {};
  const [cx, cy] = at;
  const x = cx - AREA_W / 2;
  const y = cy - AREA_H / 2;
  const river = place.group === "river";
  const g = s("g", { class: "bd-area", "data-place": place.id });
  g.append(
    s("rect", {
      class: "bd-hit",
      x,
      y,
      width: AREA_W,
      height: AREA_H,
      rx: 10,
      fill: a.trouble ? "#fbe9e7" : "#fffaf0",
      stroke: river ? "#4a86c5" : "#8a6d3b",
      "stroke-width": 2,
    }),
  );
  tip(g, `${place.name}: ${place.text ?? ""}`);
  if (river) g.append(s("path", { d: `M${x + 8} ${y + AREA_H - 8} q10 -6 20 0 t20 0 t20 0`, fill: "none", stroke: "#4a86c5", "stroke-width": 2 }));
  const cost = place.values?.cost;
  g.append(s("text", { x: x + 8, y: y + 18, "font-size": 13, "font-weight": 700 }, `${place.id}. ${place.name}`));
  if (cost !== undefined) g.append(s("text", { x: x + AREA_W - 8, y: y + 34, "text-anchor": "end", "font-size": 11, fill: "#6b5b3e" }, `building $${cost}`));
  // building and trouble marker on the second line
  const building = typeof a.building === "number" ? a.building : -1;
  if (building >= 0) {
    const colour = ctx.seatColour(building);
    const house = s("g", { class: "bd-building" });
    house.append(s("path", { d: `M${x + 10} ${y + 46} l10 -10 l10 10 v12 h-20 z`, fill: colour, stroke: "#222" }));
    house.append(fitted({ x: x + 34, y: y + 53, "font-size": 11 }, seatName(ctx, building), AREA_W - 42 - (a.trouble ? 30 : 0)));
    g.append(tip(house, `${seatName(ctx, building)}'s building`));
  } else {
    g.append(s("text", { x: x + 10, y: y + 53, "font-size": 11, fill: "#8a8170" }, "no building"));
  }
  if (a.trouble) {
    const t = s("g", { class: "bd-trouble" });
    t.append(s("circle", { cx: x + AREA_W - 18, cy: y + 58, r: 11, fill: "#111", stroke: "#d32f2f", "stroke-width": 2 }));
    t.append(s("text", { x: x + AREA_W - 18, y: y + 62.5, "text-anchor": "middle", "font-size": 13, "font-weight": 700, fill: "#fff" }, "!"));
    g.append(tip(t, "Trouble marker"));
  }
  // minions, trolls, demons
  let px = x + 16;
  let py = y + 84;
  // each piece with its count when more than one ("×2"), wrapping to a second line
  const slot = (n: number) => {
    const width = n > 1 ? 46 : 26;
    if (px + width > x + AREA_W + 4) {
      px = x + 16;
      py += 30;
    }
    const at = px;
    px += width;
    return at;
  };
  (a.minions ?? []).forEach((n: number, seat: number) => {
    if (!n) return;
    const colour = ctx.seatColour(seat);
    const at = slot(n);
    g.append(piece(at, py, colour, n > 1 ? `×${n}` : "", `${plural(n, `minion`)} of ${seatName(ctx, seat)}`, "minion"));
  });
  for (const [count, owner] of [
    [a.trolls ?? 0, TROLL],
    [a.demons ?? 0, DEMON],
  ] as const) {
    if (!count) continue;
    const troll = owner === TROLL;
    const at = slot(count);
    const node = piece(at, py, troll ? "#6d4c41" : "#7b1fa2", count > 1 ? `×${count}` : "", troll ? plural(count, "troll") : plural(count, "demon"), troll ? "troll" : "demon");
    g.append(offer(node, neutralPiece(c, owner, place), ctx));
  }
  const foot: string[] = [];
  if (typeof a.controller === "number" && a.controller >= 0) foot.push(`control: ${seatName(ctx, a.controller)}`);
  if (a.card_lost) foot.push("card lost");
  if (foot.length) g.append(fitted({ x: x + AREA_W - 8, y: y + AREA_H - 6, "text-anchor": "end", "font-size": 11, "font-style": "italic" }, foot.join(" · "), AREA_W - 56));
  offer(g, ctx.choosable("area", place.id) ?? ctx.choosable("place", place.id), ctx);
  return g;
}

/** What lies beside the city: the supply, the piles and the bank. */
function offBoard(c: Ctx): SVGElement {
  const v = c.view;
  const g = s("g", { class: "bd-off-board" });
  const top = H - 118;
  const w = (W - 24 - 4 * 8) / 5;
  const discard: string[] = v.discard ?? [];
  const facts: Record<string, string[]> = {
    supply: [],
    draw_pile: [plural(v.deck_size ?? 0, "card")],
    discard_pile: [plural(discard.length, "card"), discard.length ? `top: ${cardName(c, discard[discard.length - 1])}` : ""],
    random_events: [`${v.events_left ?? 0} left`, ...(v.events_done ?? []).slice(-2).map((e: string) => `done: ${c.ctx.name("event", e) ?? e}`)],
    bank: [`unused personalities: ${v.unused_personalities ?? 0}`],
  };
  for (const seat of v.seats ?? []) {
    // The name is cut, never the counts after it.
    const counts = `: ${seat.minions_in_supply} min., ${seat.buildings_in_supply} bld.`;
    facts.supply.push(clip(seatName(c.ctx, seat.player), 30 - counts.length) + counts);
  }
  c.offBoard.forEach((place, i) => {
    const x = 12 + i * (w + 8);
    const box = s("g", { class: "bd-pile", "data-place": place.id });
    box.append(s("rect", { class: "bd-hit", x, y: top, width: w, height: 108, rx: 8, fill: "#f4efe2", stroke: "#b9a77a" }));
    box.append(s("text", { x: x + 8, y: top + 18, "font-size": 13, "font-weight": 700 }, place.name));
    (facts[place.kind === "supply" ? "supply" : place.id] ?? []).filter(Boolean).forEach((line, j) => {
      box.append(s("text", { x: x + 8, y: top + 36 + j * 15, "font-size": 11 }, line.length > 30 ? `${line.slice(0, 29)}…` : line));
    });
    tip(box, `${place.name}: ${place.text ?? ""}`);
    offer(box, c.ctx.choosable("place", place.id), c.ctx);
    g.append(box);
  });
  return g;
}

/** What the marks mean, in the corner the city leaves free. */
function legend(x: number, y: number): SVGElement {
  const g = s("g", { class: "bd-legend", "font-size": 11, fill: "#333" });
  g.append(s("path", { d: `M${x} ${y} q6 -5 12 0 t12 0`, fill: "none", stroke: "#4a86c5", "stroke-width": 2 }));
  g.append(s("text", { x: x + 30, y: y + 4 }, "river area"));
  g.append(s("circle", { cx: x + 12, cy: y + 20, r: 7, fill: "#111", stroke: "#d32f2f", "stroke-width": 2 }));
  g.append(s("text", { x: x + 12, y: y + 24, "text-anchor": "middle", fill: "#fff", "font-weight": 700 }, "!"));
  g.append(s("text", { x: x + 30, y: y + 24 }, "trouble marker"));
  g.append(s("path", { d: `M${x + 4} ${y + 44} l8 -8 l8 8 v8 h-16 z`, fill: "#ccc", stroke: "#222" }));
  g.append(s("text", { x: x + 30, y: y + 46 }, "building (owner)"));
  g.append(s("line", { x1: x, x2: x + 24, y1: y + 62, y2: y + 62, stroke: "#b39c6b", "stroke-width": 4, "stroke-dasharray": "6 4" }));
  g.append(s("text", { x: x + 30, y: y + 66 }, "bridge or border"));
  g.append(s("text", { x: x + 30, y: y + 86 }, "T troll, D demon"));
  return g;
}

function mapSvg(c: Ctx): SVGElement {
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "group", "aria-label": "Ankh-Morpork board" });
  svg.append(s("rect", { x: 0, y: 0, width: W, height: H, fill: "#f7f1e1" }));
  const at = layout(c.areas);
  // the bridges and borders between neighbouring areas, under the areas
  const drawn = new Set<string>();
  for (const a of c.areas) {
    for (const b of a.neighbours ?? []) {
      const key = [a.id, b].sort().join("-");
      const p = at.get(a.id);
      const q = at.get(b);
      if (drawn.has(key) || !p || !q) continue;
      drawn.add(key);
      svg.append(s("line", { x1: p[0], y1: p[1], x2: q[0], y2: q[1], stroke: "#b39c6b", "stroke-width": 5, "stroke-dasharray": "10 6", "stroke-linecap": "round" }));
    }
  }
  for (const a of c.areas) svg.append(area(c, a, at.get(a.id) as [number, number]));
  svg.append(legend(14, 18));
  svg.append(offBoard(c));
  return svg;
}

/** The choice of an own City Area card when the step asks for one (its ability): the same area
 * choice also stands for the area on the map, where a minion or a building would go. The contract
 * says which thing a choice stands for (kind, id), not which of its drawings: the step's question
 * tells a City Area card apart. */
function cityAreaCard(ctx: BoardContext, area: number): ReturnType<BoardContext["choosable"]> {
  const choice = ctx.choosable("area", area);
  return choice && /City Area card/i.test(choice.step) ? choice : null;
}

function playerArea(c: Ctx, seat: Json): HTMLElement {
  const ctx = c.ctx;
  const v = c.view;
  const p = seat.player as number;
  const me = ctx.seat === p;
  const active = (v.active ?? []).includes(p) || v.current === p;
  const box = playerBox(ctx, p, active);
  box.append(row("Money", h("b", {}, `$${seat.money}`)));
  if (v.current === p && v.played?.length) {
    box.append(row("Played this turn", ...v.played.map((id: string) => playerCard(c, id))));
  }
  box.append(row("Cards in hand", String(seat.hand_size)));
  box.append(row("In supply", `${plural(seat.minions_in_supply, "minion")}, ${plural(seat.buildings_in_supply, "building")}`));
  const owned = (v.areas ?? []).filter((a: Json) => a.building === p && !a.card_lost);
  box.append(
    row(
      "City Area cards",
      ...(owned.length
        ? owned.map((a: Json) => card(ctx.name("area", a.area) ?? a.name, me ? cityAreaCard(ctx, a.area) : null, ctx, "", ctx.text("area", a.area)))
        : [h("span", { class: "bd-muted" }, "none")]),
    ),
  );
  if (seat.loans?.length) box.append(row("Loans", ...seat.loans.map((id: string) => playerCard(c, id, "bd-loan", false))));
  if (seat.penalties?.length) box.append(row("In front", ...seat.penalties.map((id: string) => playerCard(c, id, "", false))));
  if (seat.personality) {
    const goal = ctx.text("personality", seat.personality);
    box.append(
      h(
        "div",
        { class: "bd-personality" },
        h("b", {}, me ? "Your personality (secret): " : "Personality: "),
        ctx.name("personality", seat.personality) ?? seat.personality,
        goal ? h("div", { class: "bd-personality-goal" }, goal) : null,
      ),
    );
  }
  if (me) {
    const hand = h("div", { class: "bd-hand", "data-testid": "own-hand", "data-own-hand": "" }, h("span", { class: "bd-key" }, "Your hand"));
    const cards: string[] = seat.hand ?? [];
    hand.append(...(cards.length ? cards.map((id) => playerCard(c, id)) : [h("span", { class: "bd-muted" }, "no card")]));
    box.append(hand);
    const shown: string[] | null = v.shown_hand;
    if (shown?.length) {
      const other = h("div", { class: "bd-hand" }, h("span", { class: "bd-key" }, "The hand you are looking at"));
      other.append(...shown.map((id) => playerCard(c, id)));
      box.append(other);
    }
  }
  return box;
}

export const board: GameBoard = {
  render(root: HTMLElement, ctx: BoardContext): void {
    style("bd-kit-css", KIT_CSS);
    style("bd-am-css", CSS);
    const places = ctx.data.places ?? [];
    const c: Ctx = {
      ctx,
      view: ctx.view,
      areas: places.filter((p) => p.kind === "area"),
      offBoard: places.filter((p) => p.kind !== "area"),
    };
    root.replaceChildren();
    const wrap = h("div", { class: "bd-root bd-am", "data-game": "ankh_morpork" });
    wrap.append(h("div", { class: "bd-map" }, zoomable(mapSvg(c), "Ankh-Morpork board", "ankh_morpork")));
    const side = h("div", { class: "bd-side" });
    const seats: Json[] = [...(c.view.seats ?? [])];
    seats.sort((a, b) => Number(b.player === ctx.seat) - Number(a.player === ctx.seat) || a.player - b.player);
    for (const seat of seats) side.append(playerArea(c, seat));
    wrap.append(side);
    root.append(wrap);
  },
};

