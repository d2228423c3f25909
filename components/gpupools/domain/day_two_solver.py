"""Day two: the cheapest change to live pools that holds a new demand, as one integer program solved by HiGHS.

A live pool is ``nodes`` alike nodes (``NodeLayout``: its GPUs by per-GPU layout). Each pool is either kept as it
is (free, its capacity stays) or re-cut: every node of the pool takes one new per-GPU node layout (the pool's
``nvidia.com/mig.config`` is one label), which costs nothing new but takes the pool's capacity offline while the
MIG manager drains and re-cuts it (``plan/recut.py`` says so in the diff). Pools the MIG manager does not cut are
only kept. New nodes cost their price. Nodes are never removed: the change only adds or re-cuts.

Objectives in order (``domain.lexicographic_mip``, each held at its optimum while the next is minimised):

1. new nodes (the new monthly cost: one size, one node price);
2. re-cut nodes (the capacity taken offline);
3. the GPUs of new nodes the demand uses.

The columns are the configurations of ``fit_solver.project`` (maximal layouts restricted to the demanded profiles,
or a whole GPU) per re-cut pool's node and for new GPUs, so the size depends on pools and GPU model, never on
replicas. "Proven" only with HiGHS's certificate on every tier.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from . import lexicographic_mip as mip
from .fit_solver import Config, NodePool, covering, pack
from .mig_layouts import Layout, canonical
from .node_layout import NodeLayout


@dataclass(frozen=True)
class LivePool:
    """A pool as it runs: its name, nodes, each node's GPUs, and whether the MIG manager may re-cut it in place."""

    name: str
    nodes: int
    node: NodeLayout
    recuttable: bool = True
    # The nodes a re-cut takes offline: ``nodes``, or more on an autoscaled pool (as many as it may be running).
    offline_nodes: int | None = None

    @property
    def recut_weight(self) -> int:
        return self.nodes if self.offline_nodes is None else max(self.nodes, self.offline_nodes)


@dataclass(frozen=True)
class PoolChange:
    """A live pool before and after: ``after`` differs from ``before`` when the pool is re-cut."""

    pool: LivePool
    after: NodeLayout

    @property
    def recut(self) -> bool:
        return self.after != self.pool.node


@dataclass(frozen=True)
class DayTwoSolution:
    """Every live pool's fate, the new nodes (alike ones grouped), and what the certificate proves."""

    pools: tuple[PoolChange, ...]
    added: tuple[NodePool, ...]
    new_nodes: int
    recut_nodes: int
    new_gpus: int
    bound_new_nodes: int
    proven: bool  # new nodes and re-cut nodes both certified optimal
    stopped_by_time: bool


def solve_day_two(
    demand: Mapping[str, int],
    whole: int,
    layouts: Sequence[Layout],
    live: Sequence[LivePool],
    gpus_per_node: int,
    time_limit: float,
) -> DayTwoSolution | None:
    """The cheapest change (module docstring), or None when a demanded profile is in no layout."""
    names = sorted(name for name, count in demand.items() if count > 0)
    vectors = covering(layouts, names)
    if vectors is None:
        return None
    per_node = gpus_per_node
    program = mip.Program()
    # a pool without nodes has nothing to re-cut (and nothing to gain): only kept
    recut = [program.column(1 if pool.recuttable and pool.nodes > 0 else 0) for pool in live]
    # per re-cut pool: one node's GPUs per configuration, then its whole GPUs
    cut = [[program.column(per_node) for _ in vectors] for _ in live]
    cut_whole = [program.column(per_node) for _ in live]
    new = [program.column() for _ in vectors]
    new_whole = program.column()
    new_nodes = program.column()
    for j, pool in enumerate(live):
        program.row({**{c: 1.0 for c in cut[j]}, cut_whole[j]: 1.0, recut[j]: -float(per_node)}, upper=0)
    program.row({new_nodes: float(per_node), **{c: -1.0 for c in new}, new_whole: -1.0}, lower=0)
    for p, name in enumerate(names):
        kept = [pool.nodes * pool.node.mig_devices.get(name, 0) for pool in live]
        row = {column: float(vector[p]) for column, vector in zip(new, vectors)}
        for j, pool in enumerate(live):
            row[recut[j]] = -float(kept[j])
            row.update({column: float(pool.nodes * vector[p]) for column, vector in zip(cut[j], vectors)})
        program.row(row, lower=demand[name] - sum(kept))
    kept_whole = [pool.nodes * pool.node.whole_gpus for pool in live]
    row = {new_whole: 1.0, **{cut_whole[j]: float(pool.nodes) for j, pool in enumerate(live)}}
    row.update({recut[j]: -float(kept_whole[j]) for j in range(len(live))})
    program.row(row, lower=whole - sum(kept_whole))
    objectives = [
        {new_nodes: 1.0},
        {recut[j]: float(pool.recut_weight) for j, pool in enumerate(live)},
        {**{c: 1.0 for c in new}, new_whole: 1.0},
    ]
    outcome = mip.solve(program, objectives, time_limit)
    if outcome is None:
        return None
    values = outcome.values
    configs = [canonical(dict(zip(names, vector))) for vector in vectors]
    changes = []
    for j, pool in enumerate(live):
        if not values[recut[j]]:
            changes.append(PoolChange(pool, pool.node))
            continue
        groups: list[tuple[int, Layout | None]] = [(values[c], cfg) for c, cfg in zip(cut[j], configs) if values[c]]
        groups += [(values[cut_whole[j]], None)] if values[cut_whole[j]] else []
        changes.append(PoolChange(pool, _node(groups, per_node)))
    added_configs: list[tuple[Config, int]] = [(config, values[c]) for c, config in zip(new, configs) if values[c]]
    added_configs += [(None, values[new_whole])] if values[new_whole] else []
    added = pack(added_configs, per_node)
    tiers = outcome.tiers
    proven = len(tiers) >= 2 and tiers[0].proven and tiers[1].proven
    return DayTwoSolution(
        tuple(changes),
        added,
        sum(pool.nodes for pool in added),
        sum(change.pool.recut_weight for change in changes if change.recut),
        sum(n for _, n in added_configs),
        tiers[0].bound if tiers else 0,
        proven,
        outcome.stopped_by_time,
    )


def _node(groups: list[tuple[int, Layout | None]], per_node: int) -> NodeLayout:
    """A re-cut node: its groups in order; GPUs the demand leaves free take the last group's layout."""
    if not groups:
        return NodeLayout.of([(per_node, None)])
    spare = per_node - sum(gpus for gpus, _ in groups)
    last_gpus, last = groups[-1]
    groups = [*groups[:-1], (last_gpus + spare, last)]
    return NodeLayout.of(groups)
