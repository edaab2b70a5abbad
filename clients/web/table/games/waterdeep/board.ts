// Lords of Waterdeep: the board (round track, Cliffwatch Inn with its quest row, the basic
// buildings, Builder's Hall with its three tiles for sale, the purchased buildings on their lots,
// Waterdeep Harbor, the decks and the supply) drawn from the game data's places, with every agent
// on its space, and each player's Tavern (adventurers, Gold, VP, quests, intrigue cards, Lord).
// View: schemas/waterdeep/view.schema.json; ids: services/waterdeep/present.py (REFS).
import type { BoardContext, GameBoard, Place } from "../board.js";
import type { Json } from "../../../src/index.js";
import { CSS } from "./style.js";
import { boardDom, el, ensureStyle, inkOn, seatName } from "../dom.js";
import { explain, withText } from "../tips.js";

const { offer, pawn } = boardDom("gw");

const CUBES = ["cleric", "fighter", "rogue", "wizard"] as const;
/** Adventurer cubes as drawn (the printed cube colours). */
export const CUBE_COLOURS: Record<string, string> = { cleric: "#f4f4f4", fighter: "#f08a24", rogue: "#2b2b2b", wizard: "#7e3fb0" };
const QUEST_COLOURS: Record<string, string> = {
  arcana: "#7e3fb0",
  commerce: "#d8a800",
  piety: "#e9e4d6",
  skullduggery: "#3a3a3a",
  warfare: "#e07a1f",
  mandatory: "#b02a2a",
};
/** A building's stock, in the engine's order: cleric, fighter, rogue, wizard, gold, VP. */
const STOCK = ["Cleric", "Fighter", "Rogue", "Wizard", "Gold", "VP"];

interface Seat {
  player: number;
  gold: number;
  vp: number;
  cubes: Record<string, number>;
  agents: number;
  pool: number;
  intrigue_count: number;
  intrigue: string[] | null;
  lord: string | null;
  quests: string[];
  completed: string[];
  plots: string[];
  lieutenant: boolean;
}
interface Placed {
  player: number;
  space: string;
  ambassador: boolean;
  shares: string;
}
interface Building {
  tile: string;
  owner: number;
  stock: number[];
}

class Lookup {
  private readonly comps = new Map<string, { name: string; text: string; values: Record<string, Json> }>();
  constructor(readonly ctx: BoardContext) {
    for (const c of ctx.data.components ?? []) this.comps.set(`${c.kind}:${c.id}`, c);
  }
  get(kind: string, id: string): { name: string; text: string; values: Record<string, Json> } | undefined {
    return this.comps.get(`${kind}:${id}`) ?? this.comps.get(`${kind}:${id.replace(/\.\d+$/, "")}`);
  }
  name(kind: string, id: string): string {
    return this.ctx.name(kind, id) ?? this.get(kind, id)?.name ?? id.replaceAll("_", " ");
  }
}

const words = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).replaceAll("_", " ");

