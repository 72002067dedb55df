"""The scorecard's objectives: a checker, a matcher and a solver.

- :func:`points_of` says whether given cards fill an objective, and for how much.
- :func:`combinations` (the matcher) lists what a collection can fill now: for each open
  objective and each score it can reach (with or without a Shadow standing in; Suite Rainbow or
  Suite Shadow), one combination with the cards it would use.
- :func:`best_selection` (the solver) finds a best-scoring set of disjoint combinations, at most
  one per open objective.

How the solver works (« The solver » below says it in full). What a set of objectives is worth
is known before its cards are chosen: the solver lists the sets, most worth first, and keeps
the first that the collection can fill — exact for every collection, the whole deck included
(tests: brute force on small collections, an integer linear program on large ones). Whether a
set fits: the runs (Arc-en-ciel, Grande and Petite suite) are tried in turn, and the others are
placed by a search on each value's counts (values alike are interchangeable), Couleur last.

Counts by value are packed into one int (see "Counts, packed") so that the inner loops are a
few integer operations each.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache

from .cards import (
    CLASSIC,
    COLOUR,
    COLOURS,
    KIND,
    OBJECTIVES,
    RAINBOW,
    RAINBOW_TYPE,
    SHADOW,
    SHADOW_TYPE,
    SHADOW_WILD_BONUS,
    SUITE_LENGTH,
    SUITE_SHADOW_POINTS,
    TYPE,
    VALUE,
    VALUES,
)

PAIRE, DOUBLE_PAIRE, BRELAN, PETITE_SUITE, FULL = 1, 2, 3, 4, 5
COULEUR, GRANDE_SUITE, CARRE, ARC_EN_CIEL, SUITE_PURE = 6, 7, 8, 9, 10
ALL_OBJECTIVES = tuple(o.number for o in OBJECTIVES)
COLOUR_OBJECTIVE_SIZE = 5  # cards in a Couleur
ARC_VALUES = 5  # values in an Arc-en-ciel
ARC_STARTS = (1, 2)  # its first value: 1-5 or 2-6
NO_WILD = -1  # no Rainbow or Shadow standing in


@dataclass(frozen=True, slots=True)
class Combination:
    """Cards that fill one objective: ``cards`` sorted, ``points`` what they score."""

    objective: int
    cards: tuple[int, ...]
    points: int


def base_points(objective: int) -> int:
    return OBJECTIVES[objective - 1].points


def total_points(selection: Iterable[Combination]) -> int:
    return sum(c.points for c in selection)


# --- Patterns: every way to fill each objective, by values ------------------------------------


def _natural_values(objective: int) -> list[tuple[int, ...]]:
    """Every sorted multiset of values that fills ``objective`` with no wild card (Couleur
    takes any values and is left out)."""
    vs = VALUES
    if objective == PAIRE:
        return [(v, v) for v in vs]
    if objective == DOUBLE_PAIRE:
        return [(a, a, b, b) for a in vs for b in vs if a < b]
    if objective == BRELAN:
        return [(v,) * 3 for v in vs]
    if objective == PETITE_SUITE:
        return [tuple(range(w, w + 4)) for w in vs if w + 3 <= vs[-1]]
    if objective == FULL:
        return [tuple(sorted((a, a, a, b, b))) for a in vs for b in vs if a != b]
    if objective in (GRANDE_SUITE, ARC_EN_CIEL):
        return [tuple(range(w, w + 5)) for w in vs if w + 4 <= vs[-1]]
    if objective == CARRE:
        return [(v,) * 4 for v in vs]
    raise ValueError(objective)


def _patterns(objective: int) -> dict[tuple[tuple[int, ...], int], int]:
    """(sorted values, wild type or NO_WILD) → points: each natural multiset, then each with
    one card replaced by a Rainbow (same points) or a Shadow (bonus). Natural ones first."""
    points = base_points(objective)
    found = {(values, NO_WILD): points for values in _natural_values(objective)}
    for values in _natural_values(objective):
        for i in range(len(values)):
            rest = values[:i] + values[i + 1 :]
            found.setdefault((rest, RAINBOW_TYPE), points)
            found.setdefault((rest, SHADOW_TYPE), points + SHADOW_WILD_BONUS)
    return found


VALUE_OBJECTIVES = (PAIRE, DOUBLE_PAIRE, BRELAN, PETITE_SUITE, FULL, GRANDE_SUITE, CARRE)
PATTERNS = {o: _patterns(o) for o in (*VALUE_OBJECTIVES, ARC_EN_CIEL)}
SUITE_PURE_POINTS = {RAINBOW_TYPE: base_points(SUITE_PURE), SHADOW_TYPE: SUITE_SHADOW_POINTS}


def points_of(objective: int, cards: Collection[int]) -> int | None:
    """What exactly ``cards`` (each once) score on ``objective``, or None if they do not fill it."""
    if len(set(cards)) != len(cards) or not 1 <= objective <= len(OBJECTIVES):
        return None
    wilds = [TYPE[c] for c in cards if KIND[c] in (RAINBOW, SHADOW)]
    classics = [c for c in cards if KIND[c] == CLASSIC]
    if len(wilds) + len(classics) != len(cards):
        return None  # a special card fills nothing
    if objective == SUITE_PURE:
        if len(cards) == SUITE_LENGTH and len(set(wilds)) == 1 and not classics:
            return SUITE_PURE_POINTS[wilds[0]]
        return None
    if len(wilds) > 1:
        return None
    bonus = SHADOW_WILD_BONUS if wilds == [SHADOW_TYPE] else 0
    colours = {COLOUR[c] for c in classics}
    if objective == COULEUR:
        ok = len(cards) == COLOUR_OBJECTIVE_SIZE and len(colours) == 1
        return base_points(objective) + bonus if ok else None
    if objective == ARC_EN_CIEL and len(colours) != len(classics):
        return None
    wild = wilds[0] if wilds else NO_WILD
    return PATTERNS[objective].get((tuple(sorted(VALUE[c] for c in classics)), wild))


# --- Counts, packed ---------------------------------------------------------------------------
# The solver counts cards by value (fields 0..5 for values 1..6), Rainbow (6) and Shadow (7) and
# packs the counts into one int, 5 bits each: 4 for the count (at most 10 cards share a value)
# and a guard bit above it. Setting every guard bit, then subtracting a need, clears a field's
# guard exactly when that field would go below zero: one subtraction tells whether the need fits
# and leaves what is left. The solver runs at every round's end for every player (bots and the
# simulator play thousands of games a second), hence this.

_BITS = 5
_COUNT = (1 << (_BITS - 1)) - 1
_R, _S = len(VALUES), len(VALUES) + 1
_FIELDS = len(VALUES) + 2
_GUARDS = sum(1 << (i * _BITS + _BITS - 1) for i in range(_FIELDS))
_WILD_FIELD = {RAINBOW_TYPE: _R, SHADOW_TYPE: _S}


def _fits(have: int, need: int) -> bool:
    return ((have | _GUARDS) - need) & _GUARDS == _GUARDS


def _count(have: int, field: int) -> int:
    return have >> (field * _BITS) & _COUNT


@dataclass(frozen=True, slots=True)
class _Option:
    """One way to fill an objective: its points, the counts it takes (``need``, packed), its
    values and wild, the same as (value or wild type, how many) pairs (``picks``), and for
    Couleur the exact cards by type (``exact``: (type, how many))."""

    objective: int
    points: int
    need: int
    values: tuple[int, ...]
    wild: int
    picks: tuple[tuple[int, int], ...]
    exact: tuple[tuple[int, int], ...] = ()


def _option(objective: int, values: tuple[int, ...], wild: int, points: int) -> _Option:
    need = sum(1 << ((v - 1) * _BITS) for v in values)
    picks = tuple(Counter(values).items())
    if wild != NO_WILD:
        wilds = SUITE_LENGTH if objective == SUITE_PURE else 1
        need += wilds << (_WILD_FIELD[wild] * _BITS)
        picks += ((wild, wilds),)
    return _Option(objective, points, need, values, wild, picks)


def _options(objective: int) -> tuple[_Option, ...]:
    """Every option of a value objective, Arc-en-ciel or Suite pure: best points first,
    natural first among equals."""
    if objective == SUITE_PURE:
        found = [_option(objective, (), w, p) for w, p in SUITE_PURE_POINTS.items()]
    else:
        found = [_option(objective, vs, w, p) for (vs, w), p in PATTERNS[objective].items()]
    found.sort(key=lambda o: (-o.points, o.wild != NO_WILD))
    return tuple(found)


OPTIONS = {o: _options(o) for o in (*VALUE_OBJECTIVES, ARC_EN_CIEL, SUITE_PURE)}


def _unit(card: int) -> int:
    """A card's contribution to packed counts (0 for a special card, which fills nothing)."""
    if KIND[card] == CLASSIC:
        return 1 << ((VALUE[card] - 1) * _BITS)
    return 1 << (_WILD_FIELD[TYPE[card]] * _BITS) if TYPE[card] in _WILD_FIELD else 0


