"""The one drawing model of MIG layouts: where each instance sits on a GPU's memory-slice axis, per GPU, per node.

Every picture (the terminal's, the pull request comment's, the SVG) is a rendering of a ``Picture`` built here,
never a second computation. Starts come from the one MIG rule (``mig_layouts.check_layout``, NVIDIA's placement
tables); on a model whose starts are unsourced the instances are packed by size, largest first, and
``GpuPicture.sourced`` says so. A GPU is given as a ``GpuEntry``: a layout, or ``None`` when it stays whole, so a
node whose GPUs each have their own layout draws the same way as a pool that cuts every GPU alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from ..catalog.gpus import GpuModel
from .mig_layouts import Layout, canonical, check_layout
from .node_layout import NodeLayout
from .pools import ResolvedPool

GpuEntry = Layout | None  # a MIG layout, or None: the GPU stays whole
WHOLE = "whole"  # how JSON spells a GpuEntry of None: {"gpus": n, "whole": true}
MAX_GPUS = 64  # per node, far above any size's


@dataclass(frozen=True)
class PlacedInstance:
    """One MIG instance: its profile, its first memory slice and how many it takes, and the workload it holds."""

    profile: str
    start: int
    slices: int
    compute: int
    workload: str | None = None

    @property
    def end(self) -> int:
        return self.start + self.slices


@dataclass(frozen=True)
class GpuPicture:
    """One GPU: its model's memory slices, its layout (None: whole) and instances, whether anything uses it."""

    model: str
    memory_slices: int
    layout: Layout | None
    instances: tuple[PlacedInstance, ...] = ()
    used: bool = True
    sourced: bool = True  # False: the model's starts are unsourced; the instances are packed by size
    workload: str | None = None  # a whole GPU's workload

    @property
    def whole(self) -> bool:
        return self.layout is None

    @property
    def spare(self) -> tuple[int, ...]:
        """The memory slices no instance covers (none on a whole GPU)."""
        if self.whole:
            return ()
        taken = {s for instance in self.instances for s in range(instance.start, instance.end)}
        return tuple(s for s in range(self.memory_slices) if s not in taken)

    @property
    def shape(self) -> GpuPicture:
        """The GPU without workloads and use: what two GPUs share when they are cut alike."""
        return replace(
            self, instances=tuple(replace(i, workload=None) for i in self.instances), used=True, workload=None
        )

    def describe(self) -> str:
        if self.layout is None:
            return f"{self.model}, whole (no MIG)"
        return f"{self.model}: " + ", ".join(f"{name} x{count}" for name, count in self.layout)


@dataclass(frozen=True)
class NodePicture:
    """One node of a pool, with each of its GPUs."""

    pool: str
    index: int  # 1-based within its pool
    size: str
    gpus: tuple[GpuPicture, ...]


@dataclass(frozen=True)
class PoolPicture:
    """One pool: how one of its nodes' GPUs are cut (``node_gpus``), and its nodes as they run."""

    name: str
    size: str
    node_gpus: tuple[GpuPicture, ...]
    nodes: tuple[NodePicture, ...] = ()
    # How many nodes the pool has when only the first are drawn (a fit of a million replicas); None: all are.
    node_count: int | None = None

    @property
    def nodes_in_pool(self) -> int:
        return len(self.nodes) if self.node_count is None else self.node_count

    def to_json(self) -> dict[str, Any]:
        """The pool's node in the stack file's per-GPU form: runs of GPUs cut alike, in device order."""
        runs: list[list[Any]] = []
        for gpu in self.node_gpus:
            if runs and runs[-1][1] == gpu.layout:
                runs[-1][0] += 1
            else:
                runs.append([1, gpu.layout])
        return {
            "pool": self.name,
            "size": self.size,
            "gpu": self.node_gpus[0].model if self.node_gpus else "",
            "nodes": len(self.nodes),
            "layout": NodeLayout.of((gpus, layout) for gpus, layout in runs).to_json(),
        }


@dataclass(frozen=True)
class DistinctLayout:
    """One way a GPU is cut, drawn once: the pools that cut GPUs so, how many GPUs and how many are unused."""

    gpu: GpuPicture
    pools: tuple[str, ...]
    gpus: int
    unused: int


