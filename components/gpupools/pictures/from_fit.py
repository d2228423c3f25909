"""A fit answer as a ``Picture``: each node of each pool, its GPUs with the replicas they hold, the rest unused.

Reads only the answer's per-GPU uses (``fit.size_fit.GpuUse``: pool, node, layout, replicas), so a solver that
gives each GPU of a node its own layout draws without change here.
"""

from __future__ import annotations

from ..domain.mig_drawing import GpuPicture, NodePicture, Picture, PoolPicture, place_gpu
from ..fit.size_fit import SizeFit


def fit_picture(fit: SizeFit) -> Picture:
    size, gpu = fit.request.size, fit.request.size.gpu
    profile_of = fit.request.profile_of
    pools = []
    for pool in fit.pools:
        uses = [use for use in fit.per_gpu if use.pool == pool.name]
        nodes = []
        for index in range(pool.nodes):
            on_node = [use for use in uses if use.node == index]
            gpus: list[GpuPicture] = []
            for use in on_node:
                held = [(profile_of.get(name), name) for name, count in use.holds.items() for _ in range(count)]
                gpus.append(place_gpu(gpu, use.layout, held, used=bool(use.holds)))
            spare_layout = on_node[-1].layout if on_node else pool.layout
            gpus += [place_gpu(gpu, spare_layout, used=False)] * (size.gpus - len(on_node))
            nodes.append(NodePicture(pool.name, index + 1, size.name, tuple(gpus)))
        node_gpus = (place_gpu(gpu, pool.layout),) * size.gpus
        pools.append(PoolPicture(pool.name, size.name, node_gpus, tuple(nodes)))
    return Picture(tuple(pools))
