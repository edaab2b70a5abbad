// The peer's game: a counter two players take turns to increase, one move a turn, over after
// MOVES_PER_MATCH moves (then the driver starts another match, as Guildhall's bench does).
'use strict';

const MOVES_PER_MATCH = 200;

const Counter = {
  name: 'counter',
  setup: () => ({ value: 0 }),
  moves: {
    // Decided by the server only (no optimistic copy on the client): each move is one round trip,
    // as an action through Guildhall's gateway is.
    increment: {
      move: ({ G }) => {
        G.value += 1;
      },
      client: false,
    },
  },
  turn: { minMoves: 1, maxMoves: 1 },
  endIf: ({ G }) => (G.value >= MOVES_PER_MATCH ? { moves: G.value } : undefined),
};

module.exports = { Counter, MOVES_PER_MATCH };
