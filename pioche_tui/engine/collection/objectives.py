"""The scorecard's objectives: a checker, a matcher and a solver.

- :func:`points_of` says whether given cards fill an objective, and for how much.
- :func:`combinations` (the matcher) lists what a collection can fill now: for each open
  objective and each score it can reach (with or without a Shadow standing in; Suite Rainbow or
  Suite Shadow), one combination with the cards it would use.
- :func:`best_selection` (the solver) finds a best-scoring set of disjoint combinations, at most
  one per open objective.

How the solver works. Two objectives care about colours: Couleur and Arc-en-ciel. The others
only count values, Rainbows and Shadows, and six of them — Paire, Double paire, Brelan, Full,
Carré, Suite pure — do not even care which value is which: their best score depends only on
the counts by value, sorted (:func:`_grouped_best`, exact and memoised across calls: the same
counts come back game after game). So the solver works in three layers:

1. each way to fill Couleur and/or Arc-en-ciel with real cards, or neither, most promising
   first (best bound first; see ``COLOUR_BUDGET``), and for each, with the cards left,
2. each way to fill the two suites (depth first, branch and bound), and for each,
3. the grouped objectives' exact best.

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


# --- The grouped objectives: values interchangeable -----------------------------------------

GROUPED = (SUITE_PURE, CARRE, FULL, BRELAN, DOUBLE_PAIRE, PAIRE)
"""The objectives that only ask for some values with enough cards: which value is which does
not matter to them, so their best score depends only on the counts by value, sorted."""
RUNS = (GRANDE_SUITE, PETITE_SUITE)
"""The runs of values whose colours do not matter (Arc-en-ciel is tried with Couleur)."""
Shape = tuple[tuple[int, ...], int, int]


def _shapes(objective: int) -> tuple[Shape, ...]:
    """A grouped objective's fillings as (blocks, wild, points): how many cards it takes of
    each of some distinct values, largest first — Full (3, 2), or (2, 2) and (3, 1) beside a
    wild — read off its patterns. Best points first; natural before a Rainbow."""
    found: dict[tuple[tuple[int, ...], int], int] = {}
    for (values, wild), points in PATTERNS[objective].items():
        blocks = tuple(sorted(Counter(values).values(), reverse=True))
        found.setdefault((blocks, wild), points)
    shapes = [(blocks, wild, points) for (blocks, wild), points in found.items()]
    return tuple(sorted(shapes, key=lambda shape: -shape[2]))


SHAPES = {o: _shapes(o) for o in GROUPED if o != SUITE_PURE}


def _mask(objectives: Iterable[int]) -> int:
    mask = 0
    for o in objectives:
        mask |= 1 << o
    return mask


@cache
def _caps(mask: int) -> tuple[int, int]:
    """Beyond these counts of one value and of one wild, more cards cannot help the objectives
    in ``mask``, so counts are capped there (fewer states to remember)."""
    value_cap = wild_cap = 0
    for objective in GROUPED:
        if mask >> objective & 1:
            if objective == SUITE_PURE:
                wild_cap += SUITE_LENGTH
            else:
                value_cap += max(blocks[0] for blocks, _, _ in SHAPES[objective])
                wild_cap += 1
    return value_cap, wild_cap


@lru_cache(maxsize=1 << 17)
def _grouped_best(mask: int, have: int) -> int:
    """The best score of the grouped objectives in ``mask`` with the packed counts ``have``.
    Memoised as it is (the solver asks it thousands of times a game), then canonically."""
    value_cap, wild_cap = _caps(mask)
    counts = tuple(sorted(min(have >> shift & _COUNT, value_cap) for shift in _VALUE_SHIFTS))
    return _canonical_best(
        mask, counts, min(_count(have, _R), wild_cap), min(_count(have, _S), wild_cap)
    )


_VALUE_SHIFTS = tuple(f * _BITS for f in range(_R))


def _place(counts: tuple[int, ...], blocks: tuple[int, ...], used: int = 0) -> Iterator[
    tuple[int, ...]
]:
    """``counts`` less each block at its own position (not in ``used``). Positions with equal
    counts are interchangeable: only the first of them is tried."""
    if not blocks:
        yield counts
        return
    tried = set()
    for i, c in enumerate(counts):
        if c >= blocks[0] and not used >> i & 1 and c not in tried:
            tried.add(c)
            rest = (*counts[:i], c - blocks[0], *counts[i + 1:])
            yield from _place(rest, blocks[1:], used | 1 << i)


@lru_cache(maxsize=1 << 17)
def _canonical_best(mask: int, counts: tuple[int, ...], r: int, s: int) -> int:
    """``_grouped_best`` on canonical counts (sorted by value, capped), memoised across calls:
    the same states come back game after game. Each objective in turn: skipped, or each way to
    place its blocks (and its wild), the rest recursively."""
    objective = next((o for o in GROUPED if mask >> o & 1), None)
    if objective is None:
        return 0
    easy = _greedy_if_best(mask, counts, r, s)
    if easy is not None:
        return easy
    rest = mask & ~(1 << objective)
    value_cap, wild_cap = _caps(rest)

    def then(counts: tuple[int, ...], r: int, s: int) -> int:
        capped = tuple(sorted(min(c, value_cap) for c in counts))
        return _canonical_best(rest, capped, min(r, wild_cap), min(s, wild_cap))

    best = then(counts, r, s)
    if objective == SUITE_PURE:
        if r >= SUITE_LENGTH:
            best = max(best, SUITE_PURE_POINTS[RAINBOW_TYPE] + then(counts, r - SUITE_LENGTH, s))
        if s >= SUITE_LENGTH:
            best = max(best, SUITE_PURE_POINTS[SHADOW_TYPE] + then(counts, r, s - SUITE_LENGTH))
        return best
    for blocks, wild, points in SHAPES[objective]:
        r2 = r - (wild == RAINBOW_TYPE)
        s2 = s - (wild == SHADOW_TYPE)
        if r2 >= 0 and s2 >= 0:
            for left in set(_place(counts, blocks)):
                best = max(best, points + then(left, r2, s2))
    return best


def _greedy_if_best(mask: int, counts: tuple[int, ...], r: int, s: int) -> int | None:
    """With plenty of cards every grouped objective fits at once: then this gives their best
    score with no search. The bound: each objective that fits alone scores its points, plus 10
    for as many of them as there are Shadows to stand in (after a Suite Shadow, if any). A
    greedy filling — Suite pure first, then each objective's best shape, its biggest blocks on
    the biggest counts — proves the bound when it reaches it; otherwise None: search."""
    objectives = [o for o in GROUPED if mask >> o & 1 and o != SUITE_PURE]
    base = takers = 0
    for o in objectives:
        wilds = {
            w for blocks, w, _ in SHAPES[o]
            if _fit_blocks(counts, blocks) and (w != RAINBOW_TYPE or r) and (w != SHADOW_TYPE or s)
        }
        base += base_points(o) if wilds else 0
        takers += SHADOW_TYPE in wilds
    suites = [(0, 0, 0)]  # (points, Rainbows, Shadows) of the Suite pure, if any
    if mask >> SUITE_PURE & 1:
        suites += [
            (p, SUITE_LENGTH * (w == RAINBOW_TYPE), SUITE_LENGTH * (w == SHADOW_TYPE))
            for w, p in SUITE_PURE_POINTS.items()
        ]
    bound, suite = max(
        (p + base + SHADOW_WILD_BONUS * min(takers, s - ss), (p, rr, ss))
        for p, rr, ss in suites if rr <= r and ss <= s
    )
    total, r, s = suite[0], r - suite[1], s - suite[2]
    left = sorted(counts, reverse=True)
    for o in objectives:
        for blocks, w, points in SHAPES[o]:  # best points first
            if (w == RAINBOW_TYPE and not r) or (w == SHADOW_TYPE and not s):
                continue
            if _fit_blocks(left, blocks):
                for i, block in enumerate(blocks):
                    left[i] -= block
                left.sort(reverse=True)
                total += points
                r -= w == RAINBOW_TYPE
                s -= w == SHADOW_TYPE
                break
    return bound if total == bound else None


def _fit_blocks(counts: Iterable[int], blocks: tuple[int, ...]) -> bool:
    """Do the blocks (largest first) fit on distinct values? Largest on largest decides."""
    biggest = sorted(counts, reverse=True)
    return all(block <= c for block, c in zip(blocks, biggest, strict=False))


def _grouped_choice(mask: int, have: int) -> list[_Option]:
    """Options of the grouped objectives in ``mask``, on the real counts ``have``, that reach
    their best score (the first found)."""
    chosen: list[_Option] = []
    target = _grouped_best(mask, have)
    for objective in GROUPED:
        if not mask >> objective & 1:
            continue
        mask &= ~(1 << objective)
        if _grouped_best(mask, have) == target:
            continue
        for option in OPTIONS[objective]:
            if _fits(have, option.need):
                left = have - option.need
                if option.points + _grouped_best(mask, left) == target:
                    chosen.append(option)
                    have, target = left, target - option.points
                    break
    return chosen


# --- The value objectives: runs searched, grouped objectives exact ----------------------


@lru_cache(maxsize=1 << 16)
def _value_search(have: int, mask: int) -> tuple[int, tuple[_Option, ...]]:
    """The best score and options of the objectives in ``mask`` that only count values (not
    Couleur, not Arc-en-ciel) with the packed counts ``have``. Memoised: the same counts come
    back round after round."""
    options = _search(have, mask)
    return sum(o.points for o in options), tuple(options)


def _cards(have: int) -> int:
    return sum(have >> (f * _BITS) & _COUNT for f in range(_FIELDS))


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


def _knapsack(items: list[tuple[int, int]], capacity: int) -> list[list[int]]:
    """table[i][c]: the most points items[i:] (size, points) can make with c cards, each item
    once. A bound for the solver: whatever else holds, an objective takes its cards."""
    table = [[0] * (capacity + 1) for _ in range(len(items) + 1)]
    for i in range(len(items) - 1, -1, -1):
        size, points = items[i]
        below, row = table[i + 1], table[i]
        for c in range(capacity + 1):
            row[c] = below[c] if c < size else max(below[c], below[c - size] + points)
    return table


def _value_bound(have: int, mask: int) -> int:
    """At most what the value objectives in ``mask`` make with ``have``: each run at its best
    alone, plus the grouped objectives' best."""
    runs = sum(
        next((o.points for o in OPTIONS[r] if _fits(have, o.need)), 0)
        for r in RUNS if mask >> r & 1
    )
    return runs + _grouped_best(mask & _mask(GROUPED), have)


