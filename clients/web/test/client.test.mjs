// The TypeScript client against a real gateway (tests/web/test_ts_client.py starts the stack and
// passes GUILDHALL_HTTP, GUILDHALL_KEY and SEED_VECTOR): run with `node --test test/`.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  BadInvite,
  CannotUndo,
  GatewayError,
  GuildhallClient,
  IllegalAction,
  SeatTaken,
  StaleVersion,
  renderTemplate,
  verifyReceipt,
  verifySeed,
} from "../dist/guildhall.js";

const baseUrl = process.env.GUILDHALL_HTTP;
const key = process.env.GUILDHALL_KEY;
const tenant = new GuildhallClient({ baseUrl, credential: key });
const binary = new GuildhallClient({ baseUrl, credential: key, binary: true });

async function newMatch(client = tenant) {
  const match = await client.createMatch("rattus_cartus", ["ann", "bob"]);
  return { match, ann: client.as(match.seats[0].token), bob: client.as(match.seats[1].token) };
}

test("a text naming players is rendered with the names chosen at the table", () => {
  const names = ["Ann", "Bob"];
  const seat = (s) => names[s];
  const standsFor = (kind, id) => (kind === "party" ? { seat: Number(id), seatless: "the neutral player" } : null);
  const give = [{ name: "receiver", text: "Player 2", kind: "seat", id: "1" }];
  assert.equal(renderTemplate("Give Player 2 a card", "Give {receiver} a card", give, seat), "Give Bob a card");
  assert.equal(renderTemplate("Give Player 2 a card", "", [], seat), "Give Player 2 a card"); // no template: as sent
  assert.equal(renderTemplate("x", "{receiver}", give, () => undefined), "Player 2"); // no name: the default
  // Ys's party 2: the third seat when the match has one, else the neutral player (capitalised first).
  const party = [{ name: "party", text: "Player 3", kind: "party", id: "2" }];
  assert.equal(renderTemplate("", "{party} takes blue", party, seat, standsFor), "The neutral player takes blue");
  assert.equal(renderTemplate("", "{party} takes blue", party, (s) => [...names, "Cy"][s], standsFor), "Cy takes blue");
});

test("games and their data, with names, over JSON and binary", async () => {
  for (const client of [tenant, binary]) {
    const games = await client.listGames();
    assert.deepEqual(games.map((g) => g.gameId), ["rattus_cartus"]);
    const data = await client.getGameData("rattus_cartus");
    assert.equal(data.version, games[0].rulesVersion);
    assert.equal(data.components.find((c) => c.kind === "building" && c.id === "monastery").name, "Monastery");
    assert.equal(await client.getGameData("rattus_cartus"), data); // the cached document: not modified
  }
});

test("a decision reads the same over JSON and binary, each option's choices from the decision's table", async () => {
  const { match } = await newMatch();
  const token = match.seats[0].token;
  const [viaJson, viaBinary] = [await tenant.as(token).getView(match.matchId), await binary.as(token).getView(match.matchId)];
  assert.ok(viaJson.decision && viaJson.decision.options.length === viaJson.legalActions.length);
  for (const option of viaJson.decision.options) {
    assert.ok(option.choices.length >= 1 && option.choices.every((c) => c.step && c.label), JSON.stringify(option));
  }
  assert.deepEqual(viaBinary.decision, viaJson.decision);
});

test("a simultaneous decision that went stale but is still legal is sent again", async () => {
  const { match, ann, bob } = await newMatch();
  const [annView, bobView] = [await ann.getView(match.matchId), await bob.getView(match.matchId)];
  assert.ok(annView.myTurn && bobView.myTurn);
  const first = await bob.submit(match.matchId, bobView.legalActions[0], { expectedVersion: bobView.version });
  const accepted = await ann.submit(match.matchId, annView.legalActions.at(-1), { expectedVersion: annView.version });
  assert.equal(accepted.resubmitted, 1);
  assert.ok(accepted.version > first.version);
  const again = await newMatch();
  const [cView, dView] = [await again.ann.getView(again.match.matchId), await again.bob.getView(again.match.matchId)];
  await again.bob.submit(again.match.matchId, dView.legalActions[0], { expectedVersion: dView.version });
  await assert.rejects(
    again.ann.submit(again.match.matchId, cView.legalActions[0], { expectedVersion: cView.version, resubmitWhenStale: false }),
    StaleVersion,
  );
});

test("a move that revealed nothing is taken back; one that did is refused as CannotUndo", async () => {
  const { match, ann, bob } = await newMatch();
  const before = await ann.getView(match.matchId);
  assert.equal(before.undoAvailable, false);
  const moved = await ann.submit(match.matchId, before.legalActions[0], { returnView: true });
  if (moved.view.undoAvailable) {
    // (Which supply action this is depends on the server's seed: both branches are the contract.)
    assert.equal((await bob.getView(match.matchId)).undoAvailable, false);
    const undone = await ann.undo(match.matchId, { expectedVersion: moved.version });
    assert.deepEqual(undone.events.map((e) => e.type), ["action_undone"]);
    const { asked_ms: asked, ...taken } = undone.events[0].data;
    assert.deepEqual(taken, { type: "action_undone", seat: 0, first_version: before.version + 1, last_version: moved.version });
    assert.ok(asked > 0 && asked <= undone.events[0].timeMs); // the clock runs from when the decision was asked
    const after = await ann.getView(match.matchId);
    assert.deepEqual([after.view, after.legalActions, after.undoAvailable], [before.view, before.legalActions, false]);
  }
  await assert.rejects(ann.undo(match.matchId), CannotUndo);
});