_UNIT = tuple(_unit(c) for c in range(len(KIND)))


# --- The collection, counted -----------------------------------------------------------------


class _Pool:
    """A collection counted by type, by colour and packed by value, its cards at hand by type."""

    __slots__ = ("by_type", "by_value", "colour_masks", "colours", "count", "have")

    def __init__(self, cards: Iterable[int]) -> None:
        by_type: dict[int, list[int]] = {}
        by_value: dict[int, list[int]] = {}  # classic cards by value, wild ones by type
        colours = [0] * len(COLOURS)
        colour_masks = [0] * (len(VALUES) + 1)  # by value: the colours at hand, as bits
        have = 0
        for c in sorted(cards):
            t = TYPE[c]
            by_type.setdefault(t, []).append(c)
            by_value.setdefault(VALUE[c] or t, []).append(c)
            have += _UNIT[c]
            colour = COLOUR[c]
            if colour >= 0:
                colours[colour] += 1
                colour_masks[VALUE[c]] |= 1 << colour
        self.by_type, self.by_value, self.have = by_type, by_value, have
        self.colours, self.colour_masks = colours, colour_masks
        self.count = {t: len(cs) for t, cs in by_type.items()}

    def colour_count(self, colour: int, value: int) -> int:
        return self.count.get(_classic_type(colour, value), 0)


def _classic_type(colour: int, value: int) -> int:
    return colour * len(VALUES) + value - 1