export const board: GameBoard = {
  render(root: HTMLElement, ctx: BoardContext): void {
    ensureStyle("gw-waterdeep-style", CSS);
    const v = ctx.view as Record<string, Json>;
    const seats = (v.seats ?? []) as Seat[];
    const placed = (v.placed ?? []) as Placed[];
    const look = new Lookup(ctx);
    const places = (ctx.data.places ?? []) as Place[];
    const byId = new Map(places.map((p) => [p.id, p]));
    const of = (kind: string, group?: string) => places.filter((p) => p.kind === kind && (group === undefined || p.group === group)).sort((a, b) => a.x - b.x || a.y - b.y);

    const place = (p: Place, tag: string, cls: string, ...children: (Node | string | null)[]): HTMLElement => {
      const node = el(tag, { class: `gw-place ${cls}`, "data-place": p.id, title: p.text ? `${p.name}: ${p.text}` : p.name }, ...children);
      offer(node, ctx.choosable("place", p.id), ctx);
      return node;
    };
    /** The agents on a space (and on the Harbor space an agent there shares). */
    const agentsOn = (space: string): HTMLElement => {
      const box = el("div", { class: "gw-agents" });
      for (const a of placed) {
        if (a.space !== space && a.shares !== space) continue;
        const token = a.ambassador
          ? el("span", { class: "gw-ambassador", style: `border-color:${ctx.seatColour(a.player)}`, title: `Ambassador, assigned by ${seatName(ctx, a.player)}` }, "Amb")
          : pawn(ctx, a.player, "gw-agent");
        if (a.shares === space) token.classList.add("gw-shared");
        box.append(token);
      }
      return box;
    };
    const actionSpace = (p: Place, cls = "", label = p.name): HTMLElement =>
      place(p, "div", `gw-space ${cls}`, el("div", { class: "gw-space-name" }, label), el("div", { class: "gw-small" }, p.text ?? ""), agentsOn(p.id));
    const questCard = (id: string, extra: Record<string, string> = {}): HTMLElement => {
      const q = look.get("quest", id);
      const type = String(q?.values.type ?? "mandatory");
      const bg = QUEST_COLOURS[type] ?? "#888";
      const node = el("div", { class: "gw-quest", "data-quest": id, ...extra },
        el("div", { class: "gw-quest-type", style: `background:${bg};color:${inkOn(bg)}` }, ctx.name("quest_type", type) ?? words(type), q?.values.plot ? " · plot" : ""),
        el("div", { class: "gw-quest-name" }, look.name("quest", id)));
      withText(node, q?.text, look.name("quest", id), "gw-small gw-card-text");
      offer(node, ctx.choosable("quest", id), ctx);
      return node;
    };

    const where = resourcesFrom(v, ctx.seat);
    const boardEl = el("section", { class: "gw-board", "data-testid": "waterdeep-board" });

    // The round track.
    const round = Number(v.round ?? 0);
    const rounds = el("div", { class: "gw-rounds" });
    for (const p of of("round_space")) {
      const r = Number(p.id.split(".")[1]);
      rounds.append(place(p, "div", `gw-round${r === round ? " gw-now" : r < round ? " gw-past" : ""}`, p.name, r === 5 ? el("div", { class: "gw-small" }, "+1 agent") : null));
    }
    boardEl.append(el("div", { class: "gw-caption" }, "Round track", v.phase ? ` · ${words(String(v.phase))} phase` : ""), rounds);

    // Cliffwatch Inn: its three spaces and four face-up quests, the Quest deck and discard pile.
    const inn = byId.get("cliffwatch_inn");
    if (inn) {
      const block = el("div", { class: "gw-building-block" });
      block.append(place(inn, "div", "gw-building-head", inn.name, el("span", { class: "gw-small" }, ` — ${inn.text ?? ""}`)));
      const spaces = el("div", { class: "gw-row" });
      for (const p of of("action_space", "cliffwatch_inn")) spaces.append(actionSpace(p, "", `Space ${p.id.split("_").pop()}`));
      block.append(spaces);
      const row = el("div", { class: "gw-row" });
      const quests = (v.inn ?? []) as string[];
      of("inn_slot").forEach((p, i) => {
        const q = quests[i];
        row.append(place(p, "div", "gw-slot", el("div", { class: "gw-slot-name" }, p.name), q ? questCard(q) : el("div", { class: "gw-muted" }, "empty")));
      });
      block.append(row);
      const piles = el("div", { class: "gw-row" });
      for (const id of ["quest_deck", "quest_discard", "revealed_quests"]) {
        const p = byId.get(id);
        if (!p) continue;
        if (id === "quest_deck") piles.append(place(p, "div", "gw-pile", p.name, el("b", {}, ` ${v.quest_deck_size ?? 0}`)));
        if (id === "quest_discard") {
          const d = (v.quest_discard ?? []) as string[];
          piles.append(place(p, "div", "gw-pile", p.name, el("b", {}, ` ${d.length}`), d.length ? el("div", { class: "gw-small" }, `top: ${look.name("quest", d[d.length - 1])}`) : null));
        }
        if (id === "revealed_quests") {
          const r = (v.revealed ?? []) as string[];
          const box = place(p, "div", "gw-pile", p.name, r.length ? null : el("span", { class: "gw-muted" }, " none"));
          if (r.length) box.append(el("div", { class: "gw-row" }, ...r.map((q) => questCard(q))));
          piles.append(box);
        }
      }
      block.append(piles);
      boardEl.append(block);
    }

    // The basic buildings in a row.
    const basics = el("div", { class: "gw-basics" });
    for (const p of of("action_space", "basic_buildings")) basics.append(actionSpace(p, "gw-basic"));
    boardEl.append(el("h4", {}, "Buildings of Waterdeep"), basics);

    // Builder's Hall and its three tiles for sale, the Building stack.
    const hallSpace = byId.get("builders_hall");
    const hall = (v.hall ?? []) as string[];
    const hallVp = (v.hall_vp ?? []) as number[];
    const hallBlock = el("div", { class: "gw-building-block" });
    if (hallSpace) hallBlock.append(actionSpace(hallSpace, "gw-hall-space"));
    const tiles = el("div", { class: "gw-row" });
    of("hall_slot").forEach((p, i) => {
      const tile = hall[i];
      const vp = hallVp[i] ?? 0;
      tiles.append(place(p, "div", "gw-slot", el("div", { class: "gw-slot-name" }, p.name), tile ? tileCard(ctx, look, tile, null, vp) : el("div", { class: "gw-muted" }, "empty")));
    });
    for (const p of of("deck", "builders_hall")) tiles.append(place(p, "div", "gw-pile", p.name, el("b", {}, ` ${v.stack_size ?? 0}`)));
    hallBlock.append(tiles);
    boardEl.append(el("h4", {}, "Builder's Hall"), hallBlock);

    // The purchased buildings, in the order bought, on the lots; agents on them.
    const lots = el("div", { class: "gw-lots" });
    const bought = (v.buildings ?? []) as Building[];
    const lotPlaces = of("building_lot").sort((a, b) => Number(a.id.split(".")[1]) - Number(b.id.split(".")[1]));
    lotPlaces.forEach((p, i) => {
      const b = bought[i];
      lots.append(place(p, "div", `gw-lot${b ? "" : " gw-empty-lot"}`, b ? tileCard(ctx, look, b.tile, b, 0, agentsOn(b.tile)) : el("div", { class: "gw-muted gw-small" }, p.name)));
    });
    for (const b of bought.slice(lotPlaces.length)) lots.append(el("div", { class: "gw-lot" }, tileCard(ctx, look, b.tile, b, 0, agentsOn(b.tile))));
    boardEl.append(el("h4", {}, `Purchased buildings (${bought.length})`), lots);

    // Waterdeep Harbor, the Intrigue deck and discard pile, the supply.
    const harbor = byId.get("waterdeep_harbor");
    const bottom = el("div", { class: "gw-row gw-bottom" });
    if (harbor) {
      const block = el("div", { class: "gw-building-block" });
      block.append(place(harbor, "div", "gw-building-head", harbor.name, el("span", { class: "gw-small" }, ` — ${harbor.text ?? ""}`)));
      const spaces = el("div", { class: "gw-row" });
      for (const p of of("action_space", "waterdeep_harbor")) spaces.append(actionSpace(p, "", `Space ${p.id.split("_").pop()}`));
      block.append(spaces);
      bottom.append(block);
    }
    const decks = el("div", { class: "gw-building-block" });
    const id = byId.get("intrigue_deck");
    if (id) decks.append(place(id, "div", "gw-pile", id.name, el("b", {}, ` ${v.intrigue_deck_size ?? 0}`)));
    const idis = byId.get("intrigue_discard");
    if (idis) {
      const d = (v.intrigue_discard ?? []) as string[];
      decks.append(place(idis, "div", "gw-pile", idis.name, el("b", {}, ` ${d.length}`), d.length ? el("div", { class: "gw-small" }, `top: ${look.name("intrigue_copy", d[d.length - 1])}`) : null));
    }
    const supply = byId.get("supply");
    if (supply) {
      const cubes = el("div", { class: "gw-row" });
      for (const c of CUBES) cubes.append(where === "supply" ? offer(cube(ctx, c, ""), ctx.choosable("resource", c), ctx) : cube(ctx, c, ""));
      decks.append(place(supply, "div", "gw-pile", supply.name, cubes));
    }
    bottom.append(decks);
    boardEl.append(bottom);

    // The players' Taverns: the viewer's own first and set apart.
    const playersEl = el("section", { class: "gw-players" });
    const order = [...seats].sort((a, b) => Number(b.player === ctx.seat) - Number(a.player === ctx.seat) || a.player - b.player);
    const active = new Set(((v.active ?? []) as number[]).map(Number));
    for (const s of order) playersEl.append(tavern(ctx, look, v, s, byId.get(`tavern.${s.player}`), s.player === ctx.seat, active.has(s.player), questCard, where));

    // The frame is a size container: the layout follows the width the shell gives the board.
    root.replaceChildren(el("div", { class: "gw-frame" }, el("div", { class: "gw-waterdeep", "data-game": "waterdeep" }, boardEl, playersEl)));
  },
};

