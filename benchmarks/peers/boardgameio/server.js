// The peer's server: boardgame.io's own Server with the counter game, in memory or on files.
//   node server.js --port 8000 --storage memory|file [--dir DIR]
// "file" is boardgame.io's FlatFile (node-persist) with node-persist's write queue off, so every
// move is written to its match's file before the next one is taken (the default queue writes
// once a second, which would be memory with a periodic dump). Prints READY once listening.
'use strict';

const { Server, FlatFile } = require('boardgame.io/server');
const { Counter } = require('./game');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

class FlatFileWrittenThrough extends FlatFile {
  async connect() {
    await this.games.init({ dir: this.dir, logging: false, ttl: false, writeQueue: false });
  }
}

const port = Number(option('port', '8000'));
const storage = option('storage', 'memory');
let db;
if (storage === 'file') {
  db = new FlatFileWrittenThrough({ dir: option('dir', require('os').tmpdir() + '/bgio-files') });
} else if (storage !== 'memory') {
  throw new Error(`unknown storage ${storage}: memory or file`);
}

const server = Server({ games: [Counter], db, origins: [] });
server.run({ port, callback: () => console.log('READY') });
// The parent (benchmarks/bench_peers.py) stops us with SIGTERM.
process.on('SIGTERM', () => process.exit(0));
