"""The DRA sections of ``plan`` (installer dra-driver only): the devices NVIDIA's DRA driver publishes per node,
and how the capacity diff changes them. Separate from ``render`` so stacks without DRA print what they always did."""

from __future__ import annotations

from typing import Any

from ..plan.diff import Count
from ..untrusted.text import markdown_safe as md

HEADER = ("POOL", "KIND", "PROFILE", "PER NODE", "MEMORY")


def _rows(devices: dict[str, list[dict[str, Any]]]) -> list[tuple[str, ...]]:
    return [
        (pool, d["kind"], d["profile"] or "-", str(d["perNode"]), f"{d['memoryGB']} GB")
        for pool, found in devices.items()
        for d in found
    ]


def dra_device_lines(devices: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The plan's ``draDevices`` as a table: what each node's ResourceSlice lists, per pool and kind."""
    if not devices:
        return []
    rows = [HEADER, *_rows(devices)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    table = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    return [
        "",
        "Devices the DRA driver publishes per node (ResourceSlices, resource.k8s.io/v1):",
        *table,
        *_shared(devices),
    ]


def _shared(devices: dict[str, list[dict[str, Any]]]) -> list[str]:
    """What ``replicas`` means under DRA: pods per shared ResourceClaim, one claim per device (``domain.dra``)."""
    return [
        f"  pool {pool}: {d['sharing']['strategy']} through one shared ResourceClaim per {d['kind']} device, "
        f"meant for {d['sharing']['podsPerClaim']} pods each (slice_workload shared_claim=N)"
        for pool, found in devices.items()
        for d in found
        if d.get("sharing")
    ]


def markdown_dra_devices(devices: dict[str, list[dict[str, Any]]]) -> list[str]:
    if not devices:
        return []
    lines = [
        "",
        "Devices the DRA driver publishes per node:",
        "",
        "| pool | kind | profile | per node | memory |",
        "|---|---|---|---|---|",
    ]
    shared = [line.strip() for line in _shared(devices)]
    rows = [f"| {' | '.join(md(cell) for cell in row)} |" for row in _rows(devices)]
    return lines + rows + (["", *(md(line) for line in shared)] if shared else [])


def dra_diff_lines(devices: dict[str, dict[str, Count]]) -> list[str]:
    """The diff's DRA devices in total (per node times nodes): ``pool mig: mig 1g.5gb 56 → 112``."""
    return [
        f"  DRA devices, pool {pool}: " + ", ".join(f"{name} {count}" for name, count in counts.items())
        for pool, counts in devices.items()
        if any(count.delta for count in counts.values())
    ]
