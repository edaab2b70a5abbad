// The Waterdeep board's stylesheet, injected once by board.ts (the table's bundle carries it).
// Every class is prefixed "gw-" and scoped to .gw-waterdeep.
export const CSS = `
.gw-waterdeep { display: grid; grid-template-columns: minmax(640px, 3fr) minmax(320px, 2fr); gap: 12px; align-items: start; color: #222; font: 13px/1.35 system-ui, sans-serif; }
.gw-frame { container-type: inline-size; }
.gw-waterdeep h4 { margin: 8px 0 4px; font-size: 13px; color: #30402a; }
.gw-waterdeep .gw-board { background: #eef1e6; border: 1px solid #c9d0b6; border-radius: 8px; padding: 8px 10px; }
.gw-waterdeep .gw-caption { font-weight: 600; color: #30402a; margin-bottom: 3px; }
.gw-waterdeep .gw-row { display: flex; flex-wrap: wrap; gap: 5px; align-items: stretch; }
.gw-waterdeep .gw-small { font-size: 11px; color: #3c3c3c; }
.gw-waterdeep .gw-muted { color: #555; }
.gw-waterdeep .gw-label { font-size: 12px; font-weight: 600; color: #30402a; margin-right: 4px; }
.gw-waterdeep .gw-rounds { display: grid; grid-template-columns: repeat(8, 1fr); gap: 3px; }
.gw-waterdeep .gw-round { background: #fff; border: 1px solid #b9c2a0; border-radius: 4px; text-align: center; padding: 2px; font-weight: 600; }
.gw-waterdeep .gw-past { color: #4d4d4d; background: #e4e7dc; }
.gw-waterdeep .gw-now { background: #2f5d2a; color: #fff; }
.gw-waterdeep .gw-now .gw-small { color: #fff; }
.gw-waterdeep .gw-building-block { background: #fbfaf4; border: 1px solid #c9d0b6; border-radius: 6px; padding: 5px 6px; margin-top: 6px; }
.gw-waterdeep .gw-building-head { font-weight: 700; font-size: 14px; margin-bottom: 4px; padding: 1px 4px; border-radius: 3px; }
.gw-waterdeep .gw-space { background: #fff; border: 1px solid #9fae86; border-radius: 5px; padding: 3px 5px; min-width: 110px; flex: 1; }
.gw-waterdeep .gw-space-name { font-weight: 700; }
.gw-waterdeep .gw-basics { display: grid; grid-template-columns: repeat(3, 1fr); gap: 5px; }
.gw-waterdeep .gw-agents { display: flex; flex-wrap: wrap; gap: 2px; min-height: 22px; margin-top: 2px; }
.gw-waterdeep .gw-pawn { display: inline-flex; align-items: center; justify-content: center; min-width: 22px; height: 22px; padding: 0 3px; box-sizing: border-box; border-radius: 11px 11px 4px 4px; font-size: 10px; font-weight: 700; border: 1.5px solid #222; }
.gw-waterdeep .gw-ambassador { display: inline-flex; align-items: center; height: 22px; padding: 0 4px; border: 3px solid; border-radius: 4px; background: #d4af37; font-size: 10px; font-weight: 800; }
.gw-waterdeep .gw-shared { border-style: dashed; outline: 2px dashed #555; outline-offset: 1px; }
.gw-waterdeep .gw-slot { background: #f3f1e6; border: 1px dashed #a9a48c; border-radius: 5px; padding: 2px 4px; flex: 1; min-width: 130px; }
.gw-waterdeep .gw-slot-name { font-size: 10px; color: #666; }
.gw-waterdeep .gw-quest { background: #fff; border: 1px solid #8c8c8c; border-radius: 5px; overflow: hidden; margin-top: 2px; min-width: 130px; }
.gw-waterdeep .gw-quest-type { font-size: 10px; font-weight: 700; padding: 0 5px; text-transform: uppercase; letter-spacing: .03em; }
.gw-waterdeep .gw-quest-name { font-weight: 700; padding: 1px 5px 0; }
.gw-waterdeep .gw-quest .gw-small { padding: 0 5px 2px; }
.gw-waterdeep .gw-quests { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 4px; }
.gw-waterdeep .gw-pile { background: #fff; border: 1px solid #b9c2a0; border-radius: 5px; padding: 3px 6px; }
.gw-waterdeep .gw-hall-space { max-width: 220px; }
.gw-waterdeep .gw-lots { display: grid; grid-template-columns: repeat(5, 1fr); gap: 4px; }
.gw-waterdeep .gw-lot { min-height: 44px; }
.gw-waterdeep .gw-empty-lot { border: 1px dashed #b9c2a0; border-radius: 5px; display: flex; align-items: center; justify-content: center; }
.gw-waterdeep .gw-tile { background: #fff; border: 1px solid #7b6c4c; border-radius: 5px; overflow: hidden; height: 100%; box-sizing: border-box; }
.gw-waterdeep .gw-slot .gw-tile { height: auto; }
.gw-waterdeep .gw-tile-head { font-weight: 700; padding: 1px 5px; font-size: 12px; }
.gw-waterdeep .gw-tile > .gw-small, .gw-waterdeep .gw-tile > .gw-agents { padding: 0 5px; }
.gw-waterdeep .gw-stock { font-weight: 700; color: #1d5d1d; }
.gw-waterdeep .gw-bottom { margin-top: 2px; }
.gw-waterdeep .gw-bottom > .gw-building-block { flex: 1; }
.gw-waterdeep .gw-bottom .gw-pile { margin-bottom: 4px; }
.gw-waterdeep .gw-cube { display: inline-flex; align-items: center; gap: 4px; padding: 1px 6px; border-radius: 3px; border: 1px solid #555; font-size: 12px; margin: 1px; }
.gw-waterdeep .gw-players { display: flex; flex-direction: column; gap: 8px; }
.gw-waterdeep .gw-player { background: #fff; border: 2px solid; border-radius: 8px; padding: 0 8px 6px; }
.gw-waterdeep .gw-player > * + * { margin-top: 4px; }
.gw-waterdeep .gw-mine { border-width: 4px; box-shadow: 0 2px 8px rgba(0,0,0,.25); background: #fdfdf6; }
.gw-waterdeep .gw-player-head { margin: 0 -8px; padding: 3px 8px; font-size: 14px; border-radius: 4px 4px 0 0; }
.gw-waterdeep .gw-acting .gw-player-head { text-decoration: underline; }
.gw-waterdeep .gw-badge { display: inline-block; margin-left: 6px; padding: 0 6px; border-radius: 8px; background: rgba(255,255,255,.85); color: #222; font-size: 11px; font-weight: 600; text-decoration: none; }
.gw-waterdeep .gw-stats { display: flex; flex-wrap: wrap; gap: 2px 12px; }
.gw-waterdeep .gw-lord { background: #f6f0dc; border-radius: 4px; padding: 2px 5px; }
.gw-waterdeep .gw-hand { display: flex; flex-wrap: wrap; gap: 4px; }
.gw-waterdeep .gw-hand-title { flex-basis: 100%; }
.gw-waterdeep .gw-intrigue { width: 150px; border: 1px solid #6b4f8a; border-radius: 5px; background: #f5f0fa; padding: 2px 5px; }
.gw-waterdeep .gw-intrigue-name { font-weight: 700; }
.gw-waterdeep .gw-card-text { font-size: 12px; display: -webkit-box; -webkit-line-clamp: 4; -webkit-box-orient: vertical; overflow: hidden; line-height: 1.3; }
.gw-waterdeep .gw-done { display: inline-block; background: #f2f2ee; border-left: 5px solid; border-radius: 3px; padding: 0 5px; margin: 1px; }
.gw-waterdeep .gw-choosable { cursor: pointer; outline: 3px solid #ff9800; outline-offset: 1px; box-shadow: 0 0 0 5px rgba(255,152,0,.35); position: relative; }
.gw-waterdeep .gw-choosable:hover, .gw-waterdeep .gw-choosable:focus-within { outline-color: #e65100; box-shadow: 0 0 0 6px rgba(230,81,0,.45); }
.gw-waterdeep .gw-choosable > .gw-button { position: absolute; inset: 0; border-radius: inherit; }
.gw-waterdeep .gw-choosable > .gw-button:focus-visible { outline: 3px solid #0b57d0; outline-offset: 4px; }
/* Narrow frames (last: they override the rules above). */
@container (max-width: 1000px) { .gw-waterdeep { grid-template-columns: minmax(0, 1fr); } }
@container (max-width: 760px) { .gw-waterdeep .gw-basics { grid-template-columns: repeat(2, minmax(0, 1fr)); } .gw-waterdeep .gw-lots { grid-template-columns: repeat(3, minmax(0, 1fr)); } }
/* Phones: fewer columns, nothing wider than the screen. */
@container (max-width: 520px) {
  .gw-waterdeep .gw-rounds { grid-template-columns: repeat(4, minmax(0, 1fr)); }
  .gw-waterdeep .gw-basics { grid-template-columns: minmax(0, 1fr); }
  .gw-waterdeep .gw-lots { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .gw-waterdeep .gw-space, .gw-waterdeep .gw-slot, .gw-waterdeep .gw-quest { min-width: min(100%, 130px); }
  .gw-waterdeep .gw-quests { grid-template-columns: repeat(auto-fill, minmax(min(100%, 150px), 1fr)); }
  .gw-waterdeep .gw-hall-space { max-width: none; }
  .gw-waterdeep .gw-building-head, .gw-waterdeep .gw-caption { overflow-wrap: anywhere; }
}
`;
