"""Lords of Waterdeep: the types of its actions, events, views, options, outcome and game data.

Generated from schemas/waterdeep/ by `python -m guildhall_client.games.generate`: do not edit.
Views and events arrive as decoded JSON (dicts); these TypedDicts type them, e.g.
`view = cast(waterdeep.View, match_view.view)`, and type-check actions before they are sent.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

from guildhall_client.games._shared import (
    Arg,
    Choice,
    Component,
    Decision,
    Deck,
    DeckPart,
    Description,
    Option,
    Outcome,
    Place,
    PlayerResult,
    Rejection,
    ScoreSheet,
)

__all__ = [
    "Action",
    "Event",
    "View",
    "Options",
    "Outcome",
    "GameData",
    "Rejection",
    "Decision",
    "Description",
    "Arg",
    "Choice",
    "Component",
    "Deck",
    "DeckPart",
    "Option",
    "Place",
    "PlayerResult",
    "ScoreSheet",
]


class View(TypedDict):
    active: list[int]
    ambassador: int
    buildings: list[Building]
    current: int
    first: int
    hall: list[BuildingId | Literal[""]]
    hall_vp: list[int]
    inn: list[QuestId | Literal[""]]
    intrigue_deck_size: int
    intrigue_discard: list[IntrigueCopyId | Literal[""]]
    pending: list[EventDecision]
    phase: str
    placed: list[Placed]
    players: int
    quest_deck_size: int
    quest_discard: list[QuestId | Literal[""]]
    reassigning: bool
    revealed: list[QuestId | Literal[""]]
    round: int
    seats: list[SeatView]
    stack_size: int
    viewer: int | None


class Options(TypedDict):
    """Match options."""

    larissa: NotRequired[bool]


class GameData(TypedDict):
    """Everything static a client needs to show a match of this game with names, not ids."""

    boards: dict[str, Any]
    catalog: Catalog
    components: list[Component]
    data_digest: str
    decks: list[Deck]
    game_id: str
    kinds: dict[str, str]
    notice: str
    places: NotRequired[list[Place]]
    schema_version: NotRequired[int]
    score: NotRequired[ScoreSheet]
    stand_in: bool
    title: str
    version: str


class ActionBegun(TypedDict):
    """A building space or an intrigue card starts to resolve (plot quests fire once per action)."""

    player: int
    type: Literal["action_begun"]
    what: str


class AgentPlaced(TypedDict):
    ambassador: NotRequired[bool]
    from_pool: NotRequired[bool]
    orb: NotRequired[bool]
    player: int
    shares: NotRequired[SpaceId | Literal[""]]
    space: SpaceId | Literal[""]
    type: Literal["agent_placed"]


class AgentRemoved(TypedDict):
    """An agent leaves a space (reassignment, Recall Agent, Research Chronomancy, Accelerate Plans)."""

    ambassador: NotRequired[bool]
    player: int
    shares: NotRequired[SpaceId | Literal[""]]
    space: SpaceId | Literal[""]
    to_pool: bool
    type: Literal["agent_removed"]


class AmbassadorTaken(TypedDict):
    player: int
    type: Literal["ambassador_taken"]


class Building(TypedDict):
    """A purchased Building tile in play, its owner and what has piled up on it (RES order)."""

    owner: int
    stock: NotRequired[list[int]]
    tile: BuildingId | Literal[""]


class BuildingBought(TypedDict):
    """A tile goes into play under `player`: from Builder's Hall `slot` (its VP tokens are
    scored), or from the top of the stack (`slot` -1).
    """

    cost: int
    player: int
    slot: int
    tile: BuildingId | Literal[""]
    type: Literal["building_bought"]
    vp: int


class BuildingDiscarded(TypedDict):
    player: int
    tile: BuildingId | Literal[""]
    type: Literal["building_discarded"]


class Catalog(TypedDict):
    buildings: list[Tile]
    intrigues: list[Intrigue]
    lords: list[Lord]
    notice: str
    quests: list[Quest]
    schema_version: int
    spaces: list[Space]
    stand_in: bool


class Choose(TypedDict):
    """Answer the decision owed: `option` is one of the strings legal_actions lists."""

    option: str
    type: Literal["choose"]


class CompleteQuest(TypedDict):
    quest: QuestId | Literal[""]
    type: Literal["complete_quest"]


class DecisionDone(TypedDict):
    index: int
    type: Literal["decision_done"]


class DecisionsPushed(TypedDict):
    decisions: list[EventDecision]
    type: Literal["decisions_pushed"]


class DeckShuffled(TypedDict):
    """A discard pile becomes the new deck; `order` is hidden from every seat."""

    deck: DeckId | Literal[""]
    order: list[str]
    rng_counter: int
    type: Literal["deck_shuffled"]


class Effect(TypedDict):
    c: NotRequired[int]
    choices: NotRequired[list[str]]
    f: NotRequired[int]
    gold: NotRequired[int]
    intrigue: NotRequired[int]
    n: NotRequired[int]
    op: str
    r: NotRequired[int]
    types: NotRequired[list[str]]
    vp: NotRequired[int]
    w: NotRequired[int]
    when: NotRequired[str]


class EndTurn(TypedDict):
    """Complete no quest this turn."""

    type: Literal["end_turn"]


class EventDecision(TypedDict):
    """A decision a seat owes. `kind` names it (see rules.DECISIONS); `items` and `count` are
    its arguments; `source` the card or space that caused it; `act` the action it belongs to
    (plot quests fire once per action); decisions sharing a nonzero `group` at the top of the
    stack are owed at once by different seats.
    """

    act: NotRequired[int]
    count: NotRequired[int]
    group: NotRequired[int]
    items: NotRequired[list[str]]
    kind: str
    player: int
    source: NotRequired[str]


class FirstPlayerTaken(TypedDict):
    player: int
    type: Literal["first_player_taken"]


class Gained(TypedDict):
    """Resources change (RES order; negative = paid or returned)."""

    delta: list[int]
    player: int
    type: Literal["gained"]
    why: NotRequired[str]


class GameEnded(TypedDict):
    lords: list[LordId | Literal[""]]
    type: Literal["game_ended"]


class HallRefilled(TypedDict):
    slot: int
    tile: BuildingId | Literal[""]
    type: Literal["hall_refilled"]


class HarborShared(TypedDict):
    """The Zoarstar agent of `player` copied Harbor space `harbor`: it is reassigned with it."""

    harbor: SpaceId | Literal[""]
    player: int
    type: Literal["harbor_shared"]


class InnCleared(TypedDict):
    quests: list[QuestId | Literal[""]]
    type: Literal["inn_cleared"]


class InnRefilled(TypedDict):
    quest: QuestId | Literal[""]
    slot: int
    type: Literal["inn_refilled"]


class Intrigue(TypedDict):
    copies: int
    effect: list[Effect]
    id: str
    name: str
    source: NotRequired[str]
    type: str


class IntrigueDrawn(TypedDict):
    card: IntrigueCopyId | Literal[""]
    player: int
    type: Literal["intrigue_drawn"]


class IntriguePlayed(TypedDict):
    card: IntrigueCopyId | Literal[""]
    player: int
    type: Literal["intrigue_played"]


class LieutenantJoined(TypedDict):
    player: int
    type: Literal["lieutenant_joined"]


class Lord(TypedDict):
    id: str
    name: str
    quest_types: NotRequired[list[str]]
    source: NotRequired[str]
    vp_per_building: NotRequired[int]
    vp_per_quest: NotRequired[int]


class MandatoryQuestGiven(TypedDict):
    card: IntrigueCopyId | Literal[""]
    player: int
    target: int
    type: Literal["mandatory_quest_given"]


class PlaceAgent(TypedDict):
    """Assign an agent (or the Ambassador, or a reassigned Harbor agent) to an action space."""

    space: SpaceId | Literal[""]
    type: Literal["place_agent"]


class Placed(TypedDict):
    """An agent on an action space. `ambassador`: the neutral Ambassador, assigned by `player`.
    `shares`: a Harbor space this agent also uses (The Zoarstar copying an occupied Harbor
    space): it is reassigned with that space, right after the agent already there.
    """

    ambassador: NotRequired[bool]
    player: int
    shares: NotRequired[SpaceId | Literal[""]]
    space: SpaceId | Literal[""]


class PlacementPassed(TypedDict):
    """No legal action space: the seat's remaining agents sit out this round."""

    player: int
    type: Literal["placement_passed"]


