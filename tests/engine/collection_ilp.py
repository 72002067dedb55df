"""A second exact method for Collection's best selection: an integer linear program written
straight from the rules (docs/rules/collection.md, « The scorecard »), solved by HiGHS through
scipy. It shares nothing with the engine's solver but the points table: no patterns, no
shapes, no search. The tests and bench/solver.py check the solver against it on collections too
large for brute force.

Variables, for each open objective o among 1-9: ``f`` (filled), ``wr``/``ws`` (a Rainbow or a
Shadow stands in), ``z[c, v]`` (cards of colour c and value v it takes) and what its shape
needs (the values it is made of, where its wild stands); for Suite pure, ``sr``/``ss``. The
cards of each kind are shared: together the objectives take no more than the collection has.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from pioche_tui.engine.collection.cards import (
    CLASSIC,
    COLOUR,
    COLOURS,
    KIND,
    OBJECTIVES,
    RAINBOW,
    SHADOW,
    SHADOW_WILD_BONUS,
    SUITE_LENGTH,
    SUITE_SHADOW_POINTS,
    VALUE,
    VALUES,
)

PAIRE, DOUBLE_PAIRE, BRELAN, PETITE_SUITE, FULL = 1, 2, 3, 4, 5
COULEUR, GRANDE_SUITE, CARRE, ARC_EN_CIEL, SUITE_PURE = 6, 7, 8, 9, 10
SAME_VALUE = {PAIRE: 2, BRELAN: 3, CARRE: 4}
RUNS = {PETITE_SUITE: 4, GRANDE_SUITE: 5, ARC_EN_CIEL: 5}


class _Program:
    """Variables with bounds, rows of (coefficients, low, high), an objective to maximise."""

    def __init__(self) -> None:
        self.upper: list[float] = []
        self.gain: list[float] = []
        self.rows: list[tuple[dict[int, float], float, float]] = []

    def var(self, upper: float = 1, gain: float = 0) -> int:
        self.upper.append(upper)
        self.gain.append(gain)
        return len(self.upper) - 1

    def row(self, terms: Iterable[tuple[int, float]], low: float, high: float) -> None:
        coefficients: dict[int, float] = {}
        for var, k in terms:
            coefficients[var] = coefficients.get(var, 0) + k
        self.rows.append((coefficients, low, high))

    def equal(self, terms: Iterable[tuple[int, float]], value: float = 0) -> None:
        self.row(terms, value, value)

    def at_most(self, terms: Iterable[tuple[int, float]], value: float) -> None:
        self.row(terms, -np.inf, value)

    def solve(self) -> int:
        n = len(self.upper)
        matrix = np.zeros((len(self.rows), n))
        for i, (coefficients, _, _) in enumerate(self.rows):
            for var, k in coefficients.items():
                matrix[i, var] = k
        result = milp(
            c=-np.array(self.gain),
            integrality=np.ones(n),
            bounds=Bounds(np.zeros(n), np.array(self.upper)),
            constraints=LinearConstraint(matrix, [r[1] for r in self.rows],
                                         [r[2] for r in self.rows]),
            options={"mip_rel_gap": 0, "disp": False},
        )
        assert result.success, result.message
        return round(-result.fun)


def best_points(cards: Collection[int], open_objectives: Collection[int]) -> int:
    """The most points disjoint combinations of ``cards`` score on ``open_objectives``."""
    have = Counter((COLOUR[c], VALUE[c]) for c in cards if KIND[c] == CLASSIC)
    rainbows = sum(1 for c in cards if KIND[c] == RAINBOW)
    shadows = sum(1 for c in cards if KIND[c] == SHADOW)
    colours, values = range(len(COLOURS)), VALUES
    p = _Program()
    taken: dict[tuple[int, int], list[int]] = {(c, v): [] for c in colours for v in values}
    rainbow_users: list[tuple[int, int]] = []  # (variable, Rainbows it takes)
    shadow_users: list[tuple[int, int]] = []
    for objective in sorted(set(open_objectives)):
        points = OBJECTIVES[objective - 1].points
        if objective == SUITE_PURE:  # three Rainbows, or three Shadows
            sr, ss = p.var(gain=points), p.var(gain=SUITE_SHADOW_POINTS)
            p.at_most([(sr, 1), (ss, 1)], 1)
            rainbow_users.append((sr, SUITE_LENGTH))
            shadow_users.append((ss, SUITE_LENGTH))
            continue
        f = p.var(gain=points)
        wr, ws = p.var(), p.var(gain=SHADOW_WILD_BONUS)
        rainbow_users.append((wr, 1))
        shadow_users.append((ws, 1))
        p.at_most([(wr, 1), (ws, 1), (f, -1)], 0)  # one wild at most, and only if filled
        z = {}
        for c in colours:
            for v in values:
                z[c, v] = p.var(upper=min(2, have[c, v]))
                taken[c, v].append(z[c, v])
        if objective == COULEUR:
            k = {c: p.var() for c in colours}
            p.equal([*((k[c], 1) for c in colours), (f, -1)])
            for c in colours:
                for v in values:
                    p.at_most([(z[c, v], 1), (k[c], -2)], 0)
            p.equal([*((z[key], 1) for key in z), (wr, 1), (ws, 1), (f, -5)])
            continue
        wild_at = {v: p.var() for v in values}  # the value the wild stands for
        p.equal([*((wild_at[v], 1) for v in values), (wr, -1), (ws, -1)])
        need: dict[int, list[tuple[int, float]]] = {v: [] for v in values}
        if objective in SAME_VALUE:
            y = {v: p.var() for v in values}
            p.equal([*((y[v], 1) for v in values), (f, -1)])
            for v in values:
                need[v].append((y[v], SAME_VALUE[objective]))
        elif objective == DOUBLE_PAIRE:
            y = {v: p.var() for v in values}
            p.equal([*((y[v], 1) for v in values), (f, -2)])
            for v in values:
                need[v].append((y[v], 2))
        elif objective == FULL:
            three = {v: p.var() for v in values}
            two = {v: p.var() for v in values}
            p.equal([*((three[v], 1) for v in values), (f, -1)])
            p.equal([*((two[v], 1) for v in values), (f, -1)])
            for v in values:
                p.at_most([(three[v], 1), (two[v], 1)], 1)
                need[v] += [(three[v], 3), (two[v], 2)]
        else:  # a run of consecutive values: one card of each
            length = RUNS[objective]
            starts = {w: p.var() for w in values if w + length - 1 <= values[-1]}
            p.equal([*((b, 1) for b in starts.values()), (f, -1)])
            for w, b in starts.items():
                for v in range(w, w + length):
                    need[v].append((b, 1))
            if objective == ARC_EN_CIEL:  # five colours: each colour once at most
                for c in colours:
                    p.at_most([(z[c, v], 1) for v in values], 1)
        for v in values:
            p.equal([*((z[c, v], 1) for c in colours), (wild_at[v], 1),
                     *((var, -k) for var, k in need[v])])
    for key, users in taken.items():
        p.at_most([(var, 1) for var in users], have[key])
    p.at_most(rainbow_users, rainbows)
    p.at_most(shadow_users, shadows)
    return p.solve() if p.upper else 0
