"""The fewest MIG GPUs whose per-GPU layouts hold a demand, by an exact branch and bound (no solver dependency).

The covering problem: given replicas per MIG profile and the layouts one GPU may take (``domain.mig_layouts``),
choose a layout per GPU so every replica gets an instance of its profile, with as few GPUs as possible; among
those, as few nodes as possible, where a node carries ``gpus_per_node`` GPUs of one layout (a stack pool cuts every
GPU of its nodes alike, so a layout's GPUs round up to whole nodes).

Search: iterative deepening on the GPU count from a lower bound. At each step some GPU must hold an instance of
the uncovered profile with the fewest layouts, so we branch only over the layouts that contain it; a residual
demand that failed with ``k`` GPUs is remembered (nodes: two passes, see ``_fewest_nodes``). The lower bound is
the best of ``ceil(w . residual / max over layouts of w . layout)`` over weight vectors ``w`` (compute slices,
memory slices, each profile alone, and the classic dual-feasible rounding ``floor(k * size / capacity)``): each
is a valid bound, since no GPU collects more than the maximum. A deadline stops the search; the answer then says
it is not proven.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Mapping, Sequence

from ..errors import GpupoolsError
from .mig_layouts import Layout, canonical

UPWARD_SHARE = 0.6  # of the time left for nodes, for the upward pass; the downward pass gets the rest
DEFAULT_TIME_LIMIT = 8.0  # seconds for one size; the 300-slice benchmark stays under 10 s on 2 cores


@dataclass(frozen=True)
class Profile:
    """What the solver needs of a profile: its name and its compute and memory slices."""

    name: str
    compute: int
    memory: int


@dataclass(frozen=True)
class Solution:
    """Layouts per GPU (as counts), whether the GPU count and the node count are proven minimal, and the bounds."""

    layouts: tuple[tuple[Layout, int], ...]  # (layout, GPUs with it)
    gpus: int
    nodes: int
    lower_bound: int  # the compute/memory bound alone (lowerBound.gpus)
    proven_gpus: bool
    proven_nodes: bool
    stopped_by_time: bool


class _Deadline(GpupoolsError):
    """The time limit passed: the search stops with the best cover found so far (never escapes the solver)."""


def slice_bound(demand: Mapping[str, int], profiles: Mapping[str, Profile], compute: int, memory: int) -> int:
    """``max(ceil(sum compute slices / compute), ceil(sum memory slices / memory))``: what slices alone prove."""
    total_compute = sum(profiles[name].compute * count for name, count in demand.items())
    total_memory = sum(profiles[name].memory * count for name, count in demand.items())
    return max(-(-total_compute // compute), -(-total_memory // memory), 0)


def nodes_for(layouts: Sequence[tuple[Layout, int]], gpus_per_node: int) -> int:
    return sum(-(-count // gpus_per_node) for _, count in layouts)


def solve(
    demand: Mapping[str, int],
    layouts: Sequence[Layout],
    profiles: Mapping[str, Profile],
    gpu_slices: tuple[int, int],
    gpus_per_node: int,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> Solution | None:
    """The optimum (module docstring), or None when some demanded profile is in no layout."""
    wanted = {name: count for name, count in demand.items() if count > 0}
    names = sorted(wanted)
    vectors = _project(layouts, names)
    if any(all(vector[i] == 0 for vector in vectors) for i in range(len(names))):
        return None
    deadline = time.monotonic() + time_limit
    sized = [profiles[name] for name in names]
    search = _Search(vectors, sized, deadline)
    start = tuple(wanted[name] for name in names)
    bound = slice_bound(wanted, profiles, *gpu_slices)
    best = search.greedy(start)
    proven_gpus = stopped = False
    try:
        for k in range(max(search.bound(start), 1 if names else 0), len(best)):
            found = search.cover(start, k)
            if found is not None:
                best = found
                break
        proven_gpus = True
    except _Deadline:
        stopped = True
    chosen, nodes, proven_nodes = best, _nodes_of(best, gpus_per_node), False
    if proven_gpus and nodes > -(-len(best) // gpus_per_node):
        chosen, nodes, proven_nodes, late = _fewest_nodes(start, best, vectors, sized, gpus_per_node, deadline)
        stopped = stopped or late
    elif proven_gpus:
        proven_nodes = True
    return Solution(tuple(_counted(chosen, names)), len(best), nodes, bound, proven_gpus, proven_nodes, stopped)


def _fewest_nodes(
    start: tuple[int, ...],
    best: list[tuple[int, ...]],
    vectors: list[tuple[int, ...]],
    sized: list[Profile],
    per_node: int,
    deadline: float,
) -> tuple[list[tuple[int, ...]], int, bool, bool]:
    """Among covers with ``len(best)`` GPUs, one with the fewest nodes, in two passes that find different answers
    fast. First upwards from the node bound (``ceil(gpus / per_node)`` and the node-level optimum, every GPU of a
    node cut alike): each node-level cover of that size is tried for a cover with the optimal GPU count inside its
    nodes (a share of the time). Then downwards from the best so far with node accounting (``_NodeSearch``) until
    a count has no cover. Either pass ending proves the nodes."""
    gpus, nodes = len(best), _nodes_of(best, per_node)
    whole = _Search([tuple(a * per_node for a in v) for v in vectors], sized, deadline)
    floor = max(-(-gpus // per_node), whole.bound(start))
    whole.deadline = time.monotonic() + max(deadline - time.monotonic(), 0) * UPWARD_SHARE
    try:
        while floor < nodes:
            for node_cover in whole.covers(start, floor):
                caps: dict[tuple[int, ...], int] = {}
                for node in node_cover:
                    layout = tuple(a // per_node for a in node)
                    caps[layout] = caps.get(layout, 0) + per_node
                found = _Search(list(caps), sized, whole.deadline, caps).cover(start, gpus)
                if found is not None:
                    return found, _nodes_of(found, per_node), True, False
            floor += 1  # no cover with the optimal GPU count fits this many nodes
        return best, nodes, True, False
    except _Deadline:
        pass
    search = _NodeSearch(_Search(vectors, sized, deadline), per_node)
    try:
        for target in range(nodes - 1, floor - 1, -1):
            found = search.cover(start, gpus, target)
            if found is None:
                return best, nodes, True, False
            best, nodes = found, _nodes_of(found, per_node)
        return best, nodes, True, False
    except _Deadline:
        return best, nodes, False, True


class _NodeSearch:
    """The cover search with node accounting: a GPU of a layout whose last node has room is free, another opens a
    node; a branch stops when the nodes open plus those the remaining GPUs need beyond the free room exceed the
    target."""

    def __init__(self, search: _Search, per_node: int):
        self.search = search
        self.per_node = per_node
        self.counts: dict[tuple[int, ...], int] = {}
        self.taken: list[tuple[int, ...]] = []
        self.failed: set[tuple] = set()

    def cover(self, residual: tuple[int, ...], gpus: int, target: int) -> list[tuple[int, ...]] | None:
        self.counts.clear()
        self.taken.clear()
        self.failed.clear()
        return list(self.taken) if self._cover(residual, gpus, 0, 0, target) else None

    def _cover(self, residual: tuple[int, ...], k: int, nodes: int, room: int, target: int) -> bool:
        search, per_node = self.search, self.per_node
        search._tick()
        if not any(residual):
            return True
        need = search.bound(residual)
        if k == 0 or need > k or nodes + max(0, -(-(need - room) // per_node)) > target:
            return False
        key = (residual, k, nodes, tuple(sorted((v, c % per_node) for v, c in self.counts.items() if c % per_node)))
        if key in self.failed:
            return False
        index = min((i for i, r in enumerate(residual) if r), key=lambda i: (len(search.holders[i]), -residual[i]))
        options = sorted(
            search.holders[index], key=lambda v: (self.counts.get(v, 0) % per_node == 0, -_covered(v, residual))
        )
        for vector in options:
            count = self.counts.get(vector, 0)
            opens = count % per_node == 0
            if opens and nodes + 1 > target:
                continue
            self.counts[vector] = count + 1
            self.taken.append(vector)
            left = tuple(max(r - a, 0) for r, a in zip(residual, vector))
            if self._cover(left, k - 1, nodes + opens, room + (per_node - 1 if opens else -1), target):
                return True
            self.taken.pop()
            self.counts[vector] = count
            if count == 0:
                del self.counts[vector]
        self.failed.add(key)
        return False


def _project(layouts: Sequence[Layout], names: list[str]) -> list[tuple[int, ...]]:
    """Each layout restricted to the demanded profiles; only the ones no other contains (extra instances of other
    profiles never help), largest first so the greedy and the branches try big layouts early."""
    vectors = {tuple(dict(layout).get(name, 0) for name in names) for layout in layouts}
    vectors.discard(tuple(0 for _ in names))
    kept = [v for v in vectors if not any(o != v and all(a >= b for a, b in zip(o, v)) for o in vectors)]
    return sorted(kept, key=lambda v: (-sum(v), v))


def _counted(chosen: list[tuple[int, ...]], names: list[str]) -> list[tuple[Layout, int]]:
    counts: dict[tuple[int, ...], int] = {}
    for vector in chosen:
        counts[vector] = counts.get(vector, 0) + 1
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [(canonical(dict(zip(names, vector))), count) for vector, count in ordered]


class _Search:
    """One branch and bound: layouts as vectors over the demanded profiles (optionally capped in number), bound
    weights, and the residual demands that failed with some number of GPUs."""

    def __init__(
        self,
        vectors: list[tuple[int, ...]],
        profiles: list[Profile],
        deadline: float,
        caps: dict[tuple[int, ...], int] | None = None,
    ):
        self.vectors = vectors
        self.deadline = deadline
        self.caps = caps
        self.steps = 0
        self.failed: dict[tuple, int] = {}  # state -> the most GPUs known not to cover it
        self.weights = _weights(profiles, vectors)
        self.holders = [[v for v in vectors if v[i] > 0] for i in range(len(profiles))]

    def bound(self, residual: tuple[int, ...]) -> int:
        best = 0
        for weight, most in self.weights:
            best = max(best, -(-sum(w * r for w, r in zip(weight, residual)) // most))
        return best

    def _tick(self) -> None:
        self.steps += 1
        if self.steps % 256 == 1 and time.monotonic() > self.deadline:
            raise _Deadline

    def _state(self, residual: tuple[int, ...]) -> tuple:
        return residual if self.caps is None else (residual, tuple(sorted(self.caps.items())))

    def cover(self, residual: tuple[int, ...], k: int) -> list[tuple[int, ...]] | None:
        """Layouts for at most ``k`` GPUs that cover ``residual``, or None."""
        return next(self._covers(residual, k, [], first=True), None)

    def covers(self, residual: tuple[int, ...], k: int):
        """Every distinct cover with at most ``k`` GPUs (as multisets), lazily."""
        seen: set[tuple[tuple[int, ...], ...]] = set()
        for found in self._covers(residual, k, [], first=False):
            key = tuple(sorted(found))
            if key not in seen:
                seen.add(key)
                yield found

    def _covers(self, residual: tuple[int, ...], k: int, taken: list[tuple[int, ...]], first: bool):
        self._tick()
        if not any(residual):
            yield list(taken)
            return
        state = self._state(residual)
        if k == 0 or self.bound(residual) > k or self.failed.get(state, -1) >= k:
            return
        # The uncovered profile with the fewest layouts holding it: some GPU must take one of those.
        index = min((i for i, r in enumerate(residual) if r), key=lambda i: (len(self.holders[i]), -residual[i]))
        options = sorted(self.holders[index], key=lambda v: -_covered(v, residual))
        any_found = False
        for vector in options:
            if self.caps is not None and self.caps.get(vector, 0) == 0:
                continue
            if self.caps is not None:
                self.caps[vector] -= 1
            taken.append(vector)
            try:
                for found in self._covers(tuple(max(r - v, 0) for r, v in zip(residual, vector)), k - 1, taken, first):
                    any_found = True
                    yield found
                    if first:
                        return
            finally:
                taken.pop()
                if self.caps is not None:
                    self.caps[vector] += 1
        if not any_found:
            self.failed[state] = max(self.failed.get(state, -1), k)

    def greedy(self, residual: tuple[int, ...]) -> list[tuple[int, ...]]:
        """An upper bound: repeatedly the layout covering the most weighted demand (weights: the first bound)."""
        weight = self.weights[0][0] if self.weights else tuple(1 for _ in residual)
        chosen = []
        while any(residual):
            vector = max(self.vectors, key=lambda v: sum(w * min(a, r) for w, a, r in zip(weight, v, residual)))
            chosen.append(vector)
            residual = tuple(max(r - v, 0) for r, v in zip(residual, vector))
        return chosen


def _nodes_of(chosen: list[tuple[int, ...]], per_node: int) -> int:
    counts: dict[tuple[int, ...], int] = {}
    for vector in chosen:
        counts[vector] = counts.get(vector, 0) + 1
    return sum(-(-count // per_node) for count in counts.values())


def _covered(vector: tuple[int, ...], residual: tuple[int, ...]) -> int:
    return sum(min(a, r) for a, r in zip(vector, residual))


def _weights(profiles: list[Profile], vectors: list[tuple[int, ...]]) -> list[tuple[tuple[int, ...], int]]:
    """Weight vectors with the most one GPU collects of each: compute and memory slices first, then each profile
    alone, then ``floor(k * size / total)`` for every k (dual-feasible functions; the maximum keeps any valid)."""
    compute_total = max((sum(a * p.compute for a, p in zip(v, profiles)) for v in vectors), default=1)
    memory_total = max((sum(a * p.memory for a, p in zip(v, profiles)) for v in vectors), default=1)
    candidates = [tuple(p.compute for p in profiles), tuple(p.memory for p in profiles)]
    candidates += [tuple(int(i == j) for j in range(len(profiles))) for i in range(len(profiles))]
    for total, size in ((compute_total, "compute"), (memory_total, "memory")):
        for k in range(1, total + 1):
            candidates.append(tuple((k * getattr(p, size)) // total for p in profiles))
    weights = []
    for weight in dict.fromkeys(candidates):
        most = max(sum(w * a for w, a in zip(weight, v)) for v in vectors) if vectors else 0
        if most > 0 and any(weight):
            weights.append((weight, most))
    return weights
