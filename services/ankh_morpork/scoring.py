"""Personality goals (checked at the start of their owner's turn) and the points count at the
end of a game decided by points [SEED Fin del juego, FS 3]. Pure functions of the board facts:
the engine asks them when a turn starts and when the game ends early."""

from __future__ import annotations

from services.ankh_morpork.board import Tables, buildings_of, controller, trouble_count
from services.ankh_morpork.game_data import personality_text
from services.ankh_morpork.model import AREAS, State
from services.kernel import Outcome, PlayerResult

MINION_POINTS = 5  # [FS 3.3]
LOAN_REPAY = 12  # [FS 3.3]
LOAN_PENALTY = 15  # [FS 3.3]


def threshold(t: Tables, personality: str, players: int) -> int:
    return t.personalities[personality].thresholds[min(players, 4) - 2]


def counted(state: State, area: int) -> bool:
    """Pieces in an area with a demon score nothing (option `demons_void_scoring`, HRF)."""
    return not (state.options.demons_void_scoring and state.demons[area - 1])


def wealth(t: Tables, state: State, seat: int) -> int:
    """Chrysoprase: cash + printed cost of your buildings - $12 per loan [FS 3.1]."""
    built = sum(t.cost[a - 1] for a in buildings_of(state, seat) if counted(state, a))
    return state.money[seat] + built - LOAN_REPAY * len(state.loans[seat])


def goal_progress(t: Tables, state: State, seat: int) -> int:
    """How far a seat is along its own personality's goal (the figure its threshold applies to)."""
    goal = t.personalities[state.personalities[seat]].goal
    if goal == "spread":  # minions in different areas without demons
        return sum(1 for a in range(AREAS) if state.minions[a][seat] and not state.demons[a])
    if goal == "control":
        return sum(1 for a in range(1, AREAS + 1) if controller(state, a) == seat)
    if goal == "trouble":
        return trouble_count(state)
    if goal == "wealth":
        return wealth(t, state, seat)
    return 0


def meets_goal(t: Tables, state: State, seat: int) -> bool:
    """Every personality but Commander Vimes wins at the start of its owner's turn."""
    person = state.personalities[seat]
    if t.personalities[person].goal == "deck_out":
        return False
    return goal_progress(t, state, seat) >= threshold(t, person, state.players)


def vimes_seat(t: Tables, state: State) -> int:
    for seat, person in enumerate(state.personalities):
        if t.personalities[person].goal == "deck_out":
            return seat
    return -1


def breakdowns(t: Tables, state: State) -> list[dict[str, int]]:
    """Each seat's points, in one pass over the board: 5 a minion on the board, each building its
    area cost, $1 a point, each loan repaid with $12 or -15 points when you cannot [FS 3.3]."""
    minions = [0] * state.players
    built = [0] * state.players
    for a in range(AREAS):
        if not counted(state, a + 1):
            continue
        for seat in range(state.players):
            minions[seat] += state.minions[a][seat]
        owner = state.buildings[a]
        if owner >= 0:
            built[owner] += t.cost[a]
    sheets = []
    for seat in range(state.players):
        cash = state.money[seat]
        loans = 0
        for _ in state.loans[seat]:
            if cash >= LOAN_REPAY:
                cash -= LOAN_REPAY
                loans -= LOAN_REPAY
            else:
                loans -= LOAN_PENALTY
        sheets.append(
            {
                "minions": MINION_POINTS * minions[seat],
                "buildings": built[seat],
                "money": state.money[seat],
                "loans": loans,
            }
        )
    return sheets


def best_card(t: Tables, state: State, seat: int) -> int:
    """Tie-break: the most valuable City Area card a seat holds [FS 3.3]."""
    held = [t.cost[a - 1] for a in buildings_of(state, seat) if not state.lost_cards[a - 1]]
    return max(held, default=0)


def points_winners(t: Tables, state: State) -> tuple[int, ...]:
    """Most points; among tied seats the most valuable City Area card; still tied: shared."""
    sheets = breakdowns(t, state)
    keys = [(sum(sheets[s].values()), best_card(t, state, s)) for s in range(state.players)]
    best = max(keys)
    return tuple(s for s in range(state.players) if keys[s] == best)


def table_scores(t: Tables, state: State) -> tuple[int, ...]:
    """The score a table shows for each seat (docs/rules/ankh_morpork.md, "Score"): the points it
    would have if the game ended on points now (all public), and the same count at the end. The
    personalities, which may win before that, stay secret."""
    return tuple(sum(sheet.values()) for sheet in breakdowns(t, state))


def end_reason(t: Tables, state: State) -> str:
    """How the game ended, in a sentence (names from the data; the winners are named by clients)."""
    if state.end_reason == "personality" and state.winners:
        person = t.personalities[state.personalities[state.winners[0]]]
        goal = personality_text(person, threshold(t, person.id, state.players))
        return f'{person.name}\'s secret goal was met at the start of their turn ("{goal}").'
    if state.end_reason == "riots":
        return (
            "The Riots event came with 8 or more trouble markers on the board: the most points won "
            "(a tie goes to the most valuable City Area card)."
        )
    if any(t.personalities[state.personalities[w]].goal == "deck_out" for w in state.winners):
        return "The draw pile ran out, which is Commander Vimes's goal."
    return "The draw pile ran out: the most points won (a tie goes to the most valuable City Area card)."


def outcome(t: Tables, state: State) -> Outcome | None:
    if not state.over:
        return None
    results = []
    for seat, parts in enumerate(breakdowns(t, state)):
        results.append(
            PlayerResult(
                player=seat,
                score=sum(parts.values()),
                breakdown=parts,
                note=f"Personality: {t.personalities[state.personalities[seat]].name}",
                facts={
                    "best_city_card": best_card(t, state, seat),
                    "goal_progress": goal_progress(t, state, seat),
                },
            )
        )
    return Outcome(winners=state.winners, results=tuple(results), reason=end_reason(t, state))
