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
set fits: the runs (Arc-en-ciel, Grande and Petite suite) are tried in turn; on the values they
leave, Couleur takes its cards in every way that leaves something different; on what is left,
the objectives that only count cards of a value are a look-up in a table built at import.

Counts by value are packed into one int (see "Counts, packed") so that the inner loops are a
few integer operations each.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from .cards import (
    CLASSIC,
    COLOUR,
    COLOURS,
    COPIES,
    KIND,
    OBJECTIVES,
    RAINBOW,
    RAINBOW_TYPE,
    SHADOW,
    SHADOW_TYPE,
    SHADOW_WILD_BONUS,
    SHADOWS,
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
# first one that fits: that is the best selection, exactly. A set that does not fit makes
# every larger set unfit too: those are skipped.
#
# Whether T fits with W wild cards (``_Solver.fits``), in three steps, each on what the one
# before leaves:
# 1. the runs (Arc-en-ciel, Grande and Petite suite): each of their ways, with a card missing
#    or not, in turn (``RUN_OPTIONS``); they take cards of other colours than Couleur's first;
# 2. Couleur, in each colour: its cards left, less the spare ones given back in every way —
#    only what that leaves on each value matters to step 3 (``_leaves``);
# 3. the objectives that only count cards of a value (Carré, Full, Brelan, Double paire,
#    Paire): a look-up in a table built at import (« Loads » below).
# Step 3 does not care about colours, so placing Couleur before it loses nothing. Most sets
# tried do not fit, and proving it means trying every way of steps 1 and 2: what makes it
# cheap is that step 3 is a few integer operations, and step 2 counts ways by what they leave
# (a collection seldom holds more than one or two cards of a colour beyond Couleur's five).
# Remembered within a collection: the fewest wild cards each set is known to need or not to
# be enough (``_Solver.known``), the leaves (steps 2 and 3) that do not fit, what Couleur can
# leave after each way of the runs; across collections: the table's look-ups (``_NEEDS``).

INF = 99  # more wild cards than any collection holds: "cannot be filled"
BY_COUNT = (CARRE, FULL, BRELAN, DOUBLE_PAIRE, PAIRE)
"""The objectives that only count how many cards some values have, whichever the values."""
_BY_COUNT_BITS = _mask(BY_COUNT)
_COULEUR_BIT = 1 << COULEUR
_GROUPED_BITS = _BY_COUNT_BITS | _COULEUR_BIT  # placed on the values the runs leave
RUN_OBJECTIVES = (ARC_EN_CIEL, GRANDE_SUITE, PETITE_SUITE)


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


SHAPES = {o: _shapes(o) for o in BY_COUNT}


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


# --- Loads: the objectives that only count cards of a value ------------------------------------
#
# Carré, Full, Brelan, Double paire and Paire take blocks of cards of one value each (Full:
# three of one value and two of another; a wild card shortens one block of an objective by
# one). Which values does not matter, only how many cards each has. Put a set of them on
# values: what each value gives (its *load*) is a *pattern*, Carré + Paire: loads (4, 2), or
# (6) on one value. A pattern fits cards iff its loads, largest first, are each at most the
# values' counts, largest first (the largest load on the value with the most cards, and so on:
# any fitting placement can be rearranged into that one).
#
# That comparison is one subtraction on *profiles*. A profile stores, for t = 1..10, how many
# loads (or how many values) are of t cards or more, 4 bits each with a guard bit on top as
# in « Counts, packed »: sorted loads are under sorted counts iff each field of the loads'
# profile is at most the counts' (the same two partitions read by columns). A value's count
# adds _COLUMN[n] to a profile, no sorting needed.
#
# _LOADS[mask] holds every pattern of the objectives of ``mask``, one per profile, fewest wild
# cards first: built at import, objective by objective — 1,908 patterns, 455 of them for the
# five objectives together, in about 35 ms. (None is worth dropping: a pattern with w wild
# cards holds w cards fewer than the objectives' full size, so a pattern easier than another
# always needs more wild cards.) ``_need`` scans them, and remembers.

_MOST = len(COLOURS) * COPIES  # cards of one value, at most
_PBITS = 4  # up to 6 values per field, and a guard bit
_PGUARDS = sum(1 << (t * _PBITS + _PBITS - 1) for t in range(_MOST))
_COLUMN = tuple(sum(1 << (t * _PBITS) for t in range(n)) for n in range(_MOST + 1))
"""The profile of one value of n cards (or one load of n): a one in each field 1..n."""


def _under(counts: int, loads: int) -> bool:
    """Do the loads of the profile ``loads`` fit the values of the profile ``counts``?"""
    return ((counts | _PGUARDS) - loads) & _PGUARDS == _PGUARDS


def _profile(counts: Iterable[int]) -> int:
    return sum(_COLUMN[n] for n in counts)


@dataclass(frozen=True, slots=True)
class _Pattern:
    """Blocks put on values: ``parts``, one per value, most cards first, each a tuple of
    (objective, cards); ``profile`` of the loads; the ``wilds`` standing in."""

    parts: tuple[tuple[tuple[int, int], ...], ...]
    profile: int
    wilds: int


def _pattern(parts: Iterable[tuple[tuple[int, int], ...]], wilds: int) -> _Pattern | None:
    """The pattern of these parts, or None if some value would need more cards than it can
    hold or more values than there are."""
    loads = sorted(((sum(k for _, k in part), part) for part in parts if part), reverse=True)
    if len(loads) > len(VALUES) or (loads and loads[0][0] > _MOST):
        return None
    return _Pattern(tuple(part for _, part in loads), _profile(n for n, _ in loads), wilds)


def _put(pattern: _Pattern, objective: int, blocks: tuple[int, ...], wild: int
         ) -> Iterator[_Pattern]:
    """``pattern`` with the blocks of ``objective`` added, each on its own value: on a value
    already loaded or on a new one, every way (new values in order, equal blocks in order:
    the others would repeat these)."""
    old = len(pattern.parts)
    for chosen in itertools.permutations(range(old + len(blocks)), len(blocks)):
        new = [i for i in chosen if i >= old]
        if new != list(range(old, old + len(new))) or (
                len(blocks) == 2 and blocks[0] == blocks[1] and chosen[0] > chosen[1]):
            continue
        parts = [*pattern.parts, *[()] * len(blocks)]
        for block, i in zip(blocks, chosen, strict=True):
            parts[i] = (*parts[i], (objective, block))
        found = _pattern(parts, pattern.wilds + wild)
        if found is not None:
            yield found


def _loads() -> dict[int, tuple[_Pattern, ...]]:
    table: dict[int, tuple[_Pattern, ...]] = {0: (_Pattern((), 0, 0),)}
    for size in range(1, len(BY_COUNT) + 1):
        for chosen in itertools.combinations(BY_COUNT, size):
            first, rest = chosen[0], _mask(chosen[1:])
            found: dict[int, _Pattern] = {}  # one pattern per profile
            for blocks, wild in SHAPES[first]:
                for pattern in table[rest]:
                    for new in _put(pattern, first, blocks, wild):
                        found.setdefault(new.profile, new)
            table[_mask(chosen)] = tuple(sorted(found.values(), key=lambda p: p.wilds))
    return table


_LOADS = _loads()
_LOAD_PROFILES = {mask: tuple((p.wilds, p.profile) for p in ps) for mask, ps in _LOADS.items()}
_NEEDS: dict[int, int] = {}
"""(profile, mask) packed → what ``_need`` found. Kept across calls (the same counts come back
game after game: 3,445 entries after the 1,000 largest collections of bench/solver.py), emptied
past _NEEDS_MAX (a few MB)."""
_NEEDS_MAX = 1 << 16


def _need(mask: int, profile: int) -> int:
    """The fewest wild cards with which the objectives of ``mask`` (some of BY_COUNT) fit values
    of ``profile`` (INF: none)."""
    key = profile << 16 | mask  # a mask of objectives is under 2 ** 11
    found = _NEEDS.get(key)
    if found is None:
        found = INF
        counts = profile | _PGUARDS
        for wilds, loads in _LOAD_PROFILES[mask]:  # fewest wild cards first
            if (counts - loads) & _PGUARDS == _PGUARDS:  # _under, inline: the hottest loop
                found = wilds
                break
        if len(_NEEDS) >= _NEEDS_MAX:
            _NEEDS.clear()
        _NEEDS[key] = found
    return found


def _fitting(mask: int, profile: int, budget: int) -> _Pattern:
    """A pattern of the objectives of ``mask`` with at most ``budget`` wild cards that fits
    values of ``profile``: there must be one."""
    return next(p for p in _LOADS[mask] if p.wilds <= budget and _under(profile, p.profile))


def _leaves(counts: list[int], mine: list[int], size: int) -> set[int]:
    """The profiles of what taking ``size`` cards, at most ``mine[i]`` (0 to 2) of value i,
    can leave of ``counts`` (``mine`` holds ``size`` cards or more). Take them all, then give
    back the spare ones in every way: values alike (as many cards left, as many taken) are
    interchangeable, so for each kind of value only how many give back one card and how many
    two matters."""
    left = [n - m for n, m in zip(counts, mine, strict=True)]
    spare = sum(mine) - size
    if spare < 2:  # most of the time: none, or one card given back to one of the values
        base = _profile(left)
        return {base + (1 << n * _PBITS) for n, m in zip(left, mine, strict=True) if m} \
            if spare else {base}
    ways = {(0, 0)}  # (cards given back, profile of the kinds seen)
    for (n, m), alike in Counter(zip(left, mine, strict=True)).items():
        options = [(ones + 2 * twos, (alike - ones - twos) * _COLUMN[n]
                    + (ones and ones * _COLUMN[n + 1]) + (twos and twos * _COLUMN[n + 2]))
                   for twos in range((alike if m == 2 else 0) + 1)
                   for ones in range((alike - twos if m else 0) + 1)]
        ways = {(given + more, profile + gain) for given, profile in ways
                for more, gain in options if given + more <= spare}
    return {profile for given, profile in ways if given == spare}


# --- The solver, on one collection --------------------------------------------------------------


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


def _by_worth(shadows: int) -> tuple[tuple[int, int], ...]:
    """Every set of objectives 1-9 as (minus its worth with ``shadows`` Shadows to stand in,
    the set as a mask), most worth first, then by mask."""
    found = []
    nine = [o for o in ALL_OBJECTIVES if o != SUITE_PURE]
    for size in range(len(nine) + 1):
        for chosen in itertools.combinations(nine, size):
            worth = sum(base_points(o) for o in chosen) + SHADOW_WILD_BONUS * min(shadows, size)
            found.append((-worth, _mask(chosen)))
    return tuple(sorted(found))


_BY_WORTH = tuple(_by_worth(s) for s in range(SHADOWS + 1))
"""By the number of Shadows left to stand in: every set of objectives 1-9 by worth."""


def _candidates(alone: int, suites: list[tuple[int, int, int, int]]
                ) -> Iterator[tuple[int, int, int, int]]:
    """Every set of the objectives ``alone`` (a mask of 1-9, each fillable by itself) with each
    Suite pure of ``suites`` — (points, Rainbows left, Shadows left, its wild card) — as
    (objectives, Rainbows left, Shadows left, Suite pure's wild card), most worth first, then
    by objectives: lazily, as the first few dozen are all the solver usually asks for."""

    def ways(points: int, r2: int, s2: int, wild: int
             ) -> Iterator[tuple[int, int, int, int, int]]:
        for worth, objectives in _BY_WORTH[s2]:
            if not objectives & ~alone:
                yield worth - points, objectives, r2, s2, wild

    for _, objectives, r2, s2, wild in heapq.merge(*(ways(*suite) for suite in suites)):
        yield objectives, r2, s2, wild


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
        self.couleur_ways: dict[tuple[int, tuple[int, ...] | None, int], set[int]] = {}

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
        size = sum(SIZES[o] for o in ALL_OBJECTIVES if grouped >> o & 1)
        count = grouped.bit_count()
        chosen: list[tuple[int, tuple[int, ...], int]] = []

        def search(i: int, have: int, wilds: int, arc: tuple[int, ...] | None, left: int) -> bool:
            if wilds + max(0, size - left) > budget or size - left > count:
                return False
            if i == len(runs):
                return self.leaf(grouped, have, arc, budget - wilds)
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

    def leaf(self, grouped: int, have: int, arc: tuple[int, ...] | None, budget: int) -> bool:
        """Do Couleur and the objectives counted by value (``grouped``) fit in ``have`` with
        ``budget`` wild cards, the runs having taken theirs (``arc``: the Arc-en-ciel's values,
        if any)?"""
        key = (grouped, have, arc)
        if self.leaves.get(key, 0) > budget:
            return False
        counts = [_count(have, f) for f in range(_R)]
        others = grouped & _BY_COUNT_BITS
        ok = _need(others, _profile(counts)) <= budget  # Couleur aside: often enough to say no
        if ok and grouped & _COULEUR_BIT:
            ok = any(_need(others, profile) <= budget - wild
                     for wild in range(min(budget, 1) + 1)
                     for profile in self.couleurs(have, arc, counts, wild))
        if not ok:
            self.leaves[key] = budget + 1
        return ok

    def mines(self, counts: list[int], arc: tuple[int, ...] | None
              ) -> Iterator[tuple[int, list[int]]]:
        """For Couleur, each colour and the cards of it at hand by value, the runs having left
        ``counts`` (``arc``: the Arc-en-ciel's values, if any; the runs take cards of other
        colours first, and the Arc-en-ciel one of each of five colours: each way it can)."""
        for colour in self.colours:
            for taken in self.arcs[arc][colour] if arc else (None,):
                yield colour, [min(k - (v == taken), n)
                               for v, k, n in zip(VALUES, self.by_colour[colour], counts,
                                                  strict=True)]

    def couleurs(self, have: int, arc: tuple[int, ...] | None, counts: list[int], wild: int
                 ) -> set[int]:
        """The profiles of what Couleur can leave of ``have`` (its ``counts``) with ``wild``
        wild cards (0 or 1). Remembered: sets of objectives share their runs."""
        key = (have, arc, wild)
        found = self.couleur_ways.get(key)
        if found is None:
            size = COLOUR_OBJECTIVE_SIZE - wild
            found = self.couleur_ways[key] = set()
            for _, mine in self.mines(counts, arc):
                if sum(mine) >= size:
                    found |= _leaves(counts, mine, size)
        return found

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
        alone = _mask(o for o in ALL_OBJECTIVES if o != SUITE_PURE and o in opened
                      and self.fits(1 << o, min(1, r + s)))
        unfit: list[tuple[int, int]] = []  # (objectives, budget) that do not fit
        for objectives, r2, s2, wild in _candidates(alone, suites):
            budget = r2 + s2
            if any(u & objectives == u and b >= budget for u, b in unfit):
                continue
            if self.fits(objectives, budget):
                return self._cards(objectives, budget, s2, wild)
            unfit.append((objectives, budget))
        return ()

    def _cards(self, objectives: int, budget: int, shadows: int, suite: int
               ) -> tuple[Combination, ...]:
        """The combinations of a set that fits: the runs, Couleur and the others on the values
        left (the pattern's loads, largest first, on the values with the most cards); wild
        cards where a card is missing, Shadows first, then the Shadows left standing in
        elsewhere (+10 each)."""
        runs = self._fits(objectives, budget)
        assert runs is not None
        have = self.have
        arc = None
        wilds = 0
        for run, values, wild in runs:
            have -= sum(1 << ((v - 1) * _BITS) for v in values)
            wilds += wild
            arc = values if run == ARC_EN_CIEL else arc
        plan, colour = self._placed(objectives & _GROUPED_BITS, have, arc, budget - wilds)
        plan[:0] = runs
        options = self._wild_cards(plan, shadows, colour, suite)
        return tuple(sorted(_pick(self.pool, options), key=lambda c: c.objective))

    def _placed(self, grouped: int, have: int, arc: tuple[int, ...] | None, budget: int
                ) -> tuple[list[tuple[int, tuple[int, ...], int]], int | None]:
        """How Couleur and the objectives counted by value fill a leaf that fits (``leaf``
        said so): (objective, values, wild or not) each, and Couleur's colour (None without
        it). Couleur's cards are tried one by one here; the others' pattern goes on the values
        with the most cards, its largest load on the value with the most."""
        counts = [_count(have, f) for f in range(_R)]
        others = grouped & _BY_COUNT_BITS
        colour, takes, wild = None, [0] * len(VALUES), 0
        if grouped & _COULEUR_BIT:
            colour, takes, wild = next(
                (colour, takes, wild)
                for wild in range(min(budget, 1) + 1)
                for colour, mine in self.mines(counts, arc)
                for takes in _bounded_multisets(mine, COLOUR_OBJECTIVE_SIZE - wild)
                if _need(others, _profile(n - k for n, k in zip(counts, takes, strict=True)))
                <= budget - wild)
        left = [n - k for n, k in zip(counts, takes, strict=True)]
        pattern = _fitting(others, _profile(left), budget - wild)
        by_count: dict[int, list[int]] = {}
        most_first = sorted(range(len(VALUES)), key=lambda i: -left[i])
        for part, i in zip(pattern.parts, most_first, strict=False):
            for objective, k in part:
                by_count.setdefault(objective, []).extend([VALUES[i]] * k)
        plan = [(o, tuple(sorted(vs)), SIZES[o] - len(vs)) for o, vs in by_count.items()]
        if colour is not None:
            values = tuple(v for v, k in zip(VALUES, takes, strict=True) for _ in range(k))
            plan.append((COULEUR, values, wild))
        return plan, colour

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
