// The Bruges board's stylesheet, injected once by board.ts (so the board needs no build step of
// its own: the table's bundle carries it). Every class is prefixed "gb-" and scoped to .gb-bruges.
export const CSS = `
.gb-bruges { display: grid; grid-template-columns: minmax(620px, 3fr) minmax(300px, 2fr); gap: 12px; align-items: start; color: #222; font: 13px/1.35 system-ui, sans-serif; }
.gb-frame { container-type: inline-size; }
.gb-bruges h4 { margin: 8px 0 4px; font-size: 13px; color: #4a3b22; }
.gb-bruges .gb-board { background: #f4efe2; border: 1px solid #d9cfb5; border-radius: 8px; padding: 8px 10px; }
.gb-bruges .gb-caption { font-weight: 600; color: #4a3b22; }
.gb-bruges .gb-row { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }
.gb-bruges .gb-small { font-size: 11px; }
.gb-bruges .gb-muted { color: #5c5446; }
.gb-bruges .gb-label { font-size: 12px; font-weight: 600; color: #4a3b22; margin-right: 4px; }
.gb-bruges .gb-place { position: relative; }
.gb-bruges .gb-pawns { display: flex; flex-wrap: wrap; gap: 1px; justify-content: center; min-height: 20px; }
.gb-bruges .gb-pawn { display: inline-flex; align-items: center; justify-content: center; min-width: 20px; height: 20px; padding: 0 2px; box-sizing: border-box; border-radius: 10px; font-size: 10px; font-weight: 700; border: 1.5px solid #222; }
.gb-bruges .gb-rep { display: grid; grid-template-columns: 1.6fr repeat(12, 1fr); gap: 2px; }
.gb-bruges .gb-rep-step { background: #fff; border: 1px solid #cbbd98; border-radius: 4px; text-align: center; padding: 2px 1px; }
.gb-bruges .gb-townhall { background: #efe3c2; }
.gb-bruges .gb-rep-label { font-weight: 700; font-size: 13px; }
.gb-bruges .gb-supply { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-start; }
.gb-bruges .gb-group h4 { margin-top: 4px; }
.gb-bruges .gb-die-box { text-align: center; width: 58px; }
.gb-bruges .gb-swatch { display: inline-flex; align-items: center; justify-content: center; min-width: 18px; height: 18px; padding: 0 3px; box-sizing: border-box; border-radius: 3px; font-weight: 700; font-size: 12px; border: 1px solid rgba(0,0,0,.35); }
.gb-bruges .gb-die { width: 32px; height: 32px; font-size: 18px; border-radius: 6px; }
.gb-bruges .gb-dot { min-width: 12px; width: 12px; height: 12px; border-radius: 6px; vertical-align: -2px; }
.gb-bruges .gb-pile { background: #fff; border: 1px solid #cbbd98; border-radius: 5px; padding: 3px 6px; min-width: 92px; }
.gb-bruges .gb-count { font-weight: 700; }
.gb-bruges .gb-statue { display: inline-block; min-width: 16px; text-align: center; margin: 0 1px; padding: 0 3px; border-radius: 8px 8px 2px 2px; background: #d8d2c4; border: 1px solid #8d846f; font-weight: 700; font-size: 12px; }
.gb-bruges .gb-threats { display: grid; grid-template-columns: repeat(5, 1fr); gap: 6px; }
.gb-bruges .gb-threat-track { border: 2px solid; border-radius: 5px; background: #fff; overflow: hidden; }
.gb-bruges .gb-threat-head { font-weight: 700; font-size: 12px; padding: 1px 4px; }
.gb-bruges .gb-threat-track .gb-row { flex-wrap: nowrap; gap: 2px; padding: 2px; }
.gb-bruges .gb-threat { flex: 1; border: 1px dashed #bbb; border-radius: 3px; text-align: center; min-height: 38px; }
.gb-bruges .gb-strike { flex: 1.7; background: #fbe9e5; border-style: solid; border-color: #d9a59a; }
.gb-bruges .gb-canals { display: grid; grid-template-columns: 1fr 1fr; gap: 6px; }
.gb-bruges .gb-guardhouse { background: #e7eef6; border: 2px solid; border-radius: 6px; padding: 3px 5px; }
.gb-bruges .gb-unused { background: #f1f1ef; border-color: #8a8a8a; border-style: dashed; color: #444; }
.gb-bruges .gb-gh-head { font-size: 12px; margin-bottom: 3px; }
.gb-bruges .gb-canal-row { display: grid; grid-template-columns: repeat(5, 1fr) 34px repeat(5, 1fr); gap: 2px; align-items: stretch; }
.gb-bruges .gb-canal { border-radius: 3px; height: 40px; text-align: center; border: 1px solid rgba(0,0,0,.35); }
.gb-bruges .gb-cost { font-size: 11px; font-weight: 700; }
.gb-bruges .gb-star { font-size: 10px; }
.gb-bruges .gb-unseen { border: 1px dashed #8d7c57; border-radius: 6px; padding: 2px 5px; max-width: 118px; }
.gb-bruges .gb-token { width: 70%; height: 14px; margin: 2px auto 0; border-radius: 3px; border: 2px solid #fff; box-shadow: 0 0 0 1px #222; }
.gb-bruges .gb-guard { display: flex; align-items: center; justify-content: center; }
.gb-bruges .gb-seal { width: 30px; height: 30px; border-radius: 15px; display: flex; align-items: center; justify-content: center; font-weight: 800; border: 2px solid #222; }
.gb-bruges .gb-scoretrack { margin-top: 4px; }
.gb-bruges .gb-score { background: #fff; border: 1px solid #cbbd98; border-radius: 12px; padding: 1px 8px 1px 2px; font-weight: 600; }
.gb-bruges .gb-players { display: flex; flex-direction: column; gap: 8px; }
.gb-bruges .gb-player { background: #fff; border: 2px solid; border-radius: 8px; padding: 0 8px 6px; }
.gb-bruges .gb-player > * + * { margin-top: 4px; }
.gb-bruges .gb-mine { border-width: 4px; box-shadow: 0 2px 8px rgba(0,0,0,.25); background: #fffdf5; }
.gb-bruges .gb-acting .gb-player-head { text-decoration: underline; }
.gb-bruges .gb-player-head { margin: 0 -8px; padding: 3px 8px; font-size: 14px; border-radius: 4px 4px 0 0; }
.gb-bruges .gb-stats { display: flex; flex-wrap: wrap; gap: 2px 12px; }
.gb-bruges .gb-chip { min-width: 30px; }
.gb-bruges .gb-houses { display: flex; flex-wrap: wrap; gap: 4px; }
.gb-bruges .gb-house { border: 1px solid #b8aa88; border-radius: 3px; min-width: 96px; max-width: 150px; background: #fbf8f0; padding-bottom: 2px; text-align: center; }
.gb-bruges .gb-house.gb-used { background: #ece8de; }
.gb-bruges .gb-house-roof { font-size: 11px; font-weight: 700; padding: 1px 4px; clip-path: polygon(0 100%, 12% 0, 88% 0, 100% 100%); }
.gb-bruges .gb-person { display: inline-flex; align-items: center; gap: 3px; padding: 1px 5px 1px 2px; margin: 1px; border: 1px solid #cbbd98; border-radius: 3px; background: #fff; font-size: 12px; }
.gb-bruges .gb-band { width: 6px; align-self: stretch; border-radius: 2px; }
.gb-bruges .gb-hand { display: flex; flex-wrap: wrap; gap: 6px; }
.gb-bruges .gb-hand-title { flex-basis: 100%; }
.gb-bruges .gb-card { width: 156px; border: 1px solid #8d7c57; border-radius: 6px; background: #fff; overflow: hidden; box-shadow: 0 1px 2px rgba(0,0,0,.2); }
.gb-bruges .gb-card-band { font-size: 11px; font-weight: 700; padding: 1px 5px; }
.gb-bruges .gb-card-name { font-weight: 700; padding: 2px 5px 0; font-size: 12px; }
.gb-bruges .gb-card .gb-small { padding: 0 5px 3px; }
.gb-bruges .gb-card-text { display: -webkit-box; -webkit-line-clamp: 4; -webkit-box-orient: vertical; overflow: hidden; padding: 0 5px; margin-bottom: 4px; font-size: 11.5px; line-height: 1.3; color: #3f3626; }
.gb-bruges .gb-person:has(.gb-card-text) { display: inline-grid; grid-template-columns: auto 1fr; align-items: start; max-width: 220px; vertical-align: top; }
.gb-bruges .gb-person .gb-card-text { grid-column: 1 / -1; padding: 0 2px; margin-bottom: 2px; -webkit-line-clamp: 3; }
.gb-bruges .gb-back { width: 16px; height: 22px; border-radius: 3px; }
.gb-bruges .gb-choosable { cursor: pointer; outline: 3px solid #ff9800; outline-offset: 1px; box-shadow: 0 0 0 5px rgba(255,152,0,.35); position: relative; }
.gb-bruges .gb-choosable:hover, .gb-bruges .gb-choosable:focus-within { outline-color: #e65100; box-shadow: 0 0 0 6px rgba(230,81,0,.45); }
.gb-bruges .gb-choosable > .gb-button { position: absolute; inset: 0; border-radius: inherit; }
.gb-bruges .gb-choosable > .gb-button:focus-visible { outline: 3px solid #0b57d0; outline-offset: 4px; }
/* Narrow frames (last: they override the rules above). */
@container (max-width: 1000px) { .gb-bruges { grid-template-columns: minmax(0, 1fr); } }
@container (max-width: 760px) { .gb-bruges .gb-canals { grid-template-columns: minmax(0, 1fr); } .gb-bruges .gb-threats { grid-template-columns: repeat(3, minmax(0, 1fr)); } }
/* Phones: the reputation track on two rows, nothing wider than the screen. */
@container (max-width: 520px) {
  .gb-bruges .gb-rep { grid-template-columns: repeat(7, minmax(0, 1fr)); }
  .gb-bruges .gb-threats { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .gb-bruges .gb-canal-row { grid-template-columns: repeat(5, minmax(0, 1fr)) 26px repeat(5, minmax(0, 1fr)); }
}
`;
