"""Turn timers, the pure part: which policy a match runs under, when a turn's time is up, and
which legal action a timed-out seat is given.

Redis-free on purpose: the durable timer wheel is `gateway/timers.py`; the use case that acts
on an expiry is `GameMatches.on_timer` in `gateway/usecases/play.py`.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping

import msgspec

# What happens to a seat whose time runs out.
RANDOM_ACTION = "random_action"  # the gateway plays one of the seat's legal actions for it
FORFEIT = "forfeit"  # the seat resigns
# Issue 41: the seat is marked away and the platform's bot (AWAY_BOT_KIND) plays it until its
# player acts again or says "I'm back"; an away seat's own timer running out (no bot worker
# reached it) plays a legal action as RANDOM_ACTION does, so a match never stalls.
BOT = "bot"
POLICIES = (RANDOM_ACTION, FORFEIT, BOT)
AWAY_BOT_KIND = "greedy"  # a bot that plays for the player, as well as it can

# A turn longer than a week is a correspondence game that wants no timer: refuse it as a typo.
MAX_TURN_SECONDS = 7 * 24 * 3600
# Issue 39: the shortest turn a web table (a publishable key's) may ask for: a table cannot be
# made to play itself at speed (and bill its tenant); a person needs this long to decide.
MIN_WEB_TURN_SECONDS = 20

# Domain separation for the timeout choice generator (never reused for anything else).
_CHOICE_PERSONALISATION = b"gh-timeout-v1"


class TimerPolicy(msgspec.Struct, frozen=True):
    """A match's turn timer: `seconds` per decision (0 = no timer) and what happens on expiry."""

    seconds: float = 0
    policy: str = RANDOM_ACTION

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"turn timer policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")
        seconds = self.seconds
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds != seconds:
            raise ValueError(f"turn timer seconds must be a number, got {seconds!r}")
        if not 0 <= seconds <= MAX_TURN_SECONDS:
            raise ValueError(f"turn timer seconds must be within 0..{MAX_TURN_SECONDS}, got {seconds!r}")

    @property
    def enabled(self) -> bool:
        return self.seconds > 0

    def deadline_ms(self, now_ms: int) -> int:
        """The moment a decision asked for at `now_ms` is overdue (whole milliseconds, rounded up)."""
        if not self.enabled:
            raise ValueError("a disabled turn timer has no deadline")
        return now_ms + math.ceil(self.seconds * 1000)

    @classmethod
    def from_config(cls, config: Mapping[str, object] | None) -> TimerPolicy:
        """Read a tenant's `turn_timer` block ({"seconds": 30, "policy": "forfeit"}); absent = off."""
        if config is None:
            return OFF
        unknown = set(config) - {"seconds", "policy"}
        if unknown:
            raise ValueError(f"unknown turn_timer fields: {', '.join(sorted(unknown))}")
        seconds = config.get("seconds", 0)
        policy = config.get("policy", RANDOM_ACTION)
        if not isinstance(policy, str):
            raise ValueError(f"turn timer policy must be a string, got {policy!r}")
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise ValueError(f"turn timer seconds must be a number, got {seconds!r}")
        return cls(seconds=seconds, policy=policy)


OFF = TimerPolicy()


def effective_policy(requested: TimerPolicy | None, tenant_default: TimerPolicy) -> TimerPolicy:
    """A match's own timer wins over the tenant's default; none asked for means the default."""
    return tenant_default if requested is None else requested


def timeout_choice(count: int, secret: bytes, version: int, seat: int) -> int:
    """Which of `count` legal actions (in the order the rules listed them) a timed-out seat plays.

    Keyed by a per-match secret (the match seed: hidden from players until the end, so nobody
    can foresee or steer the pick, and revealed then, so an auditor re-derives the same pick) and
    by the version and seat, so each timeout draws afresh and every replica picks the same one.
    Rejection sampling keeps the pick exactly uniform.
    """
    if count <= 0:
        raise ValueError("a timed-out seat with no legal action has nothing to play")
    if not secret:
        raise ValueError("the timeout choice needs a secret key")
    key = hashlib.blake2b(secret, digest_size=32, person=b"gh-timeout-key").digest()
    limit = (1 << 64) - (1 << 64) % count  # largest multiple of count that fits in 64 bits
    counter = 0
    while True:
        message = f"{version}:{seat}:{counter}".encode()
        block = hashlib.blake2b(message, key=key, digest_size=8, person=_CHOICE_PERSONALISATION).digest()
        value = int.from_bytes(block, "big")
        if value < limit:
            return value % count
        counter += 1  # about one draw in 2**60 for small counts
