"""Where each MIG profile may start on a GPU's memory slices: NVIDIA's placement tables, per GPU model.

Per-profile counts (``gpus.MigProfile.max_instances``) are not enough to tell whether a mix of profiles can be
created on one GPU: each GPU instance takes a contiguous run of memory slices that must begin at one of the
profile's allowed starts, and two instances may not overlap (NVML: "Creation of new GPU instance will fail if
there is overlap with the already occupied memory slices"). On an A100-40GB a ``1g.5gb`` may start at slices 0..6,
never at 7, so seven of them leave slice 7 idle. This table holds those starts; the rule that uses them is
``domain.mig_layouts``. A profile's size is its ``memory_slices`` in ``catalog/gpus.py``.

Each model says how sure we are: ``high`` (an NVIDIA listing or NVIDIA's own transcription), ``low`` (one mock
table only), or ``unsourced`` (no NVIDIA source gives the starts). Unsourced models are checked by slice counts
only, and every answer that relies on them says so; we never guess starts. Sources: docs/sources.md ("MIG
placements"); read 2026-11-26.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping

Confidence = Literal["high", "low", "unsourced"]
READ_ON = "2026-11-26"

GETTING_STARTED = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/getting-started-with-mig.html"
SUPPORTED_PROFILES = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"
CONCEPTS = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/concepts.html"
TEST_INFRA_H100 = (
    "NVIDIA/k8s-test-infra@c0148fc34c2796e678d4067480d14acaac33f78d "
    "pkg/gpu/mocknvml/configs/mock-nvml-config-h100.mig.yaml"
)
GO_NVML_A30 = "NVIDIA/go-nvml@2f9e261fe40a7a1c54783d66805e8920564763b4 pkg/nvml/mock/gpus/a30.go"


@dataclass(frozen=True)
class DriverCaveat:
    """A pair of compute sizes that one GPU holds together only from some driver branch on."""

    compute: tuple[int, int]  # e.g. (4, 3): a 4g and a 3g instance on the same GPU
    driver: str
    source: str

    def applies(self, compute_sizes: set[int]) -> bool:
        return set(self.compute) <= compute_sizes

    def text(self) -> str:
        first, second = self.compute
        return f"{first}g + {second}g on one GPU needs NVIDIA driver {self.driver} or later"


@dataclass(frozen=True)
class Placements:
    """One GPU model's placement table: allowed memory-slice starts per profile, with its source and confidence."""

    gpu: str  # a ``catalog.gpus`` model name
    confidence: Confidence
    source: str
    starts: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # profile -> allowed starts
    caveats: tuple[DriverCaveat, ...] = ()

    @property
    def sourced(self) -> bool:
        return self.confidence != "unsourced"


def _seven_slice_starts(one: int, one_big: int, two: int, three: int, four: int, seven: int) -> dict[str, tuple]:
    """The A100 geometry (8 memory slices): 1g at 0..6, the double-memory 1g at even slices, 2g at 0/2/4, 3g at
    0/4, 4g and 7g at 0; the numbers are the GB in the profile names."""
    ones = tuple(range(7))
    return {
        f"1g.{one}gb": ones,
        f"1g.{one}gb+me": ones,
        f"1g.{one_big}gb": (0, 2, 4, 6),
        f"2g.{two}gb": (0, 2, 4),
        f"3g.{three}gb": (0, 4),
        f"4g.{four}gb": (0,),
        f"7g.{seven}gb": (0,),
    }


# The MIG user guide's concepts page: before R510 a 4g and a 3g instance could not share an A100.
A100_R510 = DriverCaveat((4, 3), "R510", CONCEPTS)

PLACEMENTS: dict[str, Placements] = {
    table.gpu: table
    for table in (
        Placements(
            "A100-40GB",
            "high",
            f"`nvidia-smi mig -lgipp` on an A100-SXM4-40GB, {GETTING_STARTED}; instance counts {SUPPORTED_PROFILES}",
            _seven_slice_starts(5, 10, 10, 20, 20, 40),
            (A100_R510,),
        ),
        Placements(
            "A100-80GB",
            "high",
            f"the A100-40GB listing under the guide's 80GB names ({SUPPORTED_PROFILES}: 'the profile names will "
            "change according to the memory proportion')",
            _seven_slice_starts(10, 20, 20, 40, 40, 80),
            (A100_R510,),
        ),
        Placements(
            "H100-80GB",
            "high",
            f"{TEST_INFRA_H100} (NVIDIA's transcription of the guide's H100 diagrams); fractions {SUPPORTED_PROFILES}",
            _seven_slice_starts(10, 20, 20, 40, 40, 80),
        ),
        Placements(
            "A30-24GB",
            "low",
            f"{GO_NVML_A30} (mock data, the only source of starts read); fractions {SUPPORTED_PROFILES}",
            {
                "1g.6gb": (0, 1, 2, 3),
                "1g.6gb+me": (0, 1, 2, 3),
                "2g.12gb": (0, 2),
                "2g.12gb+me": (0, 2),
                "4g.24gb": (0,),
            },
        ),
        Placements("H200-141GB", "unsourced", f"sizes only: {SUPPORTED_PROFILES}; no NVIDIA source gives starts"),
        Placements("H100-NVL-94GB", "unsourced", "no NVIDIA placement listing read for the 94GB H100"),
        Placements("B200-180GB", "unsourced", "no NVIDIA placement listing read for the B200"),
    )
}


def placements_of(gpu: str) -> Placements:
    """The model's table; a MIG model missing here is unsourced (``tests/catalog`` keeps every MIG model listed)."""
    return PLACEMENTS.get(gpu) or Placements(gpu, "unsourced", "no placement table")
