"""The served games and their static data as ListGames and GetGameData answer them (issue 40): as
each game's current rules version describes itself now, or a named version's (the rules
directory, gateway/rules_directory.py, keeps which versions answer)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from guildhall.gateway.v1 import gateway_pb2


def _game_data(d: Any) -> gateway_pb2.GetGameDataResponse | None:
    if not d.game_data:  # a rules service that publishes none
        return None
    return gateway_pb2.GetGameDataResponse(
        game_id=d.game_id, version=d.rules_version, data=d.game_data, json_schema=d.game_data_schema
    )


def _game(d: Any) -> gateway_pb2.Game:
    return gateway_pb2.Game(
        game_id=d.game_id,
        title=d.title,
        rules_version=d.rules_version,
        player_counts=list(d.player_counts),
        json_schemas=dict(d.json_schemas),
        default_options=d.default_options,
    )


class _Described(Mapping[str, Any]):
    """Issue 40: the served games as their current rules versions describe them now (the rules
    directory's probes keep that current: gateway/rules_directory.py), each message built once
    per (game, version)."""

    def __init__(self, rules: Any, make: Callable[[Any], Any]) -> None:
        self.rules = rules
        self._make = make
        self._built: dict[tuple[str, str], Any] = {}

    def of_version(self, game: str, version: str, subject: str = "the request names") -> Any:
        """The message of that version of the game; RulesNotDeployed / RulesNotAnswering when no
        target answers with it."""
        described = self.rules.describe(game, version) if version else None
        if described is None:
            raise self.rules.unavailable(game, version, subject)
        key = (game, described.rules_version)
        if key not in self._built:
            self._built[key] = self._make(described)
        return self._built[key]

    def __getitem__(self, game: str) -> Any:
        """The game's current version's; KeyError for a game this gateway has no targets of."""
        if game not in self.rules.games:
            raise KeyError(game)
        return self.of_version(game, self.rules.current(game), "new matches go to")

    def _listed(self) -> list[str]:
        return sorted(g for g in self.rules.games if self.rules.known(g, self.rules.current(g)))

    def __iter__(self) -> Any:
        return iter(self._listed())

    def __len__(self) -> int:
        return len(self._listed())


class LiveGames(_Described):
    """ListGames' games, current."""

    def __init__(self, rules: Any) -> None:
        super().__init__(rules, _game)


class LiveGameData(_Described):
    """GetGameData's documents: the current version's, or a named version's (of_version)."""

    def __init__(self, rules: Any) -> None:
        super().__init__(rules, _game_data)
