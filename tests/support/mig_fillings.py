"""Every set of MIG instances one GPU can hold, enumerated from NVIDIA's placement table alone (no code under test),
for the fit's oracles: runs at allowed starts, no memory slice twice, compute within the GPU, each profile within its
maximum, at most one media-extension (``+me``) instance."""

from __future__ import annotations

import functools

from gpupools.catalog.gpus import GPU_MODELS
from gpupools.catalog.mig_placements import placements_of


@functools.cache
def all_fillings(gpu_name: str) -> frozenset[tuple[tuple[str, int], ...]]:
    """Every non-empty set of instances one GPU holds, from the placement table alone: runs at allowed starts, no
    memory slice twice, compute within the GPU, each profile within its maximum, at most one +me instance."""
    gpu = GPU_MODELS[gpu_name]
    table = placements_of(gpu_name)
    runs = [(p, start) for p in gpu.profiles for start in table.starts[p.name]]
    found: set[tuple[tuple[str, int], ...]] = set()

    def extend(first: int, counts: dict[str, int], used: int, compute: int, media: int) -> None:
        for index in range(first, len(runs)):
            profile, start = runs[index]
            mask = ((1 << profile.memory_slices) - 1) << start
            held = counts.get(profile.name, 0) + 1
            if (
                used & mask
                or start + profile.memory_slices > gpu.memory_slices
                or compute + profile.compute_slices > gpu.compute_slices
                or held > profile.max_instances
                or media + profile.media_extensions > 1
            ):
                continue
            grown = {**counts, profile.name: held}
            found.add(tuple(sorted(grown.items())))
            extend(index + 1, grown, used | mask, compute + profile.compute_slices, media + profile.media_extensions)

    extend(0, {}, 0, 0, 0)
    return frozenset(found)
