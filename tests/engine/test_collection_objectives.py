"""Collection's objectives: the checker by hand, then the matcher and the solver against a
brute-force reference written straight from the rules (hypothesis, small random collections)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pioche_tui.engine.collection.cards import (
    CARD_COUNT,
    COLOUR,
    COLOURS,
    DOUBLE,
    KIND,
    OBJECTIVES,
    RAINBOW,
    SHADOW,
    SHADOW_WILD_BONUS,
    SUITE_SHADOW_POINTS,
    VALUE,
    VALUES,
)
from pioche_tui.engine.collection.objectives import (
    ALL_OBJECTIVES,
    Combination,
    best_selection,
    combinations,
    points_of,
    total_points,
)

RAINBOWS = [c for c in range(CARD_COUNT) if KIND[c] == RAINBOW]
SHADOWS = [c for c in range(CARD_COUNT) if KIND[c] == SHADOW]


def card(value: int, colour: str, copy: int = 0) -> int:
    """The classic card ``value`` of ``colour`` (first or second copy)."""
    matches = [
        c for c in range(CARD_COUNT)
        if VALUE[c] == value and COLOUR[c] == COLOURS.index(colour) and KIND[c] == 0
    ]
    return matches[copy]


R1, R2, R3 = RAINBOWS[:3]
S1, S2, S3 = SHADOWS[:3]


# --- The checker, by hand -------------------------------------------------------------------


# The barème (docs/rules/collection.md): objective number → points; Suite Shadow apart.
P = {o.number: o.points for o in OBJECTIVES}
BONUS = SHADOW_WILD_BONUS


def test_the_bareme_is_the_documented_one() -> None:
    assert [P[o] for o in ALL_OBJECTIVES] == [10, 20, 20, 20, 30, 85, 30, 55, 45, 145]
    assert (SUITE_SHADOW_POINTS, BONUS) == (170, 10)


def test_pairs_brelans_carres() -> None:
    assert points_of(1, [card(3, "rouge"), card(3, "vert")]) == P[1]
    assert points_of(1, [card(3, "rouge"), card(4, "rouge")]) is None
    assert points_of(1, [card(3, "rouge"), R1]) == P[1]  # a Rainbow stands in, no bonus
    assert points_of(1, [card(3, "rouge"), S1]) == P[1] + BONUS  # a Shadow stands in: +10
    assert points_of(1, [R1, S1]) is None  # never two wild cards
    assert points_of(3, [card(5, "bleu"), card(5, "jaune"), card(5, "bleu", 1)]) == P[3]
    assert points_of(8, [card(2, c) for c in ("rouge", "jaune", "vert", "bleu")]) == P[8]
    assert points_of(8, [card(2, c) for c in ("rouge", "jaune", "vert")] + [S1]) == P[8] + BONUS


def test_double_paire_and_full_need_two_values() -> None:
    two_pairs = [card(1, "rouge"), card(1, "vert"), card(6, "bleu"), card(6, "jaune")]
    assert points_of(2, two_pairs) == P[2]
    same = [card(1, "rouge"), card(1, "vert"), card(1, "bleu"), card(1, "jaune")]
    assert points_of(2, same) is None
    full = [card(4, "rouge"), card(4, "vert"), card(4, "bleu"), card(2, "bleu"), card(2, "rouge")]
    assert points_of(5, full) == P[5]
    assert points_of(5, [*full[:4], R1]) == P[5]  # 4 4 4 2 + Rainbow as a 2
    assert points_of(5, [*full[1:], S1]) == P[5] + BONUS  # 4 4 2 2 + Shadow as a 4


def test_suites_colours_and_rainbow() -> None:
    petite = [card(v, c) for v, c in zip((2, 3, 4, 5), COLOURS, strict=False)]
    assert points_of(4, petite) == P[4]
    assert points_of(4, [*petite[:2], petite[3], S1]) == P[4] + BONUS  # Shadow as the 4
    assert points_of(4, [card(1, "rouge"), card(2, "rouge"), card(3, "rouge"), card(5, "vert")]) \
        is None
    grande = [card(v, c) for v, c in zip((2, 3, 4, 5, 6), COLOURS, strict=True)]
    assert points_of(7, grande) == P[7]
    assert points_of(9, grande) == P[9]  # five colours: an Arc-en-ciel too
    same_colour = [card(v, "rouge") for v in (2, 3, 4, 5, 6)]
    assert points_of(9, same_colour) is None
    assert points_of(7, same_colour) == P[7]
    assert points_of(6, same_colour) == P[6]
    assert points_of(6, [*same_colour[:4], card(1, "vert")]) is None
    assert points_of(6, [*same_colour[:4], S1]) == P[6] + BONUS
    assert points_of(9, [*grande[:4], R1]) == P[9]  # the Rainbow as the 6, colour violet


def test_suite_pure_is_pure() -> None:
    assert points_of(10, [R1, R2, R3]) == P[10]
    assert points_of(10, [S1, S2, S3]) == SUITE_SHADOW_POINTS
    assert points_of(10, [S1, S2, R1]) is None
    assert points_of(10, [S1, S2, card(1, "rouge")]) is None
    assert points_of(10, [S1, S2]) is None


def test_what_never_fills_an_objective() -> None:
    assert points_of(1, [card(3, "rouge"), card(3, "rouge")]) is None  # the same card twice
    assert points_of(1, [card(3, "rouge"), DOUBLE]) is None  # a special card
    assert points_of(1, [card(3, "rouge"), card(3, "vert"), card(3, "bleu")]) is None  # 3 cards
    assert points_of(11, [card(3, "rouge"), card(3, "vert")]) is None


def test_solver_on_the_whole_deck_fills_everything() -> None:
    """All 78 cards: every objective, the Shadows split between a Suite Shadow and three
    wilds (+30), or the Rainbows' Suite and six Shadows standing in (+60)."""
    best = best_selection(list(range(CARD_COUNT)), ALL_OBJECTIVES)
    assert sorted(c.objective for c in best) == list(ALL_OBJECTIVES)
    assert total_points(best) == sum(o.points for o in OBJECTIVES[:9]) + max(
        P[10] + 6 * BONUS, SUITE_SHADOW_POINTS + 3 * BONUS)
    assert_valid_selection(best, list(range(CARD_COUNT)), ALL_OBJECTIVES)


