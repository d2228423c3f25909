"""Integer programs with several objectives in order, solved exactly by HiGHS (``highspy``).

HiGHS is an established open-source MIP solver (MIT licence) with a single 3 MB wheel and no other service; the fit's
programs have a few dozen integer columns and a few rows, which it proves optimal in milliseconds. Objectives are
lexicographic by sequential solves: each tier is minimised with the earlier tiers held at their optimum (a row
``objective <= optimum``), so no weight has to dominate another and no tier is traded against an earlier one.

"Optimal" is trusted only with a certificate: HiGHS's optimal status with a zero relative gap, and its dual bound,
rounded up (every objective here is integral), equal to the value found. Anything else (the time limit) keeps the
best solution found and says it is not proven, with the bound.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Sequence

import highspy

_EPSILON = 1e-6


@dataclass
class Program:
    """Integer columns ``x >= 0`` (optionally bounded above), ``lower <= row . x`` rows, and objectives in order."""

    columns: int = 0
    upper: list[float] = field(default_factory=list)
    rows: list[tuple[dict[int, float], float, float]] = field(default_factory=list)  # (coefficients, lower, upper)

    def column(self, upper: float = math.inf) -> int:
        self.columns += 1
        self.upper.append(upper)
        return self.columns - 1

    def row(self, coefficients: dict[int, float], lower: float = -math.inf, upper: float = math.inf) -> None:
        self.rows.append(({i: c for i, c in coefficients.items() if c}, lower, upper))


@dataclass(frozen=True)
class Tier:
    """One objective's outcome: its value in the solution kept, the proven lower bound, and whether they meet."""

    value: int
    bound: int
    proven: bool


@dataclass(frozen=True)
class Outcome:
    values: tuple[int, ...]  # the solution's columns
    tiers: tuple[Tier, ...]  # one per objective solved; fewer when a tier ran out of time
    stopped_by_time: bool


def solve(
    program: Program,
    objectives: Sequence[dict[int, float]],
    time_limit: float,
    caps: Sequence[float | None] = (),
    start: Sequence[int] | None = None,
) -> Outcome | None:
    """The lexicographic optimum (module docstring), or None when the rows have no integer solution at all (or
    none was found in time and no ``start`` was given). ``caps`` bounds some tiers' own time (a tier that matters
    less need not use all that is left); ``start`` is a known solution, kept when time runs out before a better."""
    deadline = time.monotonic() + time_limit
    highs = highspy.Highs()
    for option, value in (("output_flag", False), ("mip_rel_gap", 0.0), ("threads", 1), ("random_seed", 0)):
        highs.setOptionValue(option, value)
    inf = highs.getInfinity()
    for upper in program.upper:
        highs.addVar(0.0, min(upper, inf))
    for index in range(program.columns):
        highs.changeColIntegrality(index, highspy.HighsVarType.kInteger)
    for coefficients, lower, upper in program.rows:
        _add_row(highs, coefficients, lower, upper, inf)
    values = tuple(start) if start is not None and _feasible(program, tuple(start)) else None
    tiers: list[Tier] = []
    for index, objective in enumerate(objectives):
        left = deadline - time.monotonic()
        if left <= 0:
            return None if values is None else Outcome(values, tuple(tiers), True)
        cap = caps[index] if index < len(caps) else None
        highs.setOptionValue("time_limit", left if cap is None else min(left, cap))
        if values is not None:  # the start, or the last tier's answer (a solution of this one): begin from it
            known = highspy.HighsSolution()
            known.col_value = [float(v) for v in values]
            highs.setSolution(known)
        highs.changeColsCost(program.columns, list(range(program.columns)), _dense(objective, program.columns))
        highs.run()
        status = highs.getModelStatus()
        if status == highspy.HighsModelStatus.kInfeasible:
            return None
        solution = highs.getSolution()
        found = tuple(round(v) for v in solution.col_value) if solution.value_valid else None
        if found is None or not _feasible(program, found):
            return None if values is None else Outcome(values, tuple(tiers), True)
        value = round(sum(c * found[i] for i, c in objective.items()))
        bound = math.ceil(highs.getInfo().mip_dual_bound - _EPSILON)
        proven = status == highspy.HighsModelStatus.kOptimal and bound >= value
        values = found
        tiers.append(Tier(value, min(bound, value), proven))
        if not proven:
            return Outcome(values, tuple(tiers), True)
        _add_row(highs, objective, -inf, value, inf)  # later tiers keep this one at its optimum
    assert values is not None
    return Outcome(values, tuple(tiers), False)


def _add_row(highs: highspy.Highs, coefficients: dict[int, float], lower: float, upper: float, inf: float) -> None:
    indices = sorted(coefficients)
    highs.addRow(max(lower, -inf), min(upper, inf), len(indices), indices, [coefficients[i] for i in indices])


def _dense(objective: dict[int, float], columns: int) -> list[float]:
    return [float(objective.get(i, 0.0)) for i in range(columns)]


def _feasible(program: Program, values: tuple[int, ...]) -> bool:
    """The rounded solution checked in exact integers: the answer never rests on the solver's tolerances."""
    if any(v < 0 or v > upper for v, upper in zip(values, program.upper)):
        return False
    for coefficients, lower, upper in program.rows:
        total = sum(c * values[i] for i, c in coefficients.items())
        if not lower - _EPSILON <= total <= upper + _EPSILON:
            return False
    return True
