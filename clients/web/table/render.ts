// Views, actions and events as a person reads them: ids become names from the game's data
// (GetGameData), per-seat lists become tables, and each game puts its board first.
import type { Component, GameData, Json } from "../src/index.js";

export function h(tag: string, attrs: Record<string, string> = {}, ...children: (Node | string | null)[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const child of children) if (child !== null) el.append(child);
  return el;
}

const words = (s: string) => s.replaceAll("_", " ");

/** Which kind of component a field holds, per game (ids are unique within a kind). */
const FIELD_KINDS: Record<string, Record<string, string>> = {
  rattus_cartus: { building: "building", hand: "card", discard: "card", my_played: "card", revealed_cards: "card", card: "card", track: "class" },
  ys: { ports: "ship", port_pool: "ship", ship: "ship", offered: "character", hand: "character", new_cards: "character", character: "character", card: "character" },
  bruges: { hand: "person", discard: "person", known_hand: "person", person: "person", card: "person", persons: "person" },
  ankh_morpork: { hand: "card", discard: "card", played: "card", card: "card", loans: "card", personality: "personality", area: "area", from_area: "area", to_area: "area", areas: "area", event: "event", events_done: "event" },
  waterdeep: { quests: "quest", completed: "quest", plots: "quest", inn: "quest", quest_discard: "quest", quest: "quest", intrigue: "intrigue", intrigue_discard: "intrigue", lord: "lord", tile: "building", hall: "building", building: "building", space: "space" },
};

export class Names {
  private readonly byKind = new Map<string, Map<string, Component>>();
  private readonly anyKind = new Map<string, Component>();
  readonly fields: Record<string, string>;
  constructor(readonly data: GameData) {
    for (const c of data.components) {
      if (!this.byKind.has(c.kind)) this.byKind.set(c.kind, new Map());
      this.byKind.get(c.kind)?.set(c.id, c);
      if (!this.anyKind.has(c.id)) this.anyKind.set(c.id, c);
    }
    this.fields = FIELD_KINDS[data.game_id] ?? {};
  }

  /** The component an id names, given the field it came from (a copy suffix ".2" is ignored). */
  find(value: Json, field = ""): Component | null {
    if (value === null || value === undefined || typeof value === "boolean") return null;
    const kind = this.fields[field];
    const text = String(value);
    const candidates = [text, text.replace(/\.\d+$/, "")];
    for (const id of candidates) {
      if (kind) {
        const hit = this.byKind.get(kind)?.get(id);
        if (hit) return hit;
      }
      if (typeof value === "string") {
        const hit = this.anyKind.get(id);
        if (hit) return hit;
      }
    }
    return null;
  }

  /** A value as text: a component's name, else the value itself. */
  text(value: Json, field = ""): string {
    const c = this.find(value, field);
    if (c) return c.name;
    if (Array.isArray(value)) return value.map((v) => this.text(v, field)).join(", ");
    if (value && typeof value === "object") {
      return Object.entries(value)
        .map(([k, v]) => `${words(k)} ${this.text(v, k)}`)
        .join(", ");
    }
    if (value === null || value === undefined) return "—";
    return String(value);
  }

  /** A value as a node: names in chips that show the component's text on hover. */
  node(value: Json, field = ""): Node {
    const c = this.find(value, field);
    if (c) {
      const chip = h("span", { class: `chip${c.stand_in ? " stand-in" : ""}`, title: `${c.text}${c.stand_in ? " (stand-in data)" : ""}` }, c.name);
      return chip;
    }
    if (Array.isArray(value)) {
      if (!value.length) return h("span", { class: "muted" }, "none");
      if (value.every((v) => v && typeof v === "object" && !Array.isArray(v))) return this.table(value, field);
      const list = h("span", { class: "list" });
      for (const v of value) list.append(this.node(v, field), " ");
      return list;
    }
    if (value && typeof value === "object") return this.grid(value);
    if (value === null || value === undefined || value === "") return h("span", { class: "muted" }, "—");
    if (typeof value === "boolean") return document.createTextNode(value ? "yes" : "no");
    return document.createTextNode(String(value));
  }

  grid(object: Record<string, Json>, skip: string[] = []): HTMLElement {
    const dl = h("dl", { class: "grid" });
    for (const [k, v] of Object.entries(object)) {
      if (skip.includes(k)) continue;
      dl.append(h("dt", {}, words(k)), h("dd", {}, this.node(v, k)));
    }
    return dl;
  }

  table(rows: Record<string, Json>[], _field = "", seatLabel?: (seat: number) => string): HTMLElement {
    const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    const table = h("table");
    table.append(h("thead", {}, h("tr", {}, ...columns.map((c) => h("th", {}, words(c))))));
    const body = h("tbody");
    for (const row of rows) {
      const tr = h("tr");
      for (const c of columns) {
        const cell = c === "player" && seatLabel && typeof row[c] === "number" ? document.createTextNode(seatLabel(row[c])) : this.node(row[c], c);
        tr.append(h("td", {}, cell));
      }
      body.append(tr);
    }
    table.append(body);
    return table;
  }

