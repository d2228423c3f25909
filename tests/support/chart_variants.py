"""The stack variants the chart render tests plan and render: each repository stack file as it is, and
with its pools and GPU software replaced by one pool per sharing/MIG mode, for each installer that config
allows there. What a mode advertises (resource names, replicas, rename) is written from NVIDIA's docs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from support.helm_render import CHARTS, REPO, HelmRenderer, Object, chart_folder, of_kind
from gpupools.catalog.chart_refs import KARPENTER
from gpupools.config import read_stack_file
from gpupools.domain.stack import Stack
from gpupools.resolve.stack_loader import load_stack
from gpupools.config.loading import StackFile
from gpupools.plan.offline import Plan, plan_stack

WHOLE_GPU = ["nvidia.com/gpu"]


@dataclass(frozen=True)
class Mode:
    """One way of cutting GPUs: the stack's MIG strategy, a pool per cloud, and what NVIDIA says it advertises."""

    strategy: str
    pools: dict[str, dict[str, Any]]
    sharing: str | None = None  # "timeSlicing" / "mps"
    rename: bool = False
    replicas: int = 1
    resources: list[str] = field(default_factory=lambda: list(WHOLE_GPU))  # names the shared config lists


MODES: dict[str, Mode] = {
    "whole-gpus": Mode(
        "none",
        {
            "azure": {"name": "whole", "size": "Standard_NC24ads_A100_v4"},
            "aws": {"name": "whole", "size": "g6.12xlarge"},
        },
    ),
    "mig-single": Mode(
        "single",
        {
            "azure": {"name": "migone", "size": "Standard_ND96asr_v4", "mig": {"profile": "MIG1g"}},
            "aws": {"name": "migone", "size": "p4d.24xlarge", "mig": {"layout": "all-1g.5gb"}},
        },
    ),
    # AKS sets one profile per pool; mixed then advertises nvidia.com/mig-<profile>.
    "mig-mixed-aks-profile": Mode(
        "mixed", {"azure": {"name": "migthree", "size": "Standard_ND96asr_v4", "mig": {"profile": "3g.20gb"}}}
    ),
    "mig-mixed-layout": Mode(
        "mixed",
        {
            "azure": {"name": "balanced", "size": "Standard_ND96asr_v4", "mig": {"layout": "all-balanced"}},
            "aws": {"name": "balanced", "size": "p4d.24xlarge", "mig": {"layout": "all-balanced"}},
        },
    ),
    "mig-custom-mix": Mode(
        "mixed",
        {
            "azure": {"name": "custom", "size": "Standard_ND96asr_v4", "mig": {"layout": {"1g.5gb": 3, "2g.10gb": 2}}},
            "aws": {"name": "custom", "size": "p4d.24xlarge", "mig": {"layout": {"1g.5gb": 3, "2g.10gb": 2}}},
        },
    ),
    "time-slicing": Mode(
        "none",
        {
            "azure": {"name": "tfour", "size": "Standard_NC64as_T4_v3", "sharing": {"timeSlicing": {"replicas": 4}}},
            "aws": {"name": "lfour", "size": "g6.12xlarge", "sharing": {"timeSlicing": {"replicas": 4}}},
        },
        sharing="timeSlicing",
        replicas=4,
    ),
    "time-slicing-renamed": Mode(
        "none",
        {
            "azure": {
                "name": "tfour",
                "size": "Standard_NC64as_T4_v3",
                "sharing": {"timeSlicing": {"replicas": 4, "renameByDefault": True}},
            },
            "aws": {
                "name": "lfour",
                "size": "g6.12xlarge",
                "sharing": {"timeSlicing": {"replicas": 4, "renameByDefault": True}},
            },
        },
        sharing="timeSlicing",
        rename=True,
        replicas=4,
    ),
    "time-slicing-mig": Mode(
        "mixed",
        {
            "aws": {
                "name": "sliced",
                "size": "p4d.24xlarge",
                "mig": {"layout": "all-3g.20gb"},
                "sharing": {"timeSlicing": {"replicas": 3}},
            }
        },
        sharing="timeSlicing",
        replicas=3,
        resources=["nvidia.com/mig-3g.20gb"],
    ),
    "mps": Mode(
        "none",
        {
            "azure": {
                "name": "mps",
                "size": "Standard_NC24ads_A100_v4",
                "sharing": {"mps": {"replicas": 8, "allowPrivilegedHostPID": True}},
            },
            "aws": {
                "name": "mps",
                "size": "g5.xlarge",
                "sharing": {"mps": {"replicas": 8, "allowPrivilegedHostPID": True}},
            },
        },
        sharing="mps",
        replicas=8,
    ),
}