_TYPES_OF_VALUE = {v: tuple(_classic_type(c, v) for c in range(len(COLOURS))) for v in VALUES}
VALUE_OF_TYPE = [t % len(VALUES) + 1 for t in range(len(COLOURS) * len(VALUES))]
COLOUR_OF_TYPE = [t // len(VALUES) for t in range(len(COLOURS) * len(VALUES))]


def _bounded_multisets(avail: list[int], size: int, start: int = 0) -> Iterator[list[int]]:
    """Every way to take ``size`` items, at most ``avail[i]`` of kind i, as counts by kind;
    the most of the first kinds first."""
    if size == 0:
        yield [0] * (len(avail) - start)
        return
    if start == len(avail) or sum(avail[start:]) < size:
        return
    for k in range(min(avail[start], size), -1, -1):
        for rest in _bounded_multisets(avail, size - k, start + 1):
            yield [k, *rest]


def _couleur_options(pool: _Pool, first_only: bool = False) -> list[_Option]:
    """Every way to fill Couleur with the pool's cards, best points first (``first_only``: one
    per colour and wild, enough for the matcher)."""
    found: list[_Option] = []
    if max(pool.colours) + 1 < COLOUR_OBJECTIVE_SIZE:
        return found  # not even with a wild
    wilds = [w for w in (RAINBOW_TYPE, SHADOW_TYPE) if w in pool.by_value]
    for colour in range(len(COLOURS)):
        if pool.colours[colour] + bool(wilds) < COLOUR_OBJECTIVE_SIZE:
            continue
        avail = [pool.colour_count(colour, v) for v in VALUES]
        for wild in (NO_WILD, *wilds):
            points = base_points(COULEUR) + (SHADOW_WILD_BONUS if wild == SHADOW_TYPE else 0)
            size = COLOUR_OBJECTIVE_SIZE - (wild != NO_WILD)
            for counts in itertools.islice(_bounded_multisets(avail, size), first_only or None):
                values = tuple(v for v, k in zip(VALUES, counts, strict=True) for _ in range(k))
                option = _option(COULEUR, values, wild, points)
                exact = tuple(
                    (_classic_type(colour, v), k) for v, k in zip(VALUES, counts, strict=True) if k
                )
                found.append(
                    _Option(COULEUR, points, option.need, values, wild, option.picks, exact)
                )
    found.sort(key=lambda o: -o.points)
    return found


def _arc_colours(
    pool: _Pool, values: tuple[int, ...], taken: Iterable[tuple[int, int]]
) -> tuple[int, ...] | None:
    """Distinct colours for ``values`` (one card each) among the cards not ``taken``, or None.
    Depth first over the colours each value has at hand (bit masks): at most 5 × 5."""
    out = dict(taken)
    at_hand = [pool.colour_masks[v] for v in values]
    for t, k in out.items():  # cards already taken: a colour is gone once both copies are
        if t < RAINBOW_TYPE and pool.count.get(t, 0) <= k and VALUE_OF_TYPE[t] in values:
            i = values.index(VALUE_OF_TYPE[t])
            at_hand[i] &= ~(1 << COLOUR_OF_TYPE[t])
    union = 0
    for colours in at_hand:
        union |= colours
    if not all(at_hand) or union.bit_count() < len(values):
        return None

    def assign(i: int, used: int) -> tuple[int, ...] | None:
        if i == len(values):
            return ()
        free = at_hand[i] & ~used
        while free:
            colour = (free & -free).bit_length() - 1
            rest = assign(i + 1, used | 1 << colour)
            if rest is not None:
                return (colour, *rest)
            free &= free - 1
        return None

    return assign(0, 0)


def _arc_options(pool: _Pool) -> Iterator[_Option]:
    """The ways to fill Arc-en-ciel with the pool's cards (best points first), lazily."""
    masks = pool.colour_masks
    wilds = RAINBOW_TYPE in pool.by_value or SHADOW_TYPE in pool.by_value
    if all(
        sum(1 for v in range(w, w + ARC_VALUES) if masks[v]) + wilds < ARC_VALUES
        for w in ARC_STARTS
    ):
        return  # no window of values a wild could complete
    for o in OPTIONS[ARC_EN_CIEL]:
        if _fits(pool.have, o.need) and _arc_colours(pool, o.values, ()) is not None:
            yield o


# --- Sizes -----------------------------------------------------------------------------------


def _mask(objectives: Iterable[int]) -> int:
    mask = 0
    for o in objectives:
        mask |= 1 << o
    return mask


def _size(objective: int) -> int:
    """How many cards an objective takes (Couleur: COLOUR_OBJECTIVE_SIZE)."""
    if objective == COULEUR:
        return COLOUR_OBJECTIVE_SIZE
    return len(_natural_values(objective)[0]) if objective != SUITE_PURE else SUITE_LENGTH


SIZES = {o: _size(o) for o in ALL_OBJECTIVES}
SMALLEST = min(SIZES.values())  # fewer cards fill nothing
_WITHIN = [
    _mask(o for o in ALL_OBJECTIVES if SIZES[o] <= n) for n in range(max(SIZES.values()) + 1)
]
"""By number of cards: the objectives (as a mask) that many cards could fill."""


# --- Real cards ----------------------------------------------------------------------------


def _pick(pool: _Pool, options: list[_Option]) -> list[Combination]:
    """Real cards for ``options``, which fit the pool together: Couleur's exact cards first,
    then Arc-en-ciel's colours around them, then any colour for the others."""
    used: dict[int, int] = {}  # by type: how many of the pool's cards are taken

    def take(t: int, k: int = 1) -> list[int]:
        n = used.get(t, 0)
        used[t] = n + k
        return pool.by_type[t][n : n + k]

    cards: dict[int, list[int]] = {o.objective: [] for o in options}
    for option in options:
        for t, k in option.exact:
            cards[option.objective] += take(t, k)
    for option in options:
        if option.objective == ARC_EN_CIEL:
            colours = _arc_colours(pool, option.values, used.items())
            assert colours is not None, "the solver checked this Arc-en-ciel"
            for v, c in zip(option.values, colours, strict=True):
                cards[ARC_EN_CIEL] += take(_classic_type(c, v))
    for option in options:
        if option.objective != ARC_EN_CIEL and not option.exact:
            for v in option.values:
                t = next(t for t in _TYPES_OF_VALUE[v] if pool.count.get(t, 0) > used.get(t, 0))
                cards[option.objective] += take(t)
    for option in options:
        if option.wild != NO_WILD:
            cards[option.objective] += take(
                option.wild, _count(option.need, _WILD_FIELD[option.wild])
            )
    return [
        Combination(o.objective, tuple(sorted(cards[o.objective])), o.points) for o in options
    ]


# --- The matcher -------------------------------------------------------------------------------


def _reachable(open_objectives: Collection[int], cards: int) -> int:
    """The open objectives (as a mask) that ``cards`` cards could fill: those needing more do
    not matter, and the memos see fewer masks."""
    return _mask(open_objectives) & _WITHIN[min(cards, len(_WITHIN) - 1)]


@lru_cache(maxsize=1 << 14)
def _value_offers(have: int, mask: int) -> tuple[_Option, ...]:
    """The matcher's options for the objectives in ``mask`` that only count values (and Suite
    pure): the first fitting one of each objective and score. Memoised: small collections
    repeat a lot."""
    found: dict[tuple[int, int], _Option] = {}
    guarded = have | _GUARDS
    wilds = [w for w, f in _WILD_FIELD.items() if _count(have, f)]
    for objective in sorted(OPTIONS):
        if mask >> objective & 1 and objective != ARC_EN_CIEL:
            for wild in (NO_WILD, *wilds):  # a wild missing: none of its options can fit
                for o in OPTIONS_BY_WILD[objective, wild]:
                    if (guarded - o.need) & _GUARDS == _GUARDS:
                        found.setdefault((objective, o.points), o)
                        break
    return tuple(found.values())


OPTIONS_BY_WILD = {
    (objective, wild): tuple(o for o in options if o.wild == wild)
    for objective, options in OPTIONS.items()
    for wild in (NO_WILD, RAINBOW_TYPE, SHADOW_TYPE)
}


def combinations(
    cards: Collection[int], open_objectives: Collection[int]
) -> tuple[Combination, ...]:
    """What the collection ``cards`` can fill now among ``open_objectives``: one combination for
    each objective and each score it can reach; by objective, best score first."""
    if len(cards) < SMALLEST:
        return ()
    pool = _Pool(cards)
    found = list(_value_offers(pool.have, _reachable(open_objectives, len(cards))))
    colour_options = (
        (COULEUR, lambda: _couleur_options(pool, first_only=True)),
        (ARC_EN_CIEL, lambda: _arc_options(pool)),
    )
    for objective, options in colour_options:
        if objective in open_objectives:
            firsts: dict[int, _Option] = {}
            for option in options():
                firsts.setdefault(option.points, option)
                if len(firsts) == 2:  # with and without a Shadow: the most there can be
                    break
            found += firsts.values()
    found.sort(key=lambda o: (o.objective, -o.points))
    return tuple(
        _pick(pool, [option])[0] if option.exact or option.objective == ARC_EN_CIEL
        else _pick_values(pool, option)
        for option in found
    )


def _pick_values(pool: _Pool, option: _Option) -> Combination:
    """Real cards for one option that only counts values: the first of each value at hand."""
    by_value = pool.by_value
    cards = [c for key, k in option.picks for c in by_value[key][:k]]
    return Combination(option.objective, tuple(sorted(cards)), option.points)


# --- The solver ---------------------------------------------------------------------------------
#
# The points of a selection are known before its cards are chosen. Say it fills the set T of
# objectives 1-9 and, maybe, Suite pure (three Rainbows or three Shadows). A wild card (one at
# most per objective) may stand for any card of a combination: a Shadow so adds 10, and using
# one more wild never makes a combination harder to fill (it frees a card). So with W wild
# cards left after Suite pure, s of them Shadows, T is worth
#     points(T) = base points of T + Suite pure + 10 · min(s, |T|)
# as soon as T can be filled with at most W wild cards standing in — and is not worth having
# otherwise. The solver lists every (T, Suite pure) by that worth, best first, and returns the
# first one that fits: that is the best selection, exactly. Whether T fits is a question of the
# fewest wild cards it needs (``_Solver.fits``): the runs (Arc-en-ciel, Grande and Petite
# suite, each with a card missing or not) are tried in turn, then the other objectives and
# Couleur are placed on the values left by a search that only looks at each value's counts
# (values with the same counts are interchangeable for them; see ``_need``). A set that does
# not fit makes every larger set unfit too: those are skipped.

INF = 99  # more wild cards than any collection holds: "cannot be filled"
_GROUPED_ORDER = (CARRE, FULL, BRELAN, DOUBLE_PAIRE, PAIRE, COULEUR)
"""The objectives placed by counts, Couleur last: once the others are placed it is a count of
the cards of its colour left."""
_GROUPED_BITS = sum(1 << o for o in _GROUPED_ORDER)
_COULEUR_BIT = 1 << COULEUR
RUN_OBJECTIVES = (ARC_EN_CIEL, GRANDE_SUITE, PETITE_SUITE)
Pairs = tuple[tuple[int, int], ...]
"""Per value: (cards of that value, how many of them are of Couleur's colour, at most 2),
sorted: values are interchangeable for the objectives placed by counts."""


def _shapes(objective: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """How many cards ``objective`` takes of each of some distinct values, largest first, and
    whether a wild card stands in (1) or not (0): Full (3, 2), or (2, 2) and (3, 1) beside a
    wild card. Read off its patterns; no wild card first."""
    found: list[tuple[tuple[int, ...], int]] = []
    for values, wild in PATTERNS[objective]:
        blocks = tuple(sorted(Counter(values).values(), reverse=True))
        if (blocks, int(wild != NO_WILD)) not in found:
            found.append((blocks, int(wild != NO_WILD)))
    return tuple(sorted(found, key=lambda shape: shape[1]))


SHAPES = {o: _shapes(o) for o in _GROUPED_ORDER if o != COULEUR}
_NATURAL = {o: SHAPES[o][0][0] for o in SHAPES}
_BIGGEST = {o: max(blocks[0] for blocks, _ in SHAPES[o]) for o in SHAPES}


def _run_options(objective: int) -> tuple[tuple[tuple[int, ...], int, int], ...]:
    """A run's ways: (its values, 1 if a wild card stands for the missing one, packed need),
    each set of values once, no wild card first."""
    length = len(_natural_values(objective)[0])
    found: dict[tuple[int, ...], int] = {}
    for start in VALUES[: len(VALUES) - length + 1]:
        values = tuple(range(start, start + length))
        found.setdefault(values, 0)
    for values in list(found):
        for i in range(length):
            found.setdefault(values[:i] + values[i + 1 :], 1)
    options = [(vs, hole, sum(1 << ((v - 1) * _BITS) for v in vs)) for vs, hole in found.items()]
    return tuple(sorted(options, key=lambda option: option[1]))


RUN_OPTIONS = {o: _run_options(o) for o in RUN_OBJECTIVES}


@cache
def _value_cap(mask: int) -> int:
    """Cards of one value beyond which more cannot help the objectives of ``mask``."""
    cap = sum(_BIGGEST[o] for o in SHAPES if mask >> o & 1)
    return cap + (2 if mask & _COULEUR_BIT else 0)


def _canon(mask: int, pairs: Iterable[tuple[int, int]]) -> Pairs:
    cap = _value_cap(mask)
    if mask & _COULEUR_BIT:
        return tuple(sorted((min(n, cap), min(c, n)) for n, c in pairs if n))
    return tuple(sorted((min(n, cap), 0) for n, _ in pairs if n))


def _place(pairs: Pairs, blocks: tuple[int, ...], used: int = 0) -> Iterator[Pairs]:
    """``pairs`` less each block at its own value (not in ``used``), taking the cards of other
    colours than Couleur's first. Values alike are interchangeable: only the first is tried."""
    if not blocks:
        yield pairs
        return
    tried = set()
    block = blocks[0]
    for i, (n, c) in enumerate(pairs):
        if n >= block and not used >> i & 1 and (n, c) not in tried:
            tried.add((n, c))
            rest = (*pairs[:i], (n - block, min(c, n - block)), *pairs[i + 1 :])
            yield from _place(rest, blocks[1:], used | 1 << i)


def _greedy_fits(mask: int, pairs: Pairs) -> bool:
    """Every objective of ``mask`` with no wild card, greedily: each block on the value with
    the most cards of other colours (then the most cards), Couleur last. True proves it fits;
    False proves nothing."""
    left = list(pairs)
    for objective in _GROUPED_ORDER[:-1]:
        if mask >> objective & 1:
            taken: set[int] = set()
            for block in _NATURAL[objective]:
                spots = [(n - c, n, i) for i, (n, c) in enumerate(left)
                         if i not in taken and n >= block]
                if not spots:
                    return False
                i = max(spots)[2]
                taken.add(i)
                n, c = left[i]
                left[i] = (n - block, min(c, n - block))
    return not mask & _COULEUR_BIT or sum(c for _, c in left) >= COLOUR_OBJECTIVE_SIZE


_NEEDS: dict[tuple[int, Pairs], tuple[int, int]] = {}
"""(mask, pairs) → (low, high): what ``_need`` has learnt of the fewest wild cards they need.
Kept across calls (the same situations come back game after game), emptied past _NEEDS_MAX."""
_NEEDS_MAX = 1 << 18


def _need(mask: int, pairs: Pairs, budget: int) -> int:
    """The fewest wild cards that fill every objective of ``mask`` (those placed by counts, and
    Couleur) on ``pairs``, if that is at most ``budget``; otherwise a number above it."""
    key = (mask, pairs)
    low, high = _NEEDS.get(key, (0, INF))
    if high <= budget:
        return high
    if low > budget:
        return low
    found = _need_search(mask, pairs, budget, low)
    if len(_NEEDS) >= _NEEDS_MAX:
        _NEEDS.clear()
    _NEEDS[key] = (low, found) if found <= budget else (budget + 1, high)
    return found


def _need_search(mask: int, pairs: Pairs, budget: int, low: int) -> int:
    objective = next((o for o in _GROUPED_ORDER if mask >> o & 1), None)
    if objective is None:
        return 0
    if objective == COULEUR:
        cards = sum(c for _, c in pairs)
        return 0 if cards >= COLOUR_OBJECTIVE_SIZE else 1 if cards >= COLOUR_OBJECTIVE_SIZE - 1 \
            else INF
    # Each objective can save one card with a wild card, no more.
    short = sum(SIZES[o] for o in _GROUPED_ORDER if mask >> o & 1) - sum(n for n, _ in pairs)
    objectives = (mask & _GROUPED_BITS).bit_count()
    if short > objectives:
        return INF
    low = max(low, short)
    if low > budget:
        return low
    if mask & _COULEUR_BIT:
        # The others take at least this many cards; those beyond the cards of other colours
        # are Couleur's.
        others = objectives - 1
        taken = sum(SIZES[o] for o in SHAPES if mask >> o & 1) - min(others, budget)
        mine = sum(c for _, c in pairs)
        if mine - max(0, taken - (sum(n for n, _ in pairs) - mine)) < COLOUR_OBJECTIVE_SIZE - 1:
            return budget + 1
    if low == 0 and _greedy_fits(mask, pairs):
        return 0
    rest = mask & ~(1 << objective)
    for blocks, wild in SHAPES[objective]:
        if wild > budget:
            break
        for left in set(_place(pairs, blocks)):
            found = wild + _need(rest, _canon(rest, left), budget - wild)
            if found <= budget:
                return found
    return budget + 1


def _distinct(masks: list[int]) -> bool:
    """Can each entry take one colour of its mask, all colours different?"""

    def assign(i: int, used: int) -> bool:
        if i == len(masks):
            return True
        free = masks[i] & ~used
        while free:
            low = free & -free
            if assign(i + 1, used | low):
                return True
            free ^= low
        return False

    return assign(0, 0)


@lru_cache(maxsize=4096)
def _candidates(alone: tuple[int, ...], suites: tuple[tuple[int, int, int, int], ...]
                ) -> tuple[tuple[int, int, int, int], ...]:
    """Every set of the objectives ``alone`` (1-9, each fillable by itself) with each Suite
    pure of ``suites`` — (points, Rainbows left, Shadows left, its wild card) — as
    (objectives, Rainbows left, Shadows left, Suite pure's wild card), most worth first.
    Remembered: few situations recur."""
    found = []
    for size in range(len(alone) + 1):
        for chosen in itertools.combinations(alone, size):
            objectives = _mask(chosen)
            base = sum(base_points(o) for o in chosen)
            for suite, r2, s2, wild in suites:
                worth = suite + base + SHADOW_WILD_BONUS * min(s2, size)
                found.append((-worth, objectives, r2, s2, wild))
    found.sort()
    return tuple(item[1:] for item in found)


@lru_cache(maxsize=4096)
def _arc_ways(masks: tuple[int, ...], have: int
              ) -> tuple[tuple[tuple[int, ...], tuple[tuple[int | None, ...], ...]], ...]:
    """The Arc-en-ciel values the cards allow in five colours (``masks``: the colours at hand
    by value), and for each colour c where the Arc-en-ciel takes c: at no value if it can
    avoid it (None), else each value where it can. Couleur in c keeps what is left of c."""
    found = []
    for values, _, need in RUN_OPTIONS[ARC_EN_CIEL]:
        at_hand = [masks[v] for v in values]
        if not _fits(have, need) or not _distinct(at_hand):
            continue
        ways: list[tuple[int | None, ...]] = []
        for c in range(len(COLOURS)):
            bit = 1 << c
            if _distinct([m & ~bit for m in at_hand]):
                ways.append((None,))
            else:
                ways.append(tuple(
                    v for i, v in enumerate(values) if at_hand[i] & bit
                    and _distinct([m & ~bit for j, m in enumerate(at_hand) if j != i])))
        found.append((values, tuple(ways)))
    return tuple(found)


class _Solver:
    """One collection, asked whether sets of objectives fit."""

    def __init__(self, cards: Collection[int]) -> None:
        pool = self.pool = _Pool(cards)
        wild_fields = (_COUNT << (_R * _BITS)) | (_COUNT << (_S * _BITS))
        self.have = pool.have & ~wild_fields  # classic cards only
        self.rainbows, self.shadows = _count(pool.have, _R), _count(pool.have, _S)
        self.classic = sum(_count(self.have, f) for f in range(_R))
        self.by_colour = [[pool.colour_count(c, v) for v in VALUES] for c in range(len(COLOURS))]
        self.colours = sorted(
            (c for c in range(len(COLOURS)) if sum(self.by_colour[c]) >= COLOUR_OBJECTIVE_SIZE - 1),
            key=lambda c: -sum(self.by_colour[c]),
        )
        self.arcs = dict(_arc_ways(tuple(pool.colour_masks), self.have))
        self.known: dict[int, tuple[int, int]] = {}  # T → (low, high) of the wild cards it needs
        self.leaves: dict[tuple[int, int, tuple[int, ...] | None], int] = {}

    def fits(self, objectives: int, budget: int) -> bool:
        """Can the objectives (1-9, a mask) be filled together with ``budget`` wild cards?"""
        low, high = self.known.get(objectives, (0, INF))
        if high <= budget or low > budget:
            return high <= budget
        ok = self._fits(objectives, budget) is not None
        self.known[objectives] = (low, budget) if ok else (budget + 1, high)
        return ok

    def _fits(self, objectives: int, budget: int) -> list[tuple[int, tuple[int, ...], int]] | None:
        """A way to fill the runs of ``objectives`` that leaves enough for the others — as
        (objective, values, wild or not) — or None."""
        if sum(SIZES[o] for o in ALL_OBJECTIVES if objectives >> o & 1) - min(
                objectives.bit_count(), budget) > self.classic:
            return None
        runs = [o for o in RUN_OBJECTIVES if objectives >> o & 1]
        grouped = objectives & _GROUPED_BITS
        size = sum(SIZES[o] for o in _GROUPED_ORDER if grouped >> o & 1)
        count = grouped.bit_count()
        chosen: list[tuple[int, tuple[int, ...], int]] = []

        def search(i: int, have: int, wilds: int, arc: tuple[int, ...] | None, left: int) -> bool:
            if wilds + max(0, size - left) > budget or size - left > count:
                return False
            if i == len(runs):
                return self.leaf(grouped, have, arc, budget - wilds) is not None
            run = runs[i]
            for values, wild, need in RUN_OPTIONS[run]:
                if run == ARC_EN_CIEL and values not in self.arcs:
                    continue
                if wilds + wild <= budget and _fits(have, need):
                    chosen.append((run, values, wild))
                    if search(i + 1, have - need, wilds + wild,
                              values if run == ARC_EN_CIEL else arc, left - len(values)):
                        return True
                    chosen.pop()
            return False

        return chosen if search(0, self.have, 0, None, self.classic) else None

    def leaf(self, grouped: int, have: int, arc: tuple[int, ...] | None, budget: int
             ) -> tuple[int | None, list[tuple[int, int]]] | None:
        """Whether the objectives placed by counts (``grouped``, Couleur among them) fit in
        ``have`` with ``budget`` wild cards, the runs having taken theirs (``arc``: the
        Arc-en-ciel's values, if any): then Couleur's colour (None without Couleur) and the
        pairs by value (in value order), else None."""
        key = (grouped, have, arc)
        if self.leaves.get(key, 0) > budget:
            return None
        counts = [_count(have, f) for f in range(_R)]
        if not grouped & _COULEUR_BIT:
            pairs = [(n, 0) for n in counts]
            if _need(grouped, _canon(grouped, pairs), budget) <= budget:
                return None, pairs
        else:
            blind = grouped & ~_COULEUR_BIT  # the others alone first: often enough to say no
            if _need(blind, _canon(blind, [(n, 0) for n in counts]), budget) <= budget:
                for c in self.colours:
                    for taken in (self.arcs[arc][c] if arc else (None,)):
                        mine = list(self.by_colour[c])
                        if taken is not None:
                            mine[taken - 1] -= 1
                        pairs = [(n, min(k, n)) for n, k in zip(counts, mine, strict=True)]
                        if sum(k for _, k in pairs) >= COLOUR_OBJECTIVE_SIZE - 1 and _need(
                                grouped, _canon(grouped, pairs), budget) <= budget:
                            return c, pairs
        self.leaves[key] = budget + 1
        return None

    # --- The best selection, and its cards ---

    def best(self, open_objectives: Collection[int]) -> tuple[Combination, ...]:
        opened = set(open_objectives)
        r, s = self.rainbows, self.shadows
        suites = [(0, r, s, NO_WILD)]
        if SUITE_PURE in opened:
            suites += [(points, r - SUITE_LENGTH * (w == RAINBOW_TYPE),
                        s - SUITE_LENGTH * (w == SHADOW_TYPE), w)
                       for w, points in SUITE_PURE_POINTS.items()
                       if (r if w == RAINBOW_TYPE else s) >= SUITE_LENGTH]
        alone = tuple(o for o in ALL_OBJECTIVES if o != SUITE_PURE and o in opened
                      and self.fits(1 << o, min(1, r + s)))
        unfit: list[tuple[int, int]] = []  # (objectives, budget) that do not fit
        for objectives, r2, s2, wild in _candidates(alone, tuple(suites)):
            budget = r2 + s2
            if any(u & objectives == u and b >= budget for u, b in unfit):
                continue
            if self.fits(objectives, budget):
                return self._cards(objectives, budget, s2, wild)
            unfit.append((objectives, budget))
        return ()

    def _cards(self, objectives: int, budget: int, shadows: int, suite: int
               ) -> tuple[Combination, ...]:
        """The combinations of a set that fits: the runs, then the others on the values left,
        Couleur last; wild cards where a card is missing, Shadows first, then the Shadows
        left standing in elsewhere (+10 each)."""
        runs = self._fits(objectives, budget)
        assert runs is not None
        have = self.have
        arc = None
        wilds = 0
        plan: list[tuple[int, tuple[int, ...], int]] = []  # (objective, values, wild or not)
        for run, values, wild in runs:
            have -= sum(1 << ((v - 1) * _BITS) for v in values)
            wilds += wild
            arc = values if run == ARC_EN_CIEL else arc
            plan.append((run, values, wild))
        grouped = objectives & _GROUPED_BITS
        found = self.leaf(grouped, have, arc, budget - wilds)
        assert found is not None
        colour, pairs = found
        budget -= wilds
        mask = grouped
        for objective in _GROUPED_ORDER[:-1]:
            if not mask >> objective & 1:
                continue
            mask &= ~(1 << objective)
            placed = self._place_real(objective, mask, pairs, budget)
            values, wild, pairs = placed
            budget -= wild
            plan.append((objective, values, wild))
        couleur: list[tuple[int, int]] = []
        if grouped & _COULEUR_BIT:
            assert colour is not None
            want = COLOUR_OBJECTIVE_SIZE - (sum(k for _, k in pairs) < COLOUR_OBJECTIVE_SIZE)
            for v, (_, k) in zip(VALUES, pairs, strict=True):
                take = min(k, want - sum(x for _, x in couleur))
                if take:
                    couleur.append((v, take))
            plan.append((COULEUR, tuple(v for v, x in couleur for _ in range(x)),
                         int(want < COLOUR_OBJECTIVE_SIZE)))
        options = self._wild_cards(plan, shadows, colour, suite)
        return tuple(sorted(_pick(self.pool, options), key=lambda c: c.objective))

    @staticmethod
    def _place_real(objective: int, rest: int, pairs: list[tuple[int, int]], budget: int
                    ) -> tuple[tuple[int, ...], int, list[tuple[int, int]]]:
        """A filling of ``objective`` on real values that leaves the objectives of ``rest``
        room with the wild cards left: its values, whether a wild card stands in, the pairs
        left."""
        for blocks, wild in SHAPES[objective]:
            if wild > budget:
                break
            for spots in itertools.permutations(range(len(VALUES)), len(blocks)):
                left = list(pairs)
                ok = True
                for block, i in zip(blocks, spots, strict=True):
                    n, c = left[i]
                    if n < block:
                        ok = False
                        break
                    left[i] = (n - block, min(c, n - block))
                if ok and wild + _need(rest, _canon(rest, left), budget - wild) <= budget:
                    values = tuple(sorted(
                        VALUES[i] for block, i in zip(blocks, spots, strict=True)
                        for _ in range(block)))
                    return values, wild, left
        raise AssertionError("the set was found to fit")

    def _wild_cards(self, plan: list[tuple[int, tuple[int, ...], int]], shadows: int,
                    colour: int | None, suite: int) -> list[_Option]:
        """Options with their wild cards: a Shadow where a card is missing while Shadows last,
        else a Rainbow; then each Shadow left stands in for a card of an objective without
        one, adding 10."""
        options: list[_Option] = []
        if suite != NO_WILD:
            options.append(_option(SUITE_PURE, (), suite, SUITE_PURE_POINTS[suite]))
        wilds = []
        for _, _, missing in plan:  # where a card is missing first
            wilds.append(SHADOW_TYPE if missing and shadows else RAINBOW_TYPE if missing
                         else NO_WILD)
            shadows -= wilds[-1] == SHADOW_TYPE
        for (objective, values, _), wild in zip(plan, wilds, strict=True):
            if wild == NO_WILD and shadows:
                values = values[1:]  # the Shadow stands for this card
                wild = SHADOW_TYPE
                shadows -= 1
            points = base_points(objective) + SHADOW_WILD_BONUS * (wild == SHADOW_TYPE)
            option = _option(objective, values, wild, points)
            if objective == COULEUR:
                assert colour is not None
                exact = tuple((_classic_type(colour, v), k) for v, k in Counter(values).items())
                option = _Option(COULEUR, points, option.need, values, wild, option.picks, exact)
            options.append(option)
        return options


def best_selection(
    cards: Collection[int], open_objectives: Collection[int]
) -> tuple[Combination, ...]:
    """A best-scoring set of disjoint combinations from ``cards``, at most one per objective of
    ``open_objectives``; by objective. Exact for every collection (see « The solver » above);
    among equal scores, the first found (deterministic).

    Remembered for the same cards and objectives: in validation every seat's view asks for its
    best selection each time anyone validates, and a stand-in asks again."""
    return _best_selection(tuple(sorted(cards)), tuple(sorted(set(open_objectives))))


@lru_cache(maxsize=1024)
def _best_selection(
    cards: tuple[int, ...], open_objectives: tuple[int, ...]
) -> tuple[Combination, ...]:
    if len(cards) < SMALLEST:
        return ()
    return _Solver(cards).best(open_objectives)
