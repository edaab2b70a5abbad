// The peer's load: MATCHES counter matches always busy, each played by two boardgame.io clients
// (its public Client with its SocketIO transport, one socket per seat) that move whenever the
// server tells them it is their turn; a finished match is replaced by a new one (lobby API).
//   node driver.js --port 8000 --matches 32 --seconds 10 [--warmup 2]
// Prints MEASURING when the measured window starts, then one JSON line: moves/s and the p50/p99
// from a move to the other seat receiving it from the server (one server round trip).
'use strict';

const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Counter } = require('./game');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

const port = Number(option('port', '8000'));
const matches = Number(option('matches', '1'));
const seconds = Number(option('seconds', '10'));
const warmup = Number(option('warmup', '2'));
const server = `http://127.0.0.1:${port}`;

let counting = false;
let moves = 0;
const latencies = [];

async function post(path, body) {
  const response = await fetch(`${server}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

async function newMatch() {
  const { matchID } = await post('/games/counter/create', { numPlayers: 2 });
  const seats = [];
  for (const playerID of ['0', '1']) {
    const { playerCredentials } = await post(`/games/counter/${matchID}/join`, {
      playerID,
      playerName: `p${playerID}`,
    });
    seats.push({ playerID, credentials: playerCredentials });
  }
  return { matchID, seats };
}

// One match, both seats, until it is over; resolves then.
function play(match) {
  return new Promise((resolve) => {
    let sentAt = 0;
    let finished = false;
    const clients = match.seats.map(({ playerID, credentials }) => {
      const client = Client({
        game: Counter,
        numPlayers: 2,
        matchID: match.matchID,
        playerID,
        credentials,
        // WebSocket from the start: socket.io's default begins with HTTP long-polling, whose
        // first seconds would be counted against the peer.
        multiplayer: SocketIO({ server, socketOpts: { transports: ['websocket'] } }),
        debug: false,
      });
      let seen = -1;
      client.subscribe((state) => {
        if (!state || finished) return;
        if (state.ctx.gameover) {
          finished = true;
          for (const c of clients) c.stop();
          resolve();
          return;
        }
        // Our turn, at a value we have not moved at: the other seat's move reached us from
        // the server (or the match just started).
        if (state.ctx.currentPlayer === playerID && state.G.value !== seen && state.isConnected) {
          if (sentAt && counting) {
            latencies.push(performance.now() - sentAt);
          }
          seen = state.G.value;
          sentAt = performance.now();
          if (counting) moves += 1;
          // Not from inside the client's own notification: a move made there re-enters it.
          setImmediate(() => client.moves.increment());
        }
      });
      return client;
    });
    for (const client of clients) client.start();
  });
}

async function keepBusy(stop) {
  while (!stop.done) {
    await play(await newMatch());
  }
}

async function main() {
  const stop = { done: false };
  const loops = [];
  for (let n = 0; n < matches; n += 1) loops.push(keepBusy(stop));
  await new Promise((r) => setTimeout(r, warmup * 1000));
  console.log('MEASURING');
  counting = true;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  counting = false;
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] : null);
  console.log(JSON.stringify({ matches, moves, moves_per_s: moves / elapsed, p50_ms: at(0.5), p99_ms: at(0.99) }));
  stop.done = true;
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
