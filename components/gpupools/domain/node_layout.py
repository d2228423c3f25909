"""What one node's GPUs are cut into: groups of GPUs, each cut by one per-GPU layout or left whole.

The GPU Operator's MIG manager applies a mig-parted config per device (``devices: [0, 1]``, ``mig-enabled:
false`` for a GPU left whole), so a node is eight GPUs, not one layout. This is the one model of that node:
capacity, cost per slice, the placement check, the device plugin's strategy, the mig-parted ConfigMap, DRA
devices, ``verify`` and the plan's diff all read it. A pool whose GPUs are all cut alike is the one-group case.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal, Mapping

from ..catalog.labels import GPU_RESOURCE, mig_resource_name
from .mig_layouts import Layout, canonical, describe

Strategy = Literal["none", "single", "mixed"]  # the device plugin's migStrategy (config.models.MigStrategy)


@dataclass(frozen=True)
class GpuGroup:
    """``gpus`` GPUs of a node cut alike by ``layout`` (canonical, per GPU), or left whole when it is None."""

    gpus: int
    layout: Layout | None = None

    @property
    def whole(self) -> bool:
        return self.layout is None

    @property
    def devices(self) -> dict[str, int]:
        """The MIG devices of one GPU of the group; empty for a whole GPU."""
        return dict(self.layout or ())

    def describe(self) -> str:
        return f"{self.gpus}x whole" if self.layout is None else f"{self.gpus}x {describe(dict(self.layout))}"


@dataclass(frozen=True)
class NodeLayout:
    """A node's GPUs in order: the first group's GPUs are devices 0..n-1, the next group's follow."""

    groups: tuple[GpuGroup, ...]

    @classmethod
    def uniform(cls, gpus: int, devices: Mapping[str, int]) -> NodeLayout:
        """Every GPU of the node cut by the same per-GPU mix (a named layout, ``mig.profile``, a single mix)."""
        return cls((GpuGroup(gpus, canonical(devices)),))

    @classmethod
    def of(cls, groups: Iterable[tuple[int, Mapping[str, int] | Layout | None]]) -> NodeLayout:
        """From ``(gpus, per-GPU mix or None for whole)`` pairs in device order, e.g. ``[(6, {...}), (2, None)]``; a
        mix may be a mapping or a ``Layout``'s pairs. The mixes are not checked here (``resolve.mig_rules`` does, by
        ``check_layout``)."""
        return cls(tuple(GpuGroup(gpus, None if mix is None else canonical(dict(mix))) for gpus, mix in groups))

    @property
    def gpus(self) -> int:
        return sum(group.gpus for group in self.groups)

    @property
    def whole_gpus(self) -> int:
        return sum(group.gpus for group in self.groups if group.whole)

    @property
    def cut_gpus(self) -> int:
        return self.gpus - self.whole_gpus

    @property
    def is_uniform(self) -> bool:
        """Every GPU cut by one mix: what AKS's gpuInstanceProfile and NVIDIA's named layouts can express."""
        return len(self.groups) == 1 and not self.groups[0].whole

    @property
    def per_gpu(self) -> dict[str, int]:
        """The one per-GPU mix of a uniform node; a ValueError on any other (read ``mig_devices`` instead)."""
        if not self.is_uniform:
            raise ValueError(f"node {self.describe()} has no single per-GPU mix")
        return self.groups[0].devices

    @property
    def mig_devices(self) -> dict[str, int]:
        """Each MIG profile's instances on one node, sorted by profile."""
        counts: dict[str, int] = {}
        for group in self.groups:
            for name, count in group.layout or ():
                counts[name] = counts.get(name, 0) + group.gpus * count
        return dict(sorted(counts.items()))

    @property
    def profiles(self) -> list[str]:
        return list(self.mig_devices)

    @property
    def mig_device_count(self) -> int:
        return sum(self.mig_devices.values())

    @property
    def needs_mixed(self) -> bool:
        """The device plugin's ``single`` strategy needs every GPU MIG-enabled with one profile; anything else is
        advertised only under ``mixed`` (k8s-device-plugin's MIG strategies)."""
        return len(self.profiles) > 1 or (self.whole_gpus > 0 and self.cut_gpus > 0)

    def advertised(self, strategy: Strategy) -> dict[str, int]:
        """What the device plugin advertises per node under ``strategy``: ``none`` shows every GPU whole, ``single``
        shows each MIG device as ``nvidia.com/gpu``, ``mixed`` shows ``nvidia.com/mig-<profile>`` and the whole
        GPUs as ``nvidia.com/gpu``."""
        if strategy == "none":
            return {GPU_RESOURCE: self.gpus}
        if strategy == "single":
            return {GPU_RESOURCE: self.mig_device_count + self.whole_gpus}
        resources = {mig_resource_name(name): count for name, count in self.mig_devices.items()}
        if self.whole_gpus:
            resources[GPU_RESOURCE] = self.whole_gpus
        return resources

    def most_per_gpu(self, profile: str) -> int:
        """The most instances of ``profile`` one GPU of the node holds (what a claim on one GPU can get)."""
        return max((dict(group.layout or ()).get(profile, 0) for group in self.groups), default=0)

    def device_kinds(self) -> dict[str | None, int]:
        """Per node, each device kind the DRA driver publishes: a MIG profile, or None for a whole GPU."""
        kinds: dict[str | None, int] = {name: count for name, count in self.mig_devices.items()}
        if self.whole_gpus:
            kinds[None] = self.whole_gpus
        return kinds

    def indexed(self) -> tuple[tuple[tuple[int, ...], GpuGroup], ...]:
        """Each group with the device indexes of its GPUs (mig-parted's ``devices: [0, 1, ...]``)."""
        found, first = [], 0
        for group in self.groups:
            found.append((tuple(range(first, first + group.gpus)), group))
            first += group.gpus
        return tuple(found)

    def describe(self) -> str:
        return " + ".join(group.describe() for group in self.groups)

    def to_json(self) -> list[dict[str, object]]:
        """The node in the stack file's per-GPU form (``[{gpus, mix} | {gpus, whole: true}]``)."""
        return [
            {"gpus": group.gpus, "whole": True} if group.whole else {"gpus": group.gpus, "mix": group.devices}
            for group in self.groups
        ]
