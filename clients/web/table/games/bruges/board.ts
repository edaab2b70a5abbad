// Bruges: the board (reputation track, dice, statues, draw piles, threat tracks, the four guard
// houses with their canal sections, the scoring track) drawn from the game data's places, and
// each player's area (houses with their persons, workers, threats, guilders, hand) beside it.
// View: schemas/bruges/view.schema.json; ids: services/bruges/present.py (REFS).
import type { BoardContext, GameBoard, Place } from "../board.js";
import type { Json } from "../../../src/index.js";
import { CSS } from "./style.js";
import { boardDom, el, ensureStyle, inkOn, seatName } from "../dom.js";
import { explain, withText } from "../tips.js";

const { offer, pawn } = boardDom("gb");

const COLOURS = ["blue", "brown", "red", "purple", "yellow"] as const;
/** The five card colours as drawn (cards, dice, workers, canal spaces). */
export const CARD_COLOURS: Record<string, string> = {
  blue: "#2d6cb5",
  brown: "#8b5a2b",
  red: "#c0392b",
  purple: "#7b3f9e",
  yellow: "#e8c21a",
};
const TASK_GIVE = "give_workers";

interface Seat {
  player: number;
  score: number;
  guilders: number;
  workers: Record<string, number>;
  threats: Record<string, number>;
  reputation: number;
  hand_size: number;
  hand_colours: string[];
  hand: number[] | null;
  known_hand: number[];
  houses: { colour: string; card: number | null; person: number; used: boolean }[];
  canals: [number, number];
  canal_spaces: [string[], string[]];
  statues: number[];
  majorities: Record<string, boolean>;
  plays_left: number;
}

class Lookup {
  private readonly comps = new Map<string, { name: string; text: string; values: Record<string, Json> }>();
  constructor(readonly ctx: BoardContext) {
    for (const c of ctx.data.components ?? []) this.comps.set(`${c.kind}:${c.id}`, c);
  }
  values(kind: string, id: string | number): Record<string, Json> {
    return this.comps.get(`${kind}:${id}`)?.values ?? {};
  }
  name(kind: string, id: string | number, fallback: string): string {
    return this.ctx.name(kind, id) ?? fallback;
  }
}

const title = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function swatch(colour: string, text: string | number = "", extra = "", tip = ""): HTMLElement {
  const bg = CARD_COLOURS[colour] ?? "#999";
  return el("span", { class: `gb-swatch ${extra}`.trim(), style: `background:${bg};color:${inkOn(bg)}`, title: tip || title(colour) }, String(text));
}