class PlotFired(TypedDict):
    act: int
    player: int
    plot: QuestId | Literal[""]
    type: Literal["plot_fired"]


class Quest(TypedDict):
    extra: NotRequired[list[Effect]]
    id: str
    name: str
    plot: NotRequired[list[Effect]]
    requires: Resources
    reward: Resources
    source: NotRequired[str]
    type: str


class QuestCompleted(TypedDict):
    player: int
    plot: bool
    quest: QuestId | Literal[""]
    type: Literal["quest_completed"]
    vp: int


class QuestCompletedThisTurn(TypedDict):
    player: int
    type: Literal["quest_limit_reached"]


class QuestDiscarded(TypedDict):
    player: int
    quest: QuestId | Literal[""]
    type: Literal["quest_discarded"]


class QuestTaken(TypedDict):
    """`slot` 0-3: from Cliffwatch Inn; -1: the top of the Quest deck; -2: from the revealed quests."""

    player: int
    quest: QuestId | Literal[""]
    slot: int
    type: Literal["quest_taken"]


class QuestsRevealed(TypedDict):
    """Quests turned face up from the top of the deck (Bidding War, Special Assignment)."""

    keep: bool
    quests: list[QuestId | Literal[""]]
    type: Literal["quests_revealed"]


class ReassignmentStarted(TypedDict):
    type: Literal["reassignment_started"]


