"""A scheduler-faithful allocation check, offline (issue 24, item 4): for every catalog GPU and every NVIDIA layout
of it, the devices the driver would publish on one node (``support.dra_slices``: the driver's names and attributes)
are allocated by a copy of the scheduler's structured allocator (``support.dra_allocator``, kubernetes 1.36.2) to the
claims ``slice_workload`` gives pods, with the plan's DeviceClasses.

Asserted: exactly the planned pods fit a node, the next one does not, no claim gets a device of another profile,
and a claim for several MIG devices gets them on one GPU. The expected counts come from the catalog's layouts
(NVIDIA's mig-parted config) times the GPUs per node, not from the code under test. Breaking a selector or the
same-GPU constraint on purpose makes the check fail.
"""

from __future__ import annotations

import re
from copy import deepcopy
from typing import Any

import pytest

from gpupools.catalog.gpus import GPU_MODELS, GpuModel
from gpupools.domain.dra import dra_classes
from gpupools.domain.stack import Stack
from gpupools.domain.workloads import slice_workload
from gpupools.resolve.stack_loader import load_stack
from support.dra_allocator import AllocationError, Allocator, devices_of
from support.dra_slices import node_slice
from support.dra_stacks import TIME_SLICING

GPUS_PER_NODE = 2
NODE = "node-0"
CASES = [
    (gpu.name, layout) for gpu in GPU_MODELS.values() for layout in ([*gpu.layouts] if gpu.mig_capable else [None])
]


def _stack(gpu: GpuModel, layout: str | None) -> Stack:
    pool: dict[str, Any] = {"name": "p", "size": "zz1.4xlarge"}
    if layout is not None:
        pool["mig"] = {"layout": layout}
    return load_stack(
        {
            "cloud": "aws",
            "cluster": {
                "name": "c",
                "region": "us-east-1",
                "kubernetesVersion": "1.36",
                "systemPool": {"size": "m6i.large"},
            },
            "customSizes": {"zz1.4xlarge": {"gpu": gpu.name, "gpus": GPUS_PER_NODE}},
            "gpuPools": [pool],
            "gpuSoftware": {"installer": "dra-driver"},
        }
    )


def _claim(template: dict[str, Any]) -> dict[str, Any]:
    """The ResourceClaim Kubernetes creates for a pod from a ResourceClaimTemplate: the template's inner spec."""
    return {"kind": "ResourceClaim", "spec": deepcopy(template["spec"]["spec"])}


def simulate(
    stack: Stack, gpu: GpuModel, classes: dict[str, dict[str, Any]] | None = None, claim_edit: Any = None
) -> list[str]:
    """Problems found placing the pool's pods on one node, each kind alone and then all kinds together."""
    (pool,) = stack.pools
    layout = dict(pool.mig.devices) if pool.mig is not None else None
    slices = [node_slice(NODE, GPUS_PER_NODE, f"NVIDIA {gpu.name}", gpu.memory_gb, layout, gpu=gpu)]
    devices = devices_of(slices, NODE)
    plan = dra_classes(stack)
    classes = classes or {cls.name: cls.device_class() for cls in plan}
    expected = {None: GPUS_PER_NODE} if layout is None else {p: n * GPUS_PER_NODE for p, n in layout.items()}
    problems: list[str] = []
    together = Allocator(classes)
    for cls in plan:
        profile = cls.device.profile
        workload = slice_workload(stack, pool.name, profile)
        assert workload.claim_template is not None
        claim = _claim(workload.claim_template)
        if claim_edit:
            claim_edit(claim)
        fitted = []
        for allocator in (Allocator(classes), together):
            got = []
            while (result := allocator.allocate(devices, [claim])) is not None:
                got += [device for _, device in result[0]]
                if len(got) > 2 * len(devices):
                    break
            fitted.append(got)
        for got in fitted:
            if len(got) != expected[profile]:
                problems.append(f"{cls.device.token}: {len(got)} pods fit a node, planned {expected[profile]}")
            kinds = {(d.attributes["type"]["string"], d.attributes.get("profile", {}).get("string")) for d in got}
            wrong = kinds - {("gpu" if profile is None else "mig", profile)}
            if wrong:
                problems.append(f"{cls.device.token}: a claim got {sorted(map(str, wrong))}")
        if profile is not None and layout[profile] > 1:  # several slices of one GPU in one claim
            problems += _same_gpu(stack, classes, devices, claim, profile, layout[profile], claim_edit)
    return problems