export const board: GameBoard = {
  render(root: HTMLElement, ctx: BoardContext): void {
    ensureStyle("gb-bruges-style", CSS);
    const v = ctx.view as Record<string, Json>;
    const seats = (v.seats ?? []) as Seat[];
    const look = new Lookup(ctx);
    const places = (ctx.data.places ?? []) as Place[];
    const of = (kind: string) => places.filter((p) => p.kind === kind);

    const place = (p: Place, tag: string, cls: string, ...children: (Node | string | null)[]): HTMLElement => {
      const tip = p.kind === "guard_house" ? guardTip(ctx, p, seats.length) : p.text ? `${p.name}: ${p.text}` : p.name;
      const node = el(tag, { class: `gb-place ${cls}`, "data-place": p.id, title: tip }, ...children);
      offer(node, ctx.choosable("place", p.id), ctx);
      return node;
    };

    const boardEl = el("section", { class: "gb-board", "data-testid": "bruges-board" });
    const phase = ctx.name("phase", String(v.phase)) ?? "";
    boardEl.append(el("div", { class: "gb-caption" }, `Round ${v.round ?? "?"}`, phase ? ` · ${phase}` : "", v.last_round ? " · last round" : ""));

    // The reputation track: the town hall and steps 1-12, each with its points; every pawn on it.
    const track = el("div", { class: "gb-rep" });
    const repPoints = (v.reputation_points ?? []) as number[];
    for (const p of of("reputation_step").sort((a, b) => Number(a.values?.step) - Number(b.values?.step))) {
      const step = Number(p.values?.step ?? 0);
      const pts = step ? (repPoints[step - 1] ?? Number(p.values?.points ?? 0)) : 0;
      const pawns = el("div", { class: "gb-pawns" });
      for (const s of seats) if (s.reputation === step) pawns.append(pawn(ctx, s.player));
      track.append(
        place(p, "div", `gb-rep-step${step === 0 ? " gb-townhall" : ""}`,
          el("div", { class: "gb-rep-label" }, step === 0 ? p.name : String(step)),
          el("div", { class: "gb-small" }, step === 0 ? "start" : `${pts} pts`),
          pawns),
      );
    }
    boardEl.append(el("h4", {}, "Reputation"), track);

    // Dice, the statue pile, the draw piles, the extra pile and the discard pile.
    const supply = el("div", { class: "gb-supply" });
    const dice = (v.dice ?? {}) as Record<string, number>;
    const diceBox = el("div", { class: "gb-group" }, el("h4", {}, "Dice"));
    const diceRow = el("div", { class: "gb-row" });
    for (const p of of("die").sort((a, b) => a.x - b.x)) {
      const colour = String(p.values?.colour ?? "");
      const n = dice[colour] ?? 0;
      diceRow.append(place(p, "div", "gb-die-box", swatch(colour, n > 0 ? n : "–", "gb-die", `${p.name}: ${n > 0 ? n : "not rolled"}`), el("div", { class: "gb-small" }, p.name)));
    }
    diceBox.append(diceRow);
    supply.append(diceBox);
    for (const p of of("statue_pile")) {
      const left = (v.statues ?? []) as number[];
      const body = el("div", { class: "gb-row" });
      for (const s of left) body.append(el("span", { class: "gb-statue", title: `a statue worth ${s} points` }, String(s)));
      if (!left.length) body.append(el("span", { class: "gb-muted" }, "none left"));
      supply.append(el("div", { class: "gb-group" }, el("h4", {}, "Statues"), place(p, "div", "gb-pile", el("div", {}, p.name), body)));
    }
    const cards = el("div", { class: "gb-row" });
    const sizes = (v.pile_sizes ?? []) as number[];
    const tops = (v.pile_tops ?? []) as string[];
    for (const p of of("draw_pile").sort((a, b) => a.x - b.x)) {
      if (p.id === "pile.extra") {
        const n = Number(v.extra_size ?? 0);
        cards.append(place(p, "div", "gb-pile", el("div", {}, p.name), el("div", { class: "gb-count" }, `${n} cards`), el("div", { class: "gb-small" }, v.extra_in ? "in play" : "set aside")));
        continue;
      }
      const i = Number(p.values?.pile ?? p.id.split(".")[1]);
      const top = tops[i] ?? "";
      cards.append(
        place(p, "div", "gb-pile",
          el("div", {}, p.name),
          el("div", { class: "gb-count" }, `${sizes[i] ?? 0} cards`),
          top ? el("div", { class: "gb-small" }, swatch(top, "", "gb-dot"), ` ${title(top)} on top`) : el("div", { class: "gb-small gb-muted" }, "empty")),
      );
    }
    for (const p of of("discard_pile")) {
      const discard = (v.discard ?? []) as number[];
      const last = discard.length ? discard[discard.length - 1] : null;
      cards.append(
        place(p, "div", "gb-pile",
          el("div", {}, p.name),
          el("div", { class: "gb-count" }, `${discard.length} cards`),
          last !== null ? el("div", { class: "gb-small" }, "top: ", personChip(ctx, look, last, false)) : el("div", { class: "gb-small gb-muted" }, "empty")),
      );
    }
    supply.append(el("div", { class: "gb-group" }, el("h4", {}, "Cards"), cards));
    boardEl.append(supply);

    // The threat tracks: per colour, three spaces; each seat's pawn at its number of markers.
    const threats = el("div", { class: "gb-threats" });
    for (const colour of COLOURS) {
      const spaces = of("threat_space").filter((p) => p.values?.colour === colour).sort((a, b) => Number(a.values?.marker) - Number(b.values?.marker));
      if (!spaces.length) continue;
      const calamity = ctx.name("calamity", colour) ?? String(look.values("colour", colour).calamity ?? "");
      const row = el("div", { class: "gb-row" });
      for (const p of spaces) {
        const n = Number(p.values?.marker ?? 0);
        const here = el("div", { class: "gb-pawns" });
        for (const s of seats) if ((s.threats?.[colour] ?? 0) === n) here.append(pawn(ctx, s.player));
        row.append(place(p, "div", `gb-threat${n === spaces.length ? " gb-strike" : ""}`, el("div", { class: "gb-small" }, n === spaces.length ? `${n}: ${calamity}` : String(n)), here));
      }
      const bg = CARD_COLOURS[colour];
      threats.append(el("div", { class: "gb-threat-track", style: `border-color:${bg}` }, el("div", { class: "gb-threat-head", style: `background:${bg};color:${inkOn(bg)}` }, `${title(colour)} threats`), row));
    }
    boardEl.append(el("h4", {}, "Threat tracks (the third marker strikes)"), threats);

    // The guard houses: each seat builds at its own, two sections of five spaces outward.
    const canals = el("div", { class: "gb-canals" });
    for (const g of of("guard_house").sort((a, b) => a.id.localeCompare(b.id))) {
      const house = Number(g.id.split(".")[1]);
      const owner = seats.find((s) => s.player === house);
      const spaces = places.filter((p) => p.kind === "canal_space" && Number(p.values?.guard_house) === house);
      const section = (side: number) =>
        spaces.filter((p) => Number(p.values?.section) === side).sort((a, b) => Number(a.values?.space) - Number(b.values?.space));
      const row = el("div", { class: "gb-canal-row" });
      const drawSpace = (p: Place) => {
        const side = Number(p.values?.section);
        const n = Number(p.values?.space);
        const colour = String(p.values?.colour ?? "");
        const built = owner ? (owner.canals?.[side] ?? 0) >= n : false;
        const bg = CARD_COLOURS[colour] ?? "#ccc";
        const node = place(p, "div", `gb-canal${built ? " gb-built" : ""}`,
          el("div", { class: "gb-cost" }, `${p.values?.cost ?? "?"}g`, n === 3 ? el("span", { class: "gb-star", title: "3 points at the end with a token here" }, " ★") : null),
          built && owner ? el("div", { class: "gb-token", style: `background:${ctx.seatColour(owner.player)}`, title: `${seatName(ctx, owner.player)}'s canal token` }) : null);
        node.style.background = bg;
        node.style.color = inkOn(bg);
        return node;
      };
      for (const p of section(0).reverse()) row.append(drawSpace(p));
      const sealColour = owner ? ctx.seatColour(owner.player) : "#bbb";
      row.append(place(g, "div", "gb-guard", el("div", { class: "gb-seal", style: `background:${sealColour};color:${inkOn(sealColour)}` }, String(house + 1))));
      for (const p of section(1)) row.append(drawSpace(p));
      const statues = owner?.statues?.length ? el("span", {}, " · statues ", ...owner.statues.map((s) => el("span", { class: "gb-statue", title: `a statue worth ${s} points` }, String(s)))) : null;
      canals.append(
        el("div", { class: `gb-guardhouse${owner ? "" : " gb-unused"}`, style: owner ? `border-color:${ctx.seatColour(owner.player)}` : "" },
          el("div", { class: "gb-gh-head" }, el("b", {}, g.name), " ", owner ? el("span", {}, "· ", seatName(ctx, owner.player)) : el("span", { class: "gb-muted" }, "· unused"), statues,
            el("span", { class: "gb-small gb-muted" }, "  left ◀ seal ▶ right")),
          row),
      );
    }
    boardEl.append(el("h4", {}, "Canals (colour, cost in guilders; built tokens in the owner's colour)"), canals);

    for (const p of of("score_track")) {
      const scores = el("div", { class: "gb-row gb-scores" });
      for (const s of [...seats].sort((a, b) => b.score - a.score)) scores.append(el("span", { class: "gb-score" }, pawn(ctx, s.player), ` ${seatName(ctx, s.player)} ${s.score}`));
      boardEl.append(place(p, "div", "gb-scoretrack", el("h4", {}, p.name), scores));
    }

    // The players' areas: the viewer's own first and set apart.
    const playersEl = el("section", { class: "gb-players" });
    const order = [...seats].sort((a, b) => Number(b.player === ctx.seat) - Number(a.player === ctx.seat) || a.player - b.player);
    const active = new Set(((v.active ?? []) as number[]).map(Number));
    for (const s of order) playersEl.append(playerArea(ctx, look, v, s, s.player === ctx.seat, active.has(s.player)));

    // The frame is a size container: the layout follows the width the shell gives the board.
    root.replaceChildren(el("div", { class: "gb-frame" }, el("div", { class: "gb-bruges", "data-game": "bruges" }, boardEl, playersEl)));
  },
};