class Resources(TypedDict):
    c: NotRequired[int]
    f: NotRequired[int]
    gold: NotRequired[int]
    intrigue: NotRequired[int]
    r: NotRequired[int]
    vp: NotRequired[int]
    w: NotRequired[int]


class RoundEnded(TypedDict):
    round: int
    type: Literal["round_ended"]


class RoundFlagUsed(TypedDict):
    flag: str
    player: int
    type: Literal["round_flag_used"]


class RoundStarted(TypedDict):
    """1 VP on each Builder's Hall tile, stock on accumulating tiles in play, round 5's agent."""

    round: int
    type: Literal["round_started"]


class SeatView(TypedDict):
    agents: int
    completed: list[QuestId | Literal[""]]
    cubes: dict[str, int]
    gold: int
    intrigue: list[IntrigueCopyId | Literal[""]] | None
    intrigue_count: int
    lieutenant: bool
    lord: LordId | Literal[""] | None
    miracle_used: bool
    orb_used: bool
    player: int
    plots: list[QuestId | Literal[""]]
    pool: int
    quests: list[QuestId | Literal[""]]
    score: int
    vp: int


class Space(TypedDict):
    action: list[Effect]
    id: str
    name: str
    source: NotRequired[str]


class StockTaken(TypedDict):
    tile: BuildingId | Literal[""]
    type: Literal["stock_taken"]


class Tile(TypedDict):
    action: list[Effect]
    cost: int
    id: str
    name: str
    owner: list[Effect]
    source: NotRequired[str]
    stock: NotRequired[Resources]


class TurnEnded(TypedDict):
    player: int
    type: Literal["turn_ended"]


class TurnStarted(TypedDict):
    ambassador: NotRequired[bool]
    player: int
    type: Literal["turn_started"]