def test_solver_respects_open_objectives_and_is_deterministic() -> None:
    threes = [card(3, "rouge"), card(3, "vert"), card(3, "bleu")]
    cards = [*threes, card(5, "rouge"), card(5, "vert"), card(1, "jaune"), card(1, "violet")]
    best = best_selection(cards, ALL_OBJECTIVES)
    # a Full and a Paire, or a Brelan and a Double paire
    assert total_points(best) == max(P[5] + P[1], P[3] + P[2])
    assert best == best_selection(list(reversed(cards)), ALL_OBJECTIVES)
    assert total_points(best_selection(cards, [1, 3])) == P[3] + P[1]  # Brelan, Paire
    assert total_points(best_selection(cards, [5])) == P[5]
    assert best_selection(cards, []) == ()
    assert best_selection(cards[:1], ALL_OBJECTIVES) == ()


def test_matcher_lists_each_objective_and_score() -> None:
    cards = [card(3, "rouge"), card(3, "vert"), card(4, "bleu"), S1, R1, R2]
    found = {(c.objective, c.points) for c in combinations(cards, ALL_OBJECTIVES)}
    assert (1, P[1]) in found and (1, P[1] + BONUS) in found  # plain, and with the Shadow
    assert (3, P[3]) in found and (3, P[3] + BONUS) in found  # 3 3 and a Rainbow, or Shadow
    assert (10, P[10]) not in found  # only two Rainbows
    for combo in combinations(cards, ALL_OBJECTIVES):
        assert points_of(combo.objective, combo.cards) == combo.points
        assert set(combo.cards) <= set(cards)


# --- The brute-force reference -----------------------------------------------------------------
# Written from the rules, independently of the engine's patterns: a wild card is replaced in
# turn by every classic card (value, colour), and the natural rule checked on the result.


def natural(objective: int, cards: Sequence[tuple[int, int]]) -> bool:
    """Do these (value, colour) cards fill ``objective`` with no wild card?"""
    values = sorted(v for v, _ in cards)
    colours = [c for _, c in cards]
    counts = sorted((values.count(v) for v in set(values)), reverse=True)
    run = values == list(range(values[0], values[0] + len(values)))
    return {
        1: len(cards) == 2 and counts == [2],
        2: len(cards) == 4 and counts == [2, 2],
        3: len(cards) == 3 and counts == [3],
        4: len(cards) == 4 and run,
        5: len(cards) == 5 and counts == [3, 2],
        6: len(cards) == 5 and len(set(colours)) == 1,
        7: len(cards) == 5 and run,
        8: len(cards) == 4 and counts == [4],
        9: len(cards) == 5 and run and len(set(colours)) == 5,
    }[objective]