  /** An action as a button label: its type in words, then its fields with names. */
  action(action: Json): string {
    if (!action || typeof action !== "object") return String(action);
    const fields = Object.entries(action)
      .filter(([k, v]) => k !== "type" && v !== "" && v !== null && !(Array.isArray(v) && !v.length))
      .map(([k, v]) => {
        if (typeof v === "boolean") return v ? words(k) : "";
        // "play card: Church", not "play card: card Church".
        return String(action.type ?? "").endsWith(k) ? this.text(v, k) : `${words(k)} ${this.text(v, k)}`;
      })
      .filter(Boolean);
    return `${words(String(action.type ?? "?"))}${fields.length ? `: ${fields.join(", ")}` : ""}`;
  }

  event(type: string, data: Json, who: string): string {
    const fields =
      data && typeof data === "object"
        ? Object.entries(data)
            .filter(([k, v]) => k !== "type" && k !== "player" && v !== "" && v !== null && !(Array.isArray(v) && !v.length))
            .slice(0, 6)
            .map(([k, v]) => `${words(k)} ${this.text(v, k)}`)
        : [];
    const line = `${who}: ${words(type)}${fields.length ? ` — ${fields.join("; ")}` : ""}`;
    return line.length > 220 ? `${line.slice(0, 217)}...` : line;
  }
}

/** The headline of a view: round or turn, phase, whose turn. */
export function headline(view: Json): string {
  const parts: string[] = [];
  for (const key of ["round", "turn", "phase", "window"]) {
    if (view && view[key] !== undefined && view[key] !== "" && view[key] !== null) {
      const of = key === "round" && view.rounds ? `/${view.rounds}` : "";
      parts.push(`${words(key)} ${words(String(view[key]))}${of}`);
    }
  }
  return parts.join(" · ");
}

/** Each game's board: the parts of its view that make the table, first and laid out. */
export function board(gameId: string, view: Json, names: Names, seatLabel: (seat: number) => string): HTMLElement {
  const root = h("div", { class: `board board-${gameId}` });
  const section = (title: string, content: Node) => root.append(h("section", {}, h("h3", {}, title), content));
  const shown = new Set<string>(["players", "viewer", "active", "round", "rounds", "turn", "phase", "window"]);
  const take = (key: string) => {
    shown.add(key);
    return view[key];
  };
  if (gameId === "ankh_morpork" && Array.isArray(view.areas)) {
    const rows = take("areas").map((a: Json) => ({
      area: names.text(a.area, "area"),
      minions: a.minions.map((n: number, s: number) => (n ? `${seatLabel(s)}: ${n}` : "")).filter(Boolean).join(", ") || "—",
      trolls: a.trolls,
      demons: a.demons,
      trouble: a.trouble ? "⚠ trouble" : "",
      building: a.building >= 0 ? seatLabel(a.building) : "",
      controller: a.controller >= 0 ? seatLabel(a.controller) : "",
    }));
    section("The city", names.table(rows));
  }
  if (gameId === "rattus_cartus" && Array.isArray(view.row)) {
    const rows = take("row").map((b: Json, i: number) => ({
      building: names.text(b.building, "building"),
      "supply action": [b.draw ? `draw ${b.draw}` : "", b.discard_rats ? `discard ${b.discard_rats} rats` : "", b.look ? `look ${b.look}` : ""].filter(Boolean).join(", "),
      entrants: (view.entries?.[i] ?? []).map(seatLabel).join(", "),
    }));
    shown.add("entries");
    section("This round's buildings", names.table(rows));
    if (Array.isArray(view.tracks)) {
      const tracks = take("tracks").map((t: Json) => {
        const row: Record<string, Json> = { class: names.text(t.track, "track") };
        t.influence.forEach((n: number, s: number) => {
          row[seatLabel(s)] = n;
        });
        return row;
      });
      section("Influence", names.table(tracks));
    }
  }
  if (gameId === "waterdeep" && Array.isArray(view.placed)) {
    const rows = take("placed").map((p: Json) => ({
      agent: seatLabel(p.player),
      space: names.text(p.space, "space") || p.space,
      ambassador: p.ambassador ? "ambassador" : "",
    }));
    section("Agents placed", rows.length ? names.table(rows) : h("p", { class: "muted" }, "none yet"));
    if (Array.isArray(view.inn)) section("Cliffwatch Inn", names.node(take("inn"), "inn"));
  }
  if (gameId === "ys" && view.prices) {
    section("Gem prices", names.grid(take("prices")));
    if (Array.isArray(view.ports)) section("Ships in the ports", names.node(take("ports"), "ports"));
  }
  if (gameId === "bruges" && view.dice) {
    section("Dice", names.grid(take("dice")));
  }
  if (Array.isArray(view.seats)) {
    const rows = take("seats").map((s: Json) => {
      const row: Record<string, Json> = {};
      for (const [k, v] of Object.entries(s)) if (v !== null) row[k] = v;
      return row;
    });
    section("Players", names.table(rows, "seats", seatLabel));
  }
  const rest: Record<string, Json> = {};
  for (const [k, v] of Object.entries(view ?? {})) if (!shown.has(k)) rest[k] = v;
  section("Everything else on the table", names.grid(rest));
  return root;
}
