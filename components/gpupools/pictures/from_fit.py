"""A fit answer as a ``Picture``: each node of each pool, its GPUs with the replicas they hold, the rest unused.

Reads the answer through two questions only, so a solver that changes its answer's shape needs no change to the
renderers: how one node of a pool is cut (``groups``: (layout, GPUs) per node), and which GPUs the demand uses
(``per_gpu``: a pool, a layout, the replicas one GPU holds, and how many such GPUs). The used GPUs of a pool fill
its nodes in order; what is left of a node is drawn unused, cut as the node is.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Sequence

from ..catalog.gpus import GpuModel
from ..domain.mig_drawing import GpuEntry, GpuPicture, NodePicture, Picture, PoolPicture, place_gpu
from ..fit.size_fit import SizeFit

MAX_NODES = 100  # drawn at most (the SVG draws no more); the others are counted


def fit_picture(fit: SizeFit, max_nodes: int = MAX_NODES) -> Picture:
    """The answer's pools with their first ``max_nodes`` nodes in all (the rest only counted): a fit of a million
    replicas has a hundred thousand nodes, and no picture shows them all."""
    gpu = fit.request.size.gpu
    size = fit.request.size.name
    profile_of = fit.request.profile_of
    drawn: dict[tuple[Any, ...], GpuPicture] = {}

    def picture(layout: GpuEntry, holds: dict[str, int]) -> GpuPicture:
        key = (layout, tuple(holds.items()))
        if key not in drawn:
            held = [(profile_of.get(name), name) for name, count in holds.items() for _ in range(count)]
            drawn[key] = place_gpu(gpu, layout, held, used=bool(holds))
        return drawn[key]

    used: dict[tuple[str, GpuEntry], deque[list[Any]]] = {}  # runs of [holds, GPUs left], in order
    for use in fit.per_gpu:
        used.setdefault((use.pool, use.layout), deque()).append([use.holds, use.gpus])

    def next_holds(queue: deque[list[Any]]) -> dict[str, int]:
        if not queue:
            return {}
        run = queue[0]
        run[1] -= 1
        if run[1] <= 0:
            queue.popleft()
        return run[0]

    pools, left = [], max_nodes
    for pool in fit.pools:
        groups = pool.groups  # (layout, GPUs) of one node, in device order
        nodes = []
        for index in range(1, min(pool.nodes, left) + 1):
            gpus: list[GpuPicture] = []
            for layout, count in groups:
                queue = used.get((pool.name, layout), deque())
                gpus += [picture(layout, next_holds(queue)) for _ in range(count)]
            nodes.append(NodePicture(pool.name, index, size, tuple(gpus)))
        left -= len(nodes)
        pools.append(PoolPicture(pool.name, size, _template(gpu, groups), tuple(nodes), pool.nodes))
    return Picture(tuple(pools))


def _template(gpu: GpuModel, groups: Sequence[tuple[GpuEntry, int]]) -> tuple[GpuPicture, ...]:
    return tuple(place_gpu(gpu, layout) for layout, count in groups for _ in range(count))