KNAPSACK_FROM = 16  # cards: below, the runs' options are few and the knapsack bound not worth it


def _search(have: int, mask: int) -> list[_Option]:
    """The best options for the value objectives in ``mask``: the runs (at most 28 × 23 ways)
    tried in turn, depth first, then the grouped objectives' exact best with what is left. A
    branch stops as soon as its points plus a bound on the rest cannot beat the best found:
    the best the objectives left could make with the cards left, each at its best alone (a
    knapsack on card counts), and each run left at its best plus the grouped best."""
    grouped = mask & _mask(GROUPED)
    options = [
        fitting for r in RUNS if mask >> r & 1
        if (fitting := [o for o in OPTIONS[r] if _fits(have, o.need)])
    ]
    if not options:  # no run fits: the grouped objectives alone
        return _grouped_choice(grouped, have)
    runs_max = [sum(opts[0].points for opts in options[i:]) for i in range(len(options) + 1)]
    cards = _cards(have)
    knapsack = None
    if cards >= KNAPSACK_FROM:
        items = [(SIZES[opts[0].objective], opts[0].points) for opts in options]
        items += [(SIZES[o], _grouped_best(1 << o, have)) for o in GROUPED if grouped >> o & 1]
        knapsack = _knapsack(items, cards)
    best_points = -1
    best: list[_Option] = []
    chosen: list[_Option] = []

    def search(i: int, have: int, cards: int, points: int) -> None:
        nonlocal best_points, best
        if knapsack and points + knapsack[i][cards] <= best_points:
            return
        rest = _grouped_best(grouped, have)
        if points + runs_max[i] + rest <= best_points:
            return
        if i == len(options):
            best_points, best = points + rest, chosen.copy()
            return
        guarded = have | _GUARDS
        for option in options[i]:
            left = guarded - option.need
            if left & _GUARDS == _GUARDS:
                chosen.append(option)
                size = SIZES[option.objective]
                search(i + 1, left - _GUARDS, cards - size, points + option.points)
                chosen.pop()
        search(i + 1, have, cards, points)

    search(0, have, cards, 0)
    for option in best:
        have -= option.need
    return best + _grouped_choice(grouped, have)


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