@dataclass(frozen=True)
class Picture:
    """Every pool of a stack or a fit answer."""

    pools: tuple[PoolPicture, ...]
    notes: tuple[str, ...] = field(default=())

    @property
    def nodes(self) -> tuple[NodePicture, ...]:
        return tuple(node for pool in self.pools for node in pool.nodes)

    @property
    def node_count(self) -> int:
        """Every node of every pool, drawn or not (``nodes`` holds the drawn ones)."""
        return sum(pool.nodes_in_pool for pool in self.pools)

    def distinct(self) -> tuple[DistinctLayout, ...]:
        """Each distinct GPU layout once, in the order the pools first show it."""
        found: dict[GpuPicture, list[Any]] = {}
        for pool in self.pools:
            for gpu in pool.node_gpus:
                entry = found.setdefault(gpu.shape, [[], 0, 0])
                if pool.name not in entry[0]:
                    entry[0].append(pool.name)
            for node in pool.nodes:
                for gpu in node.gpus:
                    entry = found.setdefault(gpu.shape, [[pool.name], 0, 0])
                    entry[1] += 1
                    entry[2] += 0 if gpu.used else 1
        return tuple(DistinctLayout(gpu, tuple(pools), gpus, unused) for gpu, (pools, gpus, unused) in found.items())


def place_gpu(
    gpu: GpuModel, entry: GpuEntry, held: Sequence[tuple[str | None, str]] = (), used: bool = True
) -> GpuPicture:
    """One GPU cut by ``entry``; ``held`` gives (profile, workload) per instance in use (profile None: the whole
    GPU's workload), given to the profile's instances in slice order."""
    if entry is None:
        workload = next((name for profile, name in held if profile is None), None)
        return GpuPicture(gpu.name, gpu.memory_slices, None, (), used, True, workload)
    layout = canonical(dict(entry))
    check = check_layout(gpu, dict(layout))
    starts = sorted(check.starts, key=lambda pair: (pair[1], pair[0])) if check.starts else _packed(gpu, layout)
    waiting: dict[str, list[str]] = {}
    for profile, name in held:
        if profile is not None:
            waiting.setdefault(profile, []).append(name)
    instances = []
    for name, start in starts:
        profile = gpu.profile(name)
        queue = waiting.get(name) or []
        instances.append(
            PlacedInstance(
                name,
                start,
                profile.memory_slices if profile else 1,
                profile.compute_slices if profile else 0,
                queue.pop(0) if queue else None,
            )
        )
    return GpuPicture(gpu.name, gpu.memory_slices, layout, tuple(instances), used, bool(check.starts))


def _packed(gpu: GpuModel, layout: Layout) -> list[tuple[str, int]]:
    """Instances side by side, largest first: where no NVIDIA table gives starts (or the layout is invalid)."""
    sizes = {name: (p.memory_slices if (p := gpu.profile(name)) else 1) for name, _ in layout}
    order = sorted((name for name, count in layout for _ in range(count)), key=lambda n: (-sizes[n], n))
    placed, start = [], 0
    for name in order:
        placed.append((name, start))
        start += sizes[name]
    return placed


def pool_entries(pool: ResolvedPool) -> tuple[GpuEntry, ...]:
    """How each GPU of one of the pool's nodes is cut, in device order (``MigPlan.node``, the one node model); a
    pool without MIG keeps every GPU whole."""
    if pool.mig is None:
        return (None,) * pool.gpus_per_node
    return node_entries(pool.mig.node)


def node_entries(node: NodeLayout) -> tuple[GpuEntry, ...]:
    """A node's GPUs as entries: each group's layout (None: whole) once per GPU of the group."""
    return tuple(layout for indexes, group in node.indexed() for layout in [group.layout] * len(indexes))


def pool_picture(pool: ResolvedPool) -> PoolPicture:
    return entries_picture(pool.name, pool.size.name, pool.gpu, pool_entries(pool), pool.nodes)


def entries_picture(name: str, size: str, gpu: GpuModel, entries: Sequence[GpuEntry], nodes: int) -> PoolPicture:
    """A pool whose ``nodes`` nodes all cut their GPUs as ``entries`` says."""
    gpus = tuple(place_gpu(gpu, entry) for entry in entries)
    return PoolPicture(name, size, gpus, tuple(NodePicture(name, i, size, gpus) for i in range(1, nodes + 1)))


def stack_picture(pools: Sequence[ResolvedPool]) -> Picture:
    return Picture(tuple(pool_picture(pool) for pool in pools))


def entries_from_json(gpu: GpuModel, layout: Sequence[Mapping[str, Any]]) -> tuple[GpuEntry, ...] | None:
    """A plan's per-GPU ``layout`` (``PoolPicture.to_json``) as entries, or None when an entry is not a valid
    layout of ``gpu`` or the GPUs are more than any node has (an untrusted base plan)."""
    groups: list[tuple[int, Mapping[str, int] | None]] = []
    for group in layout:
        gpus, mix = group.get("gpus"), group.get("mix")
        if not isinstance(gpus, int) or not 1 <= gpus <= MAX_GPUS - sum(n for n, _ in groups):
            return None
        if group.get(WHOLE) is True and mix is None:
            groups.append((gpus, None))
        elif WHOLE not in group and isinstance(mix, Mapping) and mix and not check_layout(gpu, dict(mix)).problems:
            groups.append((gpus, dict(mix)))
        else:
            return None
    return node_entries(NodeLayout.of(groups))