Action: TypeAlias = PlaceAgent | CompleteQuest | EndTurn | Choose
"""Lords of Waterdeep action"""
Event: TypeAlias = (
    RoundStarted
    | TurnStarted
    | TurnEnded
    | ReassignmentStarted
    | RoundEnded
    | GameEnded
    | DecisionsPushed
    | DecisionDone
    | AgentPlaced
    | AgentRemoved
    | HarborShared
    | PlacementPassed
    | ActionBegun
    | Gained
    | PlotFired
    | StockTaken
    | DeckShuffled
    | IntrigueDrawn
    | IntriguePlayed
    | MandatoryQuestGiven
    | QuestTaken
    | InnRefilled
    | InnCleared
    | QuestsRevealed
    | QuestDiscarded
    | QuestCompleted
    | BuildingBought
    | HallRefilled
    | BuildingDiscarded
    | FirstPlayerTaken
    | AmbassadorTaken
    | LieutenantJoined
    | RoundFlagUsed
    | QuestCompletedThisTurn
)
"""Lords of Waterdeep event"""
BuildingId: TypeAlias = Literal[
    "caravan_court",
    "dragon_tower",
    "fetlock_court",
    "helmstar_warehouse",
    "heroes_garden",
    "house_of_good_spirits",
    "house_of_heroes",
    "house_of_the_moon",
    "house_of_wonder",
    "jesters_court",
    "new_olamn",
    "northgate",
    "smugglers_dock",
    "spires_of_the_morning",
    "the_golden_horn",
    "the_palace_of_waterdeep",
    "the_skulkway",
    "the_stone_house",
    "the_three_pearls",
    "the_tower_of_luck",
    "the_waymoot",
    "the_yawning_portal",
    "the_zoarstar",
    "tower_of_the_order",
]
"""An id of a building of Lords of Waterdeep's game data."""
DeckId: TypeAlias = Literal["building_stack", "intrigue", "intrigue_deck", "quest", "quest_deck"]
"""An id of a deck of Lords of Waterdeep's game data."""
IntrigueCopyId: TypeAlias = Literal[
    "accelerate_plans.1",
    "ambush.1",
    "ambush.2",
    "arcane_mishap.1",
    "arcane_mishap.2",
    "assassination.1",
    "assassination.2",
    "bidding_war.1",
    "bidding_war.2",
    "bidding_war.3",
    "bribe_agent.1",
    "bribe_agent.2",
    "call_for_adventurers.1",
    "call_for_adventurers.2",
    "call_in_a_favor.1",
    "call_in_a_favor.2",
    "change_of_plans.1",
    "conscription.1",
    "conscription.2",
    "crime_wave.1",
    "crime_wave.2",
    "fend_off_bandits.1",
    "foil_the_zhentarim.1",
    "free_drinks.1",
    "free_drinks.2",
    "good_faith.1",
    "good_faith.2",
    "graduation_day.1",
    "graduation_day.2",
    "lack_of_faith.1",
    "lack_of_faith.2",
    "placate_angry_merchants.1",
    "quell_riots.1",
    "real_estate_deal.1",
    "recall_agent.1",
    "recall_agent.2",
    "recruit_spies.1",
    "repel_drow_invaders.1",
    "request_assistance.1",
    "research_agreement.1",
    "sample_wares.1",
    "sample_wares.2",
    "special_assignment.1",
    "special_assignment.2",
    "spread_the_wealth.1",
    "spread_the_wealth.2",
    "stamp_out_cultists.1",
    "summon_the_faithful.1",
    "tax_collection.1",
    "tax_collection.2",
]
"""An id of a intrigue copy of Lords of Waterdeep's game data."""
LordId: TypeAlias = Literal[
    "brianne_byndraeth",
    "caladorn_cassalanter",
    "durnan_the_wanderer",
    "khelben_arunsun",
    "kyriani_agrivar",
    "larissa_neathal",
    "mirt_the_moneylender",
    "nindil_jalbuck",
    "nymara_scheiron",
    "piergeiron_the_paladinson",
    "sammereza_sulphontis",
]
"""An id of a lord of Lords of Waterdeep's game data."""
QuestId: TypeAlias = Literal[
    "ally_with_house_thann",
    "ambush_artor_morlin",
    "bolster_city_guard",
    "bolster_griffon_cavalry",
    "bribe_the_shipwrights",
    "build_a_reputation_in_skullport",
    "confront_the_xanathar",
    "convert_a_noble_to_lathander",
    "create_a_shrine_to_oghma",
    "defeat_uprising_from_undermountain",
    "defend_the_tower_of_luck",
    "deliver_an_ultimatum",
    "deliver_weapons_to_selunes_temple",
    "discover_hidden_temple_of_lolth",
    "domesticate_owlbears",
    "eliminate_vampire_coven",
    "establish_harpers_safe_house",
    "establish_new_merchant_guild",
    "establish_shadow_thieves_guild",
    "explore_ahghairons_tower",
    "expose_cult_corruption",
    "expose_red_wizards_spies",
    "fence_goods_for_duke_of_darkness",
    "fend_off_bandits",
    "fend_off_bandits.1",
    "foil_the_zhentarim",
    "foil_the_zhentarim.1",
    "form_an_alliance_with_the_rashemi",
    "heal_fallen_gray_hand_soldiers",
    "host_festival_for_sune",
    "impersonate_adarbrent_noble",
    "infiltrate_builders_hall",
    "infiltrate_halasters_circle",
    "install_a_spy_in_castle_waterdeep",
    "investigate_aberrant_infestation",
    "loot_the_crypt_of_chauntea",
    "lure_artisans_of_mirabar",
    "perform_the_penance_of_duty",
    "placate_angry_merchants",
    "placate_angry_merchants.1",
    "placate_the_walking_statue",
    "place_a_sleeper_agent_in_skullport",
    "prison_break",
    "procure_stolen_goods",
    "produce_a_miracle_for_the_masses",
    "protect_the_house_of_wonder",
    "quell_mercenary_uprising",
    "quell_riots",
    "quell_riots.1",
    "raid_on_undermountain",
    "raid_orc_stronghold",
    "recover_the_magisters_orb",
    "recruit_for_blackstaff_academy",
    "recruit_lieutenant",
    "recruit_paladins_for_tyr",
    "repel_drow_invaders",
    "repel_drow_invaders.1",
    "repel_seawraiths",
    "research_chronomancy",
    "retrieve_ancient_artifacts",
    "safeguard_eltorchul_mage",
    "seal_gate_to_cyrics_realm",
    "send_aid_to_the_harpers",
    "spy_on_the_house_of_light",
    "stamp_out_cultists",
    "stamp_out_cultists.1",
    "steal_from_house_adarbrent",
    "steal_spellbook_from_silverhand",
    "study_the_illusk_arch",
    "take_over_rival_organization",
    "thin_the_city_watch",
    "train_bladesingers",
]
"""An id of a quest of Lords of Waterdeep's game data."""
SpaceId: TypeAlias = Literal[
    "aurora_realms_shop",
    "blackstaff_tower",
    "builders_hall",
    "caravan_court",
    "castle_waterdeep",
    "cliffwatch_inn_1",
    "cliffwatch_inn_2",
    "cliffwatch_inn_3",
    "dragon_tower",
    "fetlock_court",
    "field_of_triumph",
    "grinning_lion_tavern",
    "helmstar_warehouse",
    "heroes_garden",
    "house_of_good_spirits",
    "house_of_heroes",
    "house_of_the_moon",
    "house_of_wonder",
    "jesters_court",
    "new_olamn",
    "northgate",
    "smugglers_dock",
    "spires_of_the_morning",
    "the_golden_horn",
    "the_palace_of_waterdeep",
    "the_plinth",
    "the_skulkway",
    "the_stone_house",
    "the_three_pearls",
    "the_tower_of_luck",
    "the_waymoot",
    "the_yawning_portal",
    "the_zoarstar",
    "tower_of_the_order",
    "waterdeep_harbor_1",
    "waterdeep_harbor_2",
    "waterdeep_harbor_3",
]
"""An id of a space of Lords of Waterdeep's game data."""