def reference_points(objective: int, cards: Sequence[int]) -> int | None:
    kinds = [KIND[c] for c in cards]
    if objective == 10:
        if len(cards) == 3 and kinds.count(RAINBOW) == 3:
            return OBJECTIVES[9].points
        if len(cards) == 3 and kinds.count(SHADOW) == 3:
            return SUITE_SHADOW_POINTS
        return None
    if any(k not in (0, RAINBOW, SHADOW) for k in kinds):
        return None
    classics = [(VALUE[c], COLOUR[c]) for c in cards if KIND[c] == 0]
    wilds = [k for k in kinds if k != 0]
    if len(wilds) > 1:
        return None
    base = OBJECTIVES[objective - 1].points
    if not wilds:
        return base if natural(objective, classics) else None
    stand_ins = itertools.product(VALUES, range(len(COLOURS)))
    if any(natural(objective, [*classics, s]) for s in stand_ins):
        return base + (10 if wilds[0] == SHADOW else 0)
    return None


def reference_combinations(
    cards: Sequence[int], open_: Sequence[int]
) -> list[tuple[int, frozenset[int], int]]:
    found = []
    for size in range(2, 6):
        for subset in itertools.combinations(sorted(cards), size):
            for objective in open_:
                points = reference_points(objective, subset)
                if points is not None:
                    found.append((objective, frozenset(subset), points))
    return found


def reference_best(combos: list[tuple[int, frozenset[int], int]]) -> int:
    best = 0

    def extend(start: int, used: frozenset[int], done: frozenset[int], points: int) -> None:
        nonlocal best
        best = max(best, points)
        for i in range(start, len(combos)):
            objective, subset, gain = combos[i]
            if objective not in done and not subset & used:
                extend(i + 1, used | subset, done | {objective}, points + gain)

    extend(0, frozenset(), frozenset(), 0)
    return best


def assert_valid_selection(
    selection: Sequence[Combination], cards: Sequence[int], open_: Sequence[int]
) -> None:
    used = [c for combo in selection for c in combo.cards]
    assert len(used) == len(set(used)), "a card serves two objectives"
    assert set(used) <= set(cards)
    objectives = [combo.objective for combo in selection]
    assert len(objectives) == len(set(objectives)) and set(objectives) <= set(open_)
    for combo in selection:
        assert reference_points(combo.objective, combo.cards) == combo.points


# Small collections drawn from a narrow part of the deck, so that values, colours and wild cards
# collide often: that is where the objectives compete for cards.
NARROW = [c for c in range(CARD_COUNT) if KIND[c] == 0 and VALUE[c] <= 5 and COLOUR[c] <= 2]
DECK_PARTS = st.sampled_from([NARROW, list(range(CARD_COUNT))])


@st.composite
def collections(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    part = draw(DECK_PARTS)
    cards = draw(st.lists(st.sampled_from(part), max_size=8, unique=True))
    wilds = draw(st.lists(st.sampled_from(RAINBOWS[:4] + SHADOWS[:4]), max_size=4, unique=True))
    open_ = draw(st.lists(st.sampled_from(ALL_OBJECTIVES), min_size=1, unique=True))
    return sorted(set(cards + wilds)), sorted(open_)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_matcher_and_solver_match_brute_force(case: tuple[list[int], list[int]]) -> None:
    cards, open_ = case
    reference = reference_combinations(cards, open_)
    offered = combinations(cards, open_)
    assert {(c.objective, c.points) for c in offered} == {(o, p) for o, _, p in reference}
    assert_valid_selection([], cards, open_)
    for combo in offered:
        assert_valid_selection([combo], cards, open_)
    best = best_selection(cards, open_)
    assert_valid_selection(best, cards, open_)
    assert total_points(best) == reference_best(reference)


def test_couleur_and_arc_en_ciel_share_colours_carefully() -> None:
    """Five reds make the Couleur; the Arc-en-ciel must take its colours elsewhere, its 6 from
    the sixth red: the solver finds both (and the brute force agrees)."""
    reds = [card(v, "rouge") for v in (1, 2, 3, 4, 5)]
    others = [card(2, "jaune"), card(3, "vert"), card(4, "bleu"), card(5, "violet")]
    cards = [*reds, *others, card(6, "rouge")]
    best = best_selection(cards, [6, 9])
    assert total_points(best) == P[6] + P[9]
    assert_valid_selection(best, cards, [6, 9])
    assert total_points(best) == reference_best(reference_combinations(cards, [6, 9]))
    everything = best_selection([*cards, S1, R1], ALL_OBJECTIVES)
    assert_valid_selection(everything, [*cards, S1, R1], ALL_OBJECTIVES)
    assert total_points(everything) == reference_best(
        reference_combinations([*cards, S1, R1], ALL_OBJECTIVES)
    )
