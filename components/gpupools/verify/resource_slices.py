"""``verify`` for DRA stacks: each node's devices in NVIDIA's ResourceSlices (``resource.k8s.io/v1``) against the
devices the plan says the driver publishes there.

The core takes the parsed JSON list of ResourceSlices (``items`` of ``GET /apis/resource.k8s.io/v1/resourceslices``),
so it plugs into whatever fetches it. What the driver publishes (dra-driver-nvidia-gpu docs,
guides-gpu-allocation-view-resources.md): "one pool per node, named after the node"; "The scheduler only allocates
from a pool once it sees all of its slices at the same generation", which "increases each time the driver
republishes the pool". So per node only the newest generation counts, and a pool missing some of its
``resourceSliceCount`` slices is still being published. Device attributes are bare keys (``type``, ``profile``) in
the serialized slice (reference-resourceslice-attributes.md); a fully qualified ``gpu.nvidia.com/type`` is read too.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

from ..catalog.dra_driver import DRA_DRIVER_NAME
from ..domain.dra import published_by_pool
from ..domain.stack import Stack
from .report import DRA_SLICES, Mismatch, VerifyReport


@dataclass(frozen=True)
class NodeDevices:
    """What one node's pool of the driver lists: devices per kind (``gpu``, ``mig 1g.5gb``), and whether every slice
    of its newest generation is there."""

    node: str
    devices: dict[str, int]
    complete: bool
    slices: int = 0  # slices of the newest generation seen
    slice_count: int = 0  # how many its pool says there are (``resourceSliceCount``)


def device_name(kind: str, profile: str | None) -> str:
    """``gpu``, or ``mig 1g.5gb``: the plan's kind and profile, the way ``plan`` and the capacity diff print them."""
    return f"{kind} {profile}" if profile else kind


def expected_dra_devices(stack: Stack) -> dict[str, dict[str, int]]:
    """Per pool, the devices each node's slices must list, as ``plan`` printed them; empty unless DRA."""
    return {
        pool: {device_name(d.kind, d.profile): d.per_node for d in devices}
        for pool, devices in published_by_pool(stack).items()
    }


def node_devices(slices: Iterable[Mapping[str, Any]], driver: str = DRA_DRIVER_NAME) -> dict[str, NodeDevices]:
    """Per node, the devices of ``driver`` in the newest generation of the node's pool. Each slice is counted as it
    comes and dropped (``slices`` may be a generator over the pages), so memory is per node, not per device."""
    newest: dict[tuple[str, str], list[tuple[dict[str, int], int]]] = {}
    generations: dict[tuple[str, str], int] = {}
    for item in slices:
        spec = item.get("spec") or {}
        node, pool = spec.get("nodeName"), spec.get("pool") or {}
        if spec.get("driver") != driver or not node:
            continue
        key, generation = (node, str(pool.get("name", node))), int(pool.get("generation", 0))
        if generation > generations.get(key, -1):
            generations[key], newest[key] = generation, []
        if generation == generations[key]:
            newest[key].append((_counts(spec), int(pool.get("resourceSliceCount", 1))))
    found: dict[str, NodeDevices] = {}
    for (node, _), summaries in sorted(newest.items()):
        counts: dict[str, int] = {}
        for each, _ in summaries:
            for name, count in each.items():
                counts[name] = counts.get(name, 0) + count
        expected = max(slice_count for _, slice_count in summaries)
        seen = found.get(node)
        merged = dict(seen.devices) if seen else {}
        for name, count in counts.items():
            merged[name] = merged.get(name, 0) + count
        found[node] = NodeDevices(
            node,
            dict(sorted(merged.items())),
            (seen.complete if seen else True) and len(summaries) >= expected,
            (seen.slices if seen else 0) + len(summaries),
            (seen.slice_count if seen else 0) + expected,
        )
    return found


def _counts(spec: Mapping[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for device in spec.get("devices") or []:
        name = device_name(_attribute(device, "type") or "unknown", _attribute(device, "profile"))
        counts[name] = counts.get(name, 0) + 1
    return counts


def slice_mismatches(
    pool: str, nodes: Iterable[str], expected: Mapping[str, int], published: Mapping[str, NodeDevices]
) -> list[Mismatch]:
    """Each node of ``pool`` against ``expected`` (devices per node by ``device_name``). A node with no pool yet, or
    one whose slices are still coming, may settle (the kubelet plugin starting): ``--timeout`` waits for it."""
    found = []
    for node in nodes:
        seen = published.get(node)
        if seen is None:
            found.append(Mismatch(pool, node, DRA_SLICES, _devices(expected), "none", True))
            continue
        settling = not seen.complete
        if settling:  # the scheduler allocates from none of its devices until every slice is there
            found.append(
                Mismatch(
                    pool,
                    node,
                    f"{DRA_SLICES} of the newest generation",
                    str(seen.slice_count),
                    str(seen.slices),
                    True,
                )
            )
        for name, count in sorted(expected.items()):
            got = seen.devices.get(name, 0)
            if got != count:
                found.append(Mismatch(pool, node, f"DRA devices {name}", str(count), str(got), settling))
        for name, got in seen.devices.items():
            if name not in expected:
                found.append(Mismatch(pool, node, f"DRA devices {name}", "0", str(got), settling))
    return found


def with_slice_mismatches(
    report: VerifyReport, expected: Mapping[str, Mapping[str, int]], slices: Iterable[Mapping[str, Any]]
) -> VerifyReport:
    """``report`` with each DRA pool's node devices checked; pools absent from ``expected`` are left as they are."""
    published = node_devices(slices)
    pools = []
    for result in report.pools:
        wanted = expected.get(result.expectation.pool)
        if wanted is not None:
            names = [node.name for node in result.nodes]
            result = dataclasses.replace(
                result,
                expectation=dataclasses.replace(result.expectation, devices=dict(wanted)),
                mismatches=[*result.mismatches, *slice_mismatches(result.expectation.pool, names, wanted, published)],
                published={name: dict(published[name].devices) for name in names if name in published},
            )
        pools.append(result)
    return dataclasses.replace(report, pools=pools)


def read_resource_slices(reader: Any) -> Iterator[dict[str, Any]]:
    """Every ResourceSlice of the cluster, read and bounded like every other list (``ClusterReader``), as JSON, page
    by page as ``node_devices`` consumes them: a cluster's tens of MB of slices are never all held at once."""
    return (item.model_dump(by_alias=True, exclude_none=True) for item in reader.iter_resource_slices())


def _attribute(device: Mapping[str, Any], name: str) -> str | None:
    attributes = device.get("attributes") or {}
    value = attributes.get(name) or attributes.get(f"{DRA_DRIVER_NAME}/{name}") or {}
    found = value.get("string") if isinstance(value, Mapping) else None
    return str(found) if found is not None else None


def _devices(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{count}x {name}" for name, count in sorted(counts.items())) or "none"
