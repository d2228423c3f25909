"""Newer upstream releases than gpupools pins, as public material showed them when read: ``gpupools catalog``
prints "newer: X" beside the pin. Moving a pin is a change of its own (tested against the chart); this table only
makes the drift visible. Sources (``docs/sources.md``): the projects' git snapshots end in August 2026; the newer
versions are those in NVIDIA/aicr ``docs/user/container-images.md`` (the AI Cluster Runtime image list; stored
commit 4288a18cbe85), read 2026-11-26. Release dates were not found but for the DRA driver's (issue #26).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from .chart_refs import DCGM_EXPORTER, DCGM_EXPORTER_IMAGE, DEVICE_PLUGIN, DRA_DRIVER, GPU_OPERATOR, KARPENTER

READ_ON = date(2026, 11, 26)
AICR = "NVIDIA/aicr docs/user/container-images.md @ 4288a18cbe85 (read 2026-11-26)"


@dataclass(frozen=True)
class NewerRelease:
    pin: str  # the catalog name of what is pinned (a chart name or an image)
    version: str  # as the pin spells it
    released: str  # the date, or "not found"
    source: str


# pinned thing (a chart's or an image's catalog name) -> the newest release seen upstream
NEWER_RELEASES: dict[str, NewerRelease] = {
    row.pin: row
    for row in (
        NewerRelease(GPU_OPERATOR.name, "v26.7.1", "not found", AICR),
        NewerRelease(DEVICE_PLUGIN.name, "0.20.1", "not found", AICR),
        NewerRelease(DCGM_EXPORTER.name, "4.8.4", "not found", AICR),
        NewerRelease(
            KARPENTER.name,
            "1.15.0",
            "not found",
            "the Karpenter docs for v1.15 were published in October 2026 (reference README, read 2026-11-28)",
        ),
        NewerRelease(DCGM_EXPORTER_IMAGE, "4.6.1-4.8.4-distroless", "not found", AICR),
        NewerRelease(
            DRA_DRIVER.name,
            "0.5.0",
            "2026-08-19",
            f"{AICR}; kubernetes-sigs/dra-driver-nvidia-gpu v0.5.0 = 90b3a5917f0c (as reported publicly)",
        ),
    )
}