def _same_gpu(
    stack: Stack, classes, devices, single: dict[str, Any], profile: str, per_gpu: int, claim_edit
) -> list[str]:
    """One pod holds one slice of the first GPU; then claims for ``per_gpu`` slices of one GPU each: only the other
    GPUs can serve one, and each gets its slices on a single GPU (``matchAttribute`` parentUUID)."""
    (pool,) = stack.pools
    many = slice_workload(stack, pool.name, profile, per_gpu)
    assert many.claim_template is not None
    claim = _claim(many.claim_template)
    if claim_edit:
        claim_edit(claim)
    allocator, problems, claims = Allocator(classes), [], 0
    assert allocator.allocate(devices, [single]) is not None
    while (result := allocator.allocate(devices, [claim])) is not None and claims <= GPUS_PER_NODE:
        claims += 1
        parents = {d.attributes["parentUUID"]["string"] for _, d in result[0]}
        if len(parents) != 1:
            problems.append(f"{profile} x{per_gpu}: devices of {len(parents)} GPUs")
    if claims != GPUS_PER_NODE - 1:
        problems.append(f"{profile} x{per_gpu}: {claims} claims fit beside one slice, planned {GPUS_PER_NODE - 1}")
    return problems


@pytest.mark.parametrize(("gpu", "layout"), CASES, ids=[f"{g}-{lay or 'whole'}" for g, lay in CASES])
def test_exactly_the_planned_pods_fit_and_get_their_own_profile(gpu: str, layout: str | None) -> None:
    model = GPU_MODELS[gpu]
    assert simulate(_stack(model, layout), model) == []


def _broken_selectors(stack: Stack) -> dict[str, dict[str, Any]]:
    """The plan's classes with the profile test dropped from each selector: any MIG device matches."""
    classes = {}
    for cls in dra_classes(stack):
        obj = cls.device_class()
        for selector in obj["spec"]["selectors"]:
            selector["cel"]["expression"] = re.sub(r" && [^&]*\.profile == '[^']*'", "", selector["cel"]["expression"])
        classes[cls.name] = obj
    return classes


def test_a_broken_selector_is_caught() -> None:
    model = GPU_MODELS["A100-40GB"]
    stack = _stack(model, "all-balanced")
    problems = simulate(stack, model, classes=_broken_selectors(stack))
    assert any("a claim got" in p for p in problems)


def test_a_dropped_same_gpu_constraint_is_caught() -> None:
    model = GPU_MODELS["A100-40GB"]
    problems = simulate(
        _stack(model, "all-1g.5gb"), model, claim_edit=lambda c: c["spec"]["devices"].pop("constraints", None)
    )
    assert any("devices of 2 GPUs" in p for p in problems)


def test_a_constraint_on_an_attribute_no_device_has_is_caught() -> None:
    model = GPU_MODELS["H100-80GB"]

    def misspell(claim: dict[str, Any]) -> None:
        for constraint in claim["spec"]["devices"].get("constraints", []):
            constraint["matchAttribute"] = "gpu.nvidia.com/parentUUUID"

    problems = simulate(_stack(model, "all-1g.10gb"), model, claim_edit=misspell)
    assert any("0 claims fit" in p for p in problems)


def test_a_selector_that_does_not_compile_is_an_error_not_a_miss() -> None:
    model = GPU_MODELS["A100-40GB"]
    stack = _stack(model, "all-1g.5gb")
    classes = {cls.name: cls.device_class() for cls in dra_classes(stack)}
    for obj in classes.values():
        obj["spec"]["selectors"][0]["cel"]["expression"] += " &&"
    with pytest.raises(AllocationError, match="CEL"):
        simulate(stack, model, classes=classes)


def test_a_shared_claim_takes_one_device_however_many_pods_reference_it() -> None:
    """Time-slicing pool, one A100 80GB per node: its shared claim is allocated once (pods that reference an
    allocated claim consume nothing more), and a second claim finds no device on that node."""
    stack = load_stack(TIME_SLICING)
    (cls,) = dra_classes(stack)
    gpu = GPU_MODELS["A100-80GB"]
    devices = devices_of([node_slice(NODE, 1, "NVIDIA A100 80GB", gpu.memory_gb, None)], NODE)
    allocator = Allocator({cls.name: cls.device_class()})
    shared = slice_workload(stack, "shared").resource_claim
    assert shared is not None
    (result,) = allocator.allocate(devices, [shared]) or [[]]
    assert [device.name for _, device in result] == ["gpu-0"]
    other = {**shared, "metadata": {"name": "another"}}
    assert allocator.allocate(devices, [other]) is None