/** A guard house's tooltip: whose seal it is, by the seat's name. */
function guardTip(ctx: BoardContext, p: Place, players: number): string {
  const house = Number(p.id.split(".")[1]);
  return house < players ? `${p.name}: ${seatName(ctx, house)}'s seal; the sections start here` : `${p.name}: unused with ${players} players`;
}

function personChip(ctx: BoardContext, look: Lookup, id: number, clickable: boolean): HTMLElement {
  const vals = look.values("person", id);
  const colour = String(vals.colour ?? "");
  const name = look.name("person", id, `card ${id}`);
  const bg = CARD_COLOURS[colour] ?? "#999";
  const node = el("span", { class: "gb-person", "data-person": String(id) },
    el("span", { class: "gb-band", style: `background:${bg}` }), el("span", { class: "gb-person-name" }, name));
  // A person in the viewer's own houses shows what it does; any other says it in its tooltip.
  if (clickable) withText(node, ctx.text("person", id), `${name} (${colour})`, "gb-card-text");
  else explain(node, ctx.text("person", id), `${name} (${colour})`);
  if (clickable) offer(node, ctx.choosable("person", id), ctx);
  return node;
}

function playerArea(ctx: BoardContext, look: Lookup, v: Record<string, Json>, s: Seat, mine: boolean, acting: boolean): HTMLElement {
  const colour = ctx.seatColour(s.player);
  const area = el("div", { class: `gb-player${mine ? " gb-mine" : ""}${acting ? " gb-acting" : ""}`, style: `border-color:${colour}`, "data-seat": String(s.player) });
  const head = el("div", { class: "gb-player-head", style: `background:${colour};color:${inkOn(colour)}` },
    el("b", {}, seatName(ctx, s.player)), mine ? " (you)" : "", acting ? el("span", { class: "gb-acting-tag" }, mine ? " · your move" : " · to move") : "");
  offer(head, ctx.choosable("seat", s.player), ctx);
  area.append(head);
  const majorities = Object.entries(s.majorities ?? {}).filter(([, held]) => held).map(([k]) => ctx.name("majority", k) ?? k);
  area.append(
    el("div", { class: "gb-stats" },
      stat(v.phase === "over" ? "Final score" : "Score so far", s.score), stat("Guilders", s.guilders), stat("Reputation", s.reputation),
      v.phase === "play" ? stat("Plays left", s.plays_left) : null,
      stat("Canals", `${s.canals?.[0] ?? 0} + ${s.canals?.[1] ?? 0}`),
      s.statues?.length ? stat("Statues", s.statues.join(", ")) : null),
  );
  if (majorities.length) area.append(el("div", { class: "gb-small" }, "Majorities: ", majorities.join(", ")));

  // Workers and threat markers per colour; the viewer's own may be the current step's choice.
  const tasks = ((v.tasks ?? []) as { seat: number; kind: string }[]).filter((t) => t.seat === s.player);
  const giving = tasks.length > 0 && tasks[0].kind === TASK_GIVE;
  const workers = el("div", { class: "gb-row" }, el("span", { class: "gb-label" }, "Workers"));
  const threats = el("div", { class: "gb-row" }, el("span", { class: "gb-label" }, "Threats"));
  for (const c of COLOURS) {
    const w = swatch(c, s.workers?.[c] ?? 0, "gb-chip", `${title(c)} workers: ${s.workers?.[c] ?? 0}`);
    const t = swatch(c, `${s.threats?.[c] ?? 0}/3`, "gb-chip gb-threat-chip", `${title(c)} threat markers: ${s.threats?.[c] ?? 0}`);
    if (mine) offer(giving ? w : t, ctx.choosable("colour", c), ctx);
    workers.append(w);
    threats.append(t);
  }
  area.append(workers, threats);

  // Houses with the persons in them.
  const houses = el("div", { class: "gb-houses" });
  s.houses?.forEach((h, i) => {
    const bg = CARD_COLOURS[h.colour] ?? "#999";
    const houseName = ctx.name("house_slot", i) ?? `House ${i + 1}`;
    const body = el("div", { class: `gb-house${h.used ? " gb-used" : ""}`, "data-house": String(i), title: `${houseName} (${h.colour})` },
      el("div", { class: "gb-house-roof", style: `background:${bg};color:${inkOn(bg)}` }, houseName),
      h.person >= 0 ? personChip(ctx, look, h.person, mine) : el("span", { class: "gb-muted gb-small" }, "empty"),
      h.used ? el("div", { class: "gb-small gb-muted" }, "used this round") : null);
    if (mine) offer(body, ctx.choosable("house_slot", i), ctx);
    houses.append(body);
  });
  if (!s.houses?.length) houses.append(el("span", { class: "gb-muted gb-small" }, "no houses yet"));
  area.append(el("div", { class: "gb-label" }, "Houses"), houses);

  // The hand: the viewer's own by name; another's by count and the colours of the backs.
  if (mine && s.hand) {
    const hand = el("div", { class: "gb-hand", "data-testid": "own-hand", "data-own-hand": "" }, el("div", { class: "gb-label gb-hand-title" }, `Your hand (${s.hand_size})`));
    const unseen = [...(s.hand_colours ?? [])];
    for (const id of s.hand) {
      const at = unseen.indexOf(String(look.values("person", id).colour));
      if (at >= 0) unseen.splice(at, 1);
      hand.append(handCard(ctx, look, id));
    }
    // Cards drawn this phase that the seat has not looked at yet: only their backs.
    if (unseen.length) {
      const backs = el("div", { class: "gb-unseen" }, el("div", { class: "gb-small" }, `${unseen.length} drawn, not looked at yet`));
      const row = el("div", { class: "gb-row" });
      for (const c of unseen) row.append(swatch(c, "?", "gb-back", `a ${c} card, not looked at yet`));
      backs.append(row);
      hand.append(backs);
    }
    area.append(hand);
  } else {
    const backs = el("div", { class: "gb-row" }, el("span", { class: "gb-label" }, `Hand: ${s.hand_size} card${s.hand_size === 1 ? "" : "s"}`));
    for (const c of s.hand_colours ?? []) backs.append(swatch(c, "", "gb-back", `a ${c} card`));
    area.append(backs);
    if (s.known_hand?.length) {
      const known = el("div", { class: "gb-row gb-small" }, "Known in hand: ");
      for (const id of s.known_hand) known.append(personChip(ctx, look, id, false));
      area.append(known);
    }
  }
  return area;
}

function handCard(ctx: BoardContext, look: Lookup, id: number): HTMLElement {
  const vals = look.values("person", id);
  const colour = String(vals.colour ?? "");
  const bg = CARD_COLOURS[colour] ?? "#999";
  const name = look.name("person", id, `card ${id}`);
  const group = vals.group ? ctx.name("group", String(vals.group)) ?? String(vals.group) : "";
  const node = el("div", { class: "gb-card", "data-person": String(id) },
    el("div", { class: "gb-card-band", style: `background:${bg};color:${inkOn(bg)}` }, title(colour)),
    el("div", { class: "gb-card-name" }, name),
    el("div", { class: "gb-small" }, `price ${vals.price ?? "?"} · ${vals.points ?? 0} pts${group ? ` · ${group}` : ""}`));
  withText(node, ctx.text("person", id), `${name} (${colour}, price ${vals.price ?? "?"}, ${vals.points ?? 0} points)`, "gb-card-text");
  offer(node, ctx.choosable("person", id), ctx);
  return node;
}

function stat(label: string, value: string | number): HTMLElement {
  return el("span", { class: "gb-stat" }, el("span", { class: "gb-muted" }, `${label} `), el("b", {}, String(value)));
}