# --- The solver --------------------------------------------------------------------------------


COLOUR_BUDGET = 128
"""The most ways to fill Couleur and/or Arc-en-ciel the solver tries in full. A large
collection (25 cards and more, in two-player games) offers hundreds, most promising first;
proving the best among all of them takes seconds, this budget some 50 to 250 ms. On 894
collections from bot games (162 of them two-player, up to 35 cards) the budget never cost a
point (64 cost 5 to 10 points four times). Small collections never reach it: for them the
answer is exact (the property tests check it against brute force)."""


def best_selection(
    cards: Collection[int], open_objectives: Collection[int]
) -> tuple[Combination, ...]:
    """A best-scoring set of disjoint combinations from ``cards``, at most one per objective of
    ``open_objectives``; by objective. Among equal scores, the first found (deterministic).

    The colour objectives make the outer choice: neither, each Couleur, each Arc-en-ciel, each
    pair of them; with each, the best of the other objectives on the cards left
    (:func:`_value_search`, memoised). The choices go most promising first, by an
    upper bound of their score (:func:`_value_bound`), and end as soon as that bound cannot
    beat the best found — or after ``COLOUR_BUDGET`` of them.

    Remembered for the same cards and objectives: in validation every seat's view asks for its
    best selection each time anyone validates, and a stand-in asks again."""
    return _best_selection(tuple(cards), tuple(open_objectives))