DP, OP_PREINSTALLED, OP_DRIVER = (
    ("device-plugin", "preinstalled"),
    ("gpu-operator", "preinstalled"),
    ("gpu-operator", "operator"),
)
# Which installer/driver pairs config allows per cloud and mode: AKS applies single profiles itself (any
# installer); layouts need the operator's MIG manager, on AKS with its own driver; EKS has no operator driver.
ALLOWED: dict[str, dict[str, tuple[tuple[str, str], ...]]] = {
    "azure": {
        "whole-gpus": (DP, OP_PREINSTALLED, OP_DRIVER),
        "mig-single": (DP, OP_PREINSTALLED, OP_DRIVER),
        "mig-mixed-aks-profile": (DP, OP_PREINSTALLED),
        "mig-mixed-layout": (OP_DRIVER,),
        "mig-custom-mix": (OP_DRIVER,),
        "time-slicing": (DP, OP_PREINSTALLED, OP_DRIVER),
        "time-slicing-renamed": (DP, OP_PREINSTALLED, OP_DRIVER),
        "mps": (DP, OP_PREINSTALLED, OP_DRIVER),
    },
    "aws": {
        "whole-gpus": (DP, OP_PREINSTALLED),
        "mig-single": (OP_PREINSTALLED,),
        "mig-mixed-layout": (OP_PREINSTALLED,),
        "mig-custom-mix": (OP_PREINSTALLED,),
        "time-slicing": (DP, OP_PREINSTALLED),
        "time-slicing-renamed": (DP, OP_PREINSTALLED),
        "time-slicing-mig": (OP_PREINSTALLED,),
        "mps": (DP, OP_PREINSTALLED),
    },
}
STACK_FILES = sorted(path.name.removeprefix("Pulumi.").removesuffix(".yaml") for path in REPO.glob("Pulumi.*.yaml"))


@dataclass(frozen=True)
class Variant:
    """A repository stack file, as it is (``mode`` None) or with its pools and GPU software replaced.

    ``installer`` and ``driver`` are the stack's, whichever it is."""

    stack: str
    mode: str | None = None
    installer: str = ""
    driver: str = ""

    @property
    def id(self) -> str:
        return self.stack if self.mode is None else f"{self.stack}-{self.mode}-{self.installer}-{self.driver}"


def _as_is(stack: str) -> Variant:
    software = read_stack_file(REPO / f"Pulumi.{stack}.yaml").config["gpupools:gpuSoftware"]
    return Variant(stack, None, software["installer"], software.get("driver", "preinstalled"))


def _cloud(stack: str) -> str:
    return read_stack_file(REPO / f"Pulumi.{stack}.yaml").config["gpupools:cloud"]


def _installs_charts(stack: str) -> bool:
    """False for a team stack whose `gpuSoftware.install: false` leaves the NVIDIA chart to the cluster's owner:
    it registers no Helm release, so there is nothing of its own to render (its plan is pinned by the goldens)."""
    return read_stack_file(REPO / f"Pulumi.{stack}.yaml").config["gpupools:gpuSoftware"].get("install", True)


VARIANTS = [_as_is(stack) for stack in STACK_FILES if _installs_charts(stack)] + [
    Variant(stack, mode, installer, driver)
    for stack in STACK_FILES
    for mode, pairs in ALLOWED[_cloud(stack)].items()
    for installer, driver in pairs
]
OPERATOR_VARIANTS = [v for v in VARIANTS if v.installer == "gpu-operator"]
MODE_VARIANTS = [v for v in VARIANTS if v.mode is not None]


@dataclass
class Rendered:
    """One planned variant: its validated stack, the Release inputs the plan recorded and the rendered chart."""

    stack: Stack
    plan: Plan
    release: dict[str, Any]
    objects: list[Object]
    chart: Path

    @property
    def cluster_policy(self) -> Object:
        policies = of_kind(self.objects, "ClusterPolicy")
        assert len(policies) == 1, f"expected one ClusterPolicy, rendered {len(policies)}"
        return policies[0]


def variant_stack_file(variant: Variant) -> StackFile:
    """The repository stack file, with the mode's single pool and GPU software in place of its own."""
    base = read_stack_file(REPO / f"Pulumi.{variant.stack}.yaml")
    if variant.mode is None:
        return base
    cloud = base.config["gpupools:cloud"]
    mode = MODES[variant.mode]
    software = {"installer": variant.installer, "driver": variant.driver, "migStrategy": mode.strategy, "gfd": True}
    config = {**base.config, "gpupools:gpuPools": [dict(mode.pools[cloud])], "gpupools:gpuSoftware": software}
    return StackFile(base.path, variant.id, config)


def plan_and_render(variant: Variant, renderer: HelmRenderer) -> Rendered:
    """Plan the variant offline and render its chart with the exact values and namespace of the planned Release."""
    stack_file = variant_stack_file(variant)
    plan = plan_stack(stack_file)
    releases = [
        r
        for r in plan.resources
        if r["type"] == "kubernetes:helm.sh/v3:Release" and r["inputs"].get("name") != KARPENTER.name  # not NVIDIA's
    ]
    assert len(releases) == 1, f"{variant.id}: expected one NVIDIA Helm release, planned {len(releases)}"
    release = releases[0]["inputs"]
    chart = chart_folder(release["chart"], release["version"])
    if not chart.is_dir():
        pytest.skip(f"no reference copy of {release['chart']} {release['version']} in {CHARTS}")
    objects = renderer.render(
        chart, release.get("name") or releases[0]["name"], release["namespace"], release["values"]
    )
    return Rendered(load_stack(stack_file.config), plan, release, objects, chart)


_RENDERED: dict[str, Rendered] = {}  # by variant id, for every module of the session that reads a variant


def rendered_once(variant: Variant, renderer: HelmRenderer) -> Rendered:
    """``plan_and_render`` once per variant and session: the render tests only read what it returns."""
    if variant.id not in _RENDERED:
        _RENDERED[variant.id] = plan_and_render(variant, renderer)
    return _RENDERED[variant.id]