test("a seat is claimed once and moves to another device with its resume secret, once", async () => {
  const table = await tenant.createTable("rattus_cartus", 2);
  const ann = await tenant.claimSeat(table.inviteCode, "ann", "Ann");
  assert.ok(ann.resumeSecret.startsWith("ghs1.") && ann.token);
  await assert.rejects(tenant.claimSeat(table.inviteCode, "ann"), SeatTaken);
  const bob = await tenant.claimSeat(table.inviteCode, "bob", "Bob", { claimId: "bob-claim-0123456789" });
  const again = await tenant.claimSeat(table.inviteCode, "bob", "Bob", { claimId: "bob-claim-0123456789" });
  assert.equal(again.seat, bob.seat); // a lost reply's repeat: the same seat
  const phone = await tenant.resumeSeat(ann.resumeSecret);
  assert.deepEqual([phone.matchId, phone.seat], [table.matchId, ann.seat]);
  assert.notEqual(phone.resumeSecret, ann.resumeSecret);
  await assert.rejects(tenant.resumeSeat(ann.resumeSecret), BadInvite);
  const view = await tenant.as(phone.token).getView(table.matchId);
  assert.equal(view.seat, ann.seat);
  assert.deepEqual([view.unclaimedSeats, view.resignedSeats, view.awaySeats], [[], [], []]);
  await tenant.as(bob.token).resign(table.matchId);
  assert.deepEqual((await tenant.as(phone.token).getView(table.matchId)).resignedSeats, [bob.seat]);
});

test("rejections and faults are typed", async () => {
  const { match, ann } = await newMatch();
  await assert.rejects(ann.submit(match.matchId, { type: "enter_building", building: 99 }), (e) => {
    assert.ok(e instanceof IllegalAction || e.code === "unknown_action" || e.code === "illegal_action", e);
    return true;
  });
  const stranger = new GuildhallClient({ baseUrl, credential: `ghk_${"x".repeat(43)}` });
  await assert.rejects(stranger.getView(match.matchId), (e) => e instanceof GatewayError && e.code === "unauthenticated");
  await assert.rejects(tenant.getView("no-such-match"), (e) => e instanceof GatewayError && e.code === "not_found");
});

test("receipts verify with the published keys; a forged one does not", async () => {
  const { match, ann } = await newMatch(binary);
  const view = await ann.getView(match.matchId);
  const accepted = await ann.submit(match.matchId, view.legalActions[0], { returnView: true });
  const keys = await ann.publicKeys();
  assert.equal(await verifyReceipt(accepted.receipt, keys), true);
  const forged = new Uint8Array(accepted.receipt.signature);
  forged[0] ^= 1;
  assert.equal(await verifyReceipt({ ...accepted.receipt, signature: forged }, keys), false);
  assert.equal(await verifyReceipt({ ...accepted.receipt, matchId: "another" }, keys), false);
  assert.equal(await verifyReceipt({ ...accepted.receipt, keyId: "unknown" }, keys), false);
});

test("watch resumes from a version and the match verifies, receipts and seed", async () => {
  const { match, ann, bob } = await newMatch();
  const stop = new AbortController();
  const seen = [];
  const follower = (async () => {
    for await (const update of tenant.watch(match.matchId, 0, { signal: stop.signal })) {
      seen.push(...update.events.map((e) => e.version));
      if (update.view?.finished) return;
    }
  })();
  await Promise.all([ann, bob].map((seat) => playRandomly(seat, match.matchId)));
  await follower;
  const final = await tenant.getView(match.matchId);
  assert.ok(final.finished);
  assert.deepEqual(seen, Array.from({ length: final.version }, (_, i) => i + 1)); // no gap, no repeat
  const later = [];
  for await (const update of tenant.watch(match.matchId, final.version - 3)) later.push(...update.events.map((e) => e.version));
  assert.deepEqual(later, [final.version - 2, final.version - 1, final.version]);
  const verified = await tenant.verifyMatch(match.matchId);
  assert.ok(verified.receiptsChecked > 0 && verified.badReceipts.length === 0);
  assert.equal(verified.seedRevealed, true);
  assert.equal(verified.seedOk, true);
  const [seed, commitment] = process.env.SEED_VECTOR.split(":");
  assert.equal(await verifySeed(seed, commitment), true);
  assert.equal(await verifySeed(seed.replace(/^./, seed[0] === "0" ? "1" : "0"), commitment), false);
});

async function playRandomly(seat, matchId) {
  let view = await seat.getView(matchId);
  while (!view.finished) {
    if (view.myTurn) {
      const action = view.legalActions[Math.floor(Math.random() * view.legalActions.length)];
      try {
        const accepted = await seat.submit(matchId, action, { expectedVersion: view.version, returnView: true });
        view = accepted.view ?? (await seat.getView(matchId));
        continue;
      } catch (error) {
        if (!(error?.code)) throw error;
      }
    }
    for await (const update of seat.watch(matchId, view.version, { untilFinished: true })) {
      if (update.view) {
        view = update.view;
        break;
      }
    }
  }
}
