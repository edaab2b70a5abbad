"""Simultaneous decisions do not bounce: when another seat's action lands between a client's view
and its submit, the client sends its decision again for the new version if it is still legal
(Rattus Cartus opens with every seat choosing its supply at once)."""

from __future__ import annotations

import asyncio

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
