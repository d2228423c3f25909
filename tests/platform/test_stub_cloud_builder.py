"""The platform's side of the stub third cloud (tests/resolve/test_stub_cloud.py): ``GpuPlatform`` on a cloud with
no SDK extra or builder is refused by name before anything registers, never built with another cloud's components.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from gpupools.catalog.cloud import Cloud, CloudNotSupported, Extra
from gpupools.catalog.cloud_registry import register, unregister
from gpupools.platform import GpuPlatform
from gpupools.platform.builders import builder
from gpupools.resolve import load_stack
from support.base_configs import AWS, AZURE

STUB = "gke"


@pytest.fixture
def gke() -> Iterator[Cloud]:
    stub = register(Cloud(name=STUB, display_name="Google Cloud", region_field="region"))
    yield stub
    unregister(STUB)


def test_the_stub_has_no_builder(gke):
    with pytest.raises(CloudNotSupported, match="^building a GpuPlatform is not supported on gke$"):
        builder(STUB)


def test_a_platform_on_the_stub_is_refused_before_it_registers(gke):
    stack = load_stack(AWS)
    stub_stack = dataclasses.replace(stack, config=stack.config.model_copy(update={"cloud": STUB}))
    with pytest.raises(CloudNotSupported, match="^a cloud SDK extra is not supported on gke$"):
        GpuPlatform("stub", None, validated=stub_stack)  # type: ignore[arg-type]  # args unused when validated


def test_with_an_extra_but_no_builder_the_stub_is_still_refused_by_name(gke):
    gke.attach(Extra("gke", "nothing", ()))  # every module of an empty extra is installed
    with pytest.raises(CloudNotSupported, match="^building a GpuPlatform is not supported on gke$"):
        builder(STUB)


def test_each_cloud_exports_its_own_outputs():
    """The per-cloud outputs come from each cloud's builder, not from a comparison with a cloud name."""
    assert builder(load_stack(AZURE).cloud).outputs == (("resourceGroupName", "resource_group_name"),)
    assert [output for output, _ in builder(load_stack(AWS).cloud).outputs] == [
        "subnetIds",
        "vpcId",
        "nodeRoleArn",
        "clusterSecurityGroupId",
        "karpenter",  # a team stack's cluster.karpenter.present (issue 38)
    ]