/**
 * Where an adventurer the viewer is asked for comes from, by the decision it owes (the view's
 * pending stack): returned from its own Tavern, taken from an opponent's, else from the supply.
 */
function resourcesFrom(v: Record<string, Json>, seat: number | null): "supply" | "own" | "opponent" {
  if (seat === null) return "supply";
  const pending = ((v.pending ?? []) as { player: number; kind: string }[]).filter((d) => d.player === seat);
  const kind = pending.length ? pending[pending.length - 1].kind : "";
  if (kind === "return_cube" || kind === "miracle") return "own";
  if (kind === "steal") return "opponent";
  return "supply";
}

function cube(ctx: BoardContext, kind: string, count: number | string): HTMLElement {
  const bg = CUBE_COLOURS[kind];
  const name = ctx.name("resource", kind) ?? words(kind);
  return el("span", { class: "gw-cube", style: `background:${bg};color:${inkOn(bg)}`, title: `${name}${count !== "" ? `: ${count}` : ""}`, "data-resource": kind },
    name, count !== "" ? el("b", {}, ` ${count}`) : null);
}

function tileCard(ctx: BoardContext, look: Lookup, tile: string, owned: Building | null, vp: number, agents?: HTMLElement): HTMLElement {
  const t = look.get("building", tile);
  const owner = owned ? owned.owner : -1;
  const colour = owner >= 0 ? ctx.seatColour(owner) : "#6b5b3e";
  const stock = owned ? owned.stock.map((n, i) => (n ? `${n} ${STOCK[i]}` : "")).filter(Boolean).join(", ") : "";
  const node = el("div", { class: "gw-tile", "data-building": tile },
    el("div", { class: "gw-tile-head", style: `background:${colour};color:${inkOn(colour)}` }, look.name("building", tile)),
    el("div", { class: "gw-small" }, owned ? `owner: ${seatName(ctx, owner)}` : `cost ${t?.values.cost ?? "?"} gold${vp ? ` · ${vp} VP on it` : ""}`),
    stock ? el("div", { class: "gw-small gw-stock" }, `on it: ${stock}`) : null,
    agents ?? null);
  // The cost is on the tile's second line: the text shown starts at what a visitor does.
  withText(node, (t?.text ?? "").replace(/^Costs \d+ Gold\. /, ""), look.name("building", tile), "gw-small gw-tile-text gw-card-text");
  offer(node, ctx.choosable("building", tile), ctx);
  return node;
}

