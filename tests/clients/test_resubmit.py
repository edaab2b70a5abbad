"""Simultaneous decisions do not bounce: when another seat's action lands between a client's view
and its submit, the client sends its decision again for the new version if it is still legal
(Rattus Cartus opens with every seat choosing its supply at once)."""

from __future__ import annotations

import asyncio
import json

import pytest

from guildhall_client import AsyncClient, errors


def run(coro):
    return asyncio.run(coro)


def test_a_decision_made_on_a_view_another_seat_moved_past_is_sent_again_when_still_legal(stack) -> None:
    async def scenario() -> None:
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            created = await gh.create_match("rattus_cartus", ["ann", "bob"])
            ann = gh.for_token(created.seats[0].token)
            bob = gh.for_token(created.seats[1].token)
            ann_view, bob_view = await ann.get_view(created.match_id), await bob.get_view(created.match_id)
            assert ann_view.my_turn and bob_view.my_turn and ann_view.version == bob_view.version
            # Bob's choice lands first; Ann decided on the same version.
            first = await bob.submit(
                created.match_id, bob_view.legal_actions[0], expected_version=bob_view.version
            )
            choice = ann_view.legal_actions[-1]
            accepted = await ann.submit(created.match_id, choice, expected_version=ann_view.version)
            assert accepted.version > first.version
            assert accepted.command_id.endswith(".1")  # sent again once, for the new version
            # Without the resubmission the same situation is a stale_version rejection.
            again = await gh.create_match("rattus_cartus", ["cid", "dan"])
            cid, dan = gh.for_token(again.seats[0].token), gh.for_token(again.seats[1].token)
            cid_view = await cid.get_view(again.match_id)
            dan_view = await dan.get_view(again.match_id)
            await dan.submit(again.match_id, dan_view.legal_actions[0], expected_version=dan_view.version)
            with pytest.raises(errors.StaleVersion):
                await cid.submit(
                    again.match_id,
                    cid_view.legal_actions[0],
                    expected_version=cid_view.version,
                    resubmit_when_stale=False,
                )
            await ann.close()
            await bob.close()
            await cid.close()
            await dan.close()

    run(scenario())


def _same(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_the_play_stream_sends_a_decision_again_when_another_seat_landed_first(stack) -> None:
    async def scenario() -> None:
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            created = await gh.create_match("rattus_cartus", ["eve", "fay"])
            eve = gh.for_token(created.seats[0].token)
            fay = gh.for_token(created.seats[1].token)
            eve_view, fay_view = await eve.get_view(created.match_id), await fay.get_view(created.match_id)
            assert eve_view.my_turn and fay_view.my_turn
            async with eve.play(created.match_id, eve_view.version) as stream:
                first = await fay.submit(
                    created.match_id, fay_view.legal_actions[0], expected_version=fay_view.version
                )
                accepted = await stream.submit(
                    eve_view.legal_actions[-1], command_id="eve-supply", expected_version=eve_view.version
                )
            assert accepted.version > first.version and accepted.command_id == "eve-supply.1"
            # Without the resubmission the stream answers stale_version, as the gateway does.
            again = await gh.create_match("rattus_cartus", ["gil", "hal"])
            gil, hal = gh.for_token(again.seats[0].token), gh.for_token(again.seats[1].token)
            gil_view, hal_view = await gil.get_view(again.match_id), await hal.get_view(again.match_id)
            await hal.submit(again.match_id, hal_view.legal_actions[0], expected_version=hal_view.version)
            async with gil.play(again.match_id, gil_view.version) as stream:
                with pytest.raises(errors.StaleVersion):
                    await stream.submit(
                        gil_view.legal_actions[0],
                        expected_version=gil_view.version,
                        resubmit_when_stale=False,
                    )
            for client in (eve, fay, gil, hal):
                await client.close()

    run(scenario())


def test_the_play_stream_does_not_send_again_when_this_seats_own_action_moved_the_version(stack) -> None:
    """A seat plays one of two copies of a card, then sends the same play again named for the
    version before its own: still legal (the second copy), but the decision was already taken."""

    async def scenario() -> None:
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            for attempt in range(20):
                created = await gh.create_match("rattus_cartus", ["ivy", "jon"])
                match = created.match_id
                seats = [gh.for_token(s.token) for s in created.seats]
                ivy = seats[0]
                try:
                    for _ in range(400):
                        views = [await s.get_view(match) for s in seats]
                        if views[0].finished:
                            break
                        view = views[0]
                        hand = (view.view or {}).get("hand") or []
                        twice = [
                            a
                            for a in view.legal_actions
                            if a.get("type") == "play_card" and hand.count(a.get("card")) >= 2
                        ]
                        if view.my_turn and twice:
                            async with ivy.play(match, view.version) as stream:
                                first = await stream.submit(twice[0], expected_version=view.version)
                                now = await ivy.get_view(match)
                                if now.my_turn and any(_same(twice[0], a) for a in now.legal_actions):
                                    with pytest.raises(errors.StaleVersion):
                                        await stream.submit(
                                            twice[0], command_id="ivy-again", expected_version=view.version
                                        )
                                    after = await ivy.get_view(match)
                                    assert after.version == first.version  # nothing sent again
                                    assert not any(
                                        e.command_id.startswith("ivy-again")
                                        for e in await gh.read_events(match, first.version)
                                    )
                                    return
                            continue
                        acting = next((i for i, v in enumerate(views) if v.my_turn), None)
                        if acting is None:
                            break
                        v = views[acting]
                        await seats[acting].submit(
                            match, v.legal_actions[(attempt + v.version) % len(v.legal_actions)]
                        )
                finally:
                    for s in seats:
                        await s.close()
            pytest.fail("no position where a seat held two copies of a playable card")

    run(scenario())