@lru_cache(maxsize=1024)
def _best_selection(
    cards: tuple[int, ...], open_objectives: tuple[int, ...]
) -> tuple[Combination, ...]:
    if len(cards) < SMALLEST:
        return ()
    pool = _Pool(cards)
    values_mask = _reachable(open_objectives, len(cards)) & ~_mask((COULEUR, ARC_EN_CIEL))
    best_points, best = _value_search(pool.have, values_mask)
    couleurs = _couleur_options(pool) if COULEUR in open_objectives else []
    arcs = list(_arc_options(pool)) if ARC_EN_CIEL in open_objectives else []
    choices: list[tuple[_Option, ...]] = [(o,) for o in couleurs + arcs]
    choices += [(c, a) for c in couleurs for a in arcs if _fits(pool.have, c.need + a.need)]
    bounded = []
    for choice in choices:
        points = sum(o.points for o in choice)
        need = sum(o.need for o in choice)
        bounded.append((points + _value_bound(pool.have - need, values_mask), points, need, choice))
    bounded.sort(key=lambda b: -b[0])
    tried: set[tuple[int, int]] = set()
    for bound, points, need, choice in bounded:
        if bound <= best_points or len(tried) == COLOUR_BUDGET:
            break  # sorted by bound: no later choice does better (or the budget is spent)
        if (need, points) in tried:
            continue
        if len(choice) == 2 and _arc_colours(pool, choice[1].values, choice[0].exact) is None:
            continue
        tried.add((need, points))
        rest_points, rest = _value_search(pool.have - need, values_mask)
        if points + rest_points > best_points:
            best_points, best = points + rest_points, (*choice, *rest)
    return tuple(sorted(_pick(pool, list(best)), key=lambda c: c.objective))