function tavern(
  ctx: BoardContext,
  look: Lookup,
  v: Record<string, Json>,
  s: Seat,
  mat: Place | undefined,
  mine: boolean,
  acting: boolean,
  questCard: (id: string) => HTMLElement,
  where: string,
): HTMLElement {
  const colour = ctx.seatColour(s.player);
  const matName = `${seatName(ctx, s.player)}'s Tavern`;
  const area = el("div", { class: `gw-player${mine ? " gw-mine" : ""}${acting ? " gw-acting" : ""}`, style: `border-color:${colour}`, "data-seat": String(s.player), "data-place": mat?.id, title: mat ? matName : undefined });
  const head = el("div", { class: "gw-player-head", style: `background:${colour};color:${inkOn(colour)}` },
    el("b", {}, seatName(ctx, s.player)), mine ? " (you)" : "", acting ? (mine ? " · your move" : " · to move") : "",
    Number(v.first) === s.player ? el("span", { class: "gw-badge" }, "First player") : null,
    Number(v.ambassador) === s.player ? el("span", { class: "gw-badge" }, "holds the Ambassador") : null,
    s.lieutenant ? el("span", { class: "gw-badge" }, "Lieutenant") : null);
  offer(head, ctx.choosable("seat", s.player), ctx);
  area.append(head);
  area.append(
    el("div", { class: "gw-stats" },
      stat("VP", s.vp), stat("Gold", s.gold), stat("Agents in pool", `${s.pool} of ${s.agents}`), stat("Intrigue cards", s.intrigue_count)),
  );
  const cubes = el("div", { class: "gw-row" }, el("span", { class: "gw-label" }, matName));
  for (const c of CUBES) {
    const node = cube(ctx, c, s.cubes?.[c] ?? 0);
    if ((mine && where === "own") || (!mine && where === "opponent" && (s.cubes?.[c] ?? 0) > 0)) offer(node, ctx.choosable("resource", c), ctx);
    cubes.append(node);
  }
  area.append(cubes);
  if (s.lord) {
    const lord = look.get("lord", s.lord);
    area.append(explain(el("div", { class: "gw-lord" }, el("span", { class: "gw-label" }, mine ? "Your Lord (secret)" : "Lord"), el("b", {}, look.name("lord", s.lord)), el("span", { class: "gw-small" }, ` — ${lord?.text ?? ""}`)), lord?.text, look.name("lord", s.lord)));
  }
  if (mine && s.intrigue) {
    const hand = el("div", { class: "gw-hand", "data-testid": "own-hand", "data-own-hand": "" }, el("div", { class: "gw-label gw-hand-title" }, `Your intrigue cards (${s.intrigue.length})`));
    for (const card of s.intrigue) {
      const node = el("div", { class: "gw-intrigue", "data-intrigue": card }, el("div", { class: "gw-intrigue-name" }, look.name("intrigue_copy", card)));
      withText(node, ctx.text("intrigue_copy", card), look.name("intrigue_copy", card), "gw-small gw-card-text");
      offer(node, ctx.choosable("intrigue_copy", card), ctx);
      hand.append(node);
    }
    if (!s.intrigue.length) hand.append(el("span", { class: "gw-muted gw-small" }, "none"));
    area.append(hand);
  }
  const active = el("div", { class: "gw-quests" });
  for (const q of s.quests ?? []) active.append(questCard(q));
  if (!s.quests?.length) active.append(el("span", { class: "gw-muted gw-small" }, "none"));
  area.append(el("div", { class: "gw-label" }, `Active quests (${s.quests?.length ?? 0})`), active);
  const done = el("div", { class: "gw-row gw-small" }, el("span", { class: "gw-label" }, `Completed (${s.completed?.length ?? 0})`));
  for (const q of s.completed ?? []) {
    const type = String(look.get("quest", q)?.values.type ?? "mandatory");
    const bg = QUEST_COLOURS[type] ?? "#888";
    done.append(explain(el("span", { class: "gw-done", style: `border-left-color:${bg}` }, look.name("quest", q)), ctx.text("quest", q), look.name("quest", q)));
  }
  if (!s.completed?.length) done.append(el("span", { class: "gw-muted" }, "none"));
  area.append(done);
  if (s.plots?.length) {
    area.append(el("div", { class: "gw-row gw-small" }, el("span", { class: "gw-label" }, "Plot quests in effect"), ...s.plots.map((q) => explain(el("span", { class: "gw-done" }, look.name("quest", q)), ctx.text("quest", q), look.name("quest", q)))));
  }
  return area;
}

function stat(label: string, value: string | number): HTMLElement {
  return el("span", { class: "gw-stat" }, el("span", { class: "gw-muted" }, `${label} `), el("b", {}, String(value)));
}

