"""The placement table agrees with the rest of the catalog: every MIG model is listed, sourced tables give starts
for exactly the model's profiles, inside its memory slices, and the most disjoint starts of one profile equal the
count NVIDIA's ``all-<profile>`` layout creates (a second source for the same fact)."""

from __future__ import annotations

import pytest

from gpupools.catalog.gpus import GPU_MODELS
from gpupools.catalog.mig_placements import PLACEMENTS, placements_of

MIG_MODELS = [gpu for gpu in GPU_MODELS.values() if gpu.mig_capable]


def _most_disjoint(starts: tuple[int, ...], size: int) -> int:
    """Greedy interval scheduling: optimal for equal-length runs sorted by start."""
    count, free_from = 0, 0
    for start in sorted(starts):
        if start >= free_from:
            count, free_from = count + 1, start + size
    return count


@pytest.mark.parametrize("gpu", MIG_MODELS, ids=lambda gpu: gpu.name)
def test_every_mig_model_has_a_table_with_a_confidence(gpu):
    assert gpu.name in PLACEMENTS
    assert placements_of(gpu.name).confidence in ("high", "low", "unsourced")


@pytest.mark.parametrize("gpu", [g for g in MIG_MODELS if placements_of(g.name).sourced], ids=lambda gpu: gpu.name)
def test_sourced_starts_fit_the_gpu_and_match_the_per_gpu_maximum(gpu):
    table = placements_of(gpu.name)
    assert set(table.starts) == {profile.name for profile in gpu.profiles}
    for profile in gpu.profiles:
        starts = table.starts[profile.name]
        assert all(0 <= start and start + profile.memory_slices <= gpu.memory_slices for start in starts)
        if not profile.media_extensions:  # +me is limited to one by the media engines, not by placement
            assert _most_disjoint(starts, profile.memory_slices) == profile.max_instances, profile.name


def test_models_without_nvidia_starts_say_so():
    for name in ("H200-141GB", "H100-NVL-94GB", "B200-180GB"):
        table = placements_of(name)
        assert table.confidence == "unsourced" and not table.starts
    assert placements_of("A30-24GB").confidence == "low"
    assert placements_of("no-such-gpu").confidence == "unsourced"


def test_a100_one_g_never_starts_on_the_last_slice():
    """The MIG user guide's lgipp listing: 1g.5gb at 0..6, so seven of them leave slice 7 idle."""
    assert placements_of("A100-40GB").starts["1g.5gb"] == (0, 1, 2, 3, 4, 5, 6)
    assert placements_of("A100-40GB").starts["1g.10gb"] == (0, 2, 4, 6)
