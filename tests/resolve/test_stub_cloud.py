"""A third cloud, registered as a stub: every capability it lacks fails with "<capability> is not supported on gke",
and none falls through to Azure's or AWS's path. Also the walk-through of docs/architecture.md ("A cloud"): a cloud
is one ``Cloud`` in the registry, and each layer's facet attaches to it.

Pure: catalog to resolve (the platform's facet is tested in tests/platform/test_stub_cloud_builder.py).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from gpupools.catalog.cloud import Cloud, CloudNotSupported, PoolNaming
from gpupools.catalog.cloud_registry import cloud, cloud_names, cloud_of_size_name, register, unregister
from gpupools.catalog.cloud_syntax import size_name_problem, tag_problems
from gpupools.catalog.extras import missing_extra
from gpupools.catalog.gpus import GPU_MODELS
from gpupools.catalog.instances import InstanceSize
from gpupools.config.partial import well_formed_part
from gpupools.domain.capacity_inputs import stack_capacity_inputs
from gpupools.domain.naming import cloud_pool_name
from gpupools.domain.node_templates import autoscaled_pools
from gpupools.domain.rotation import fixed_field_names, name_clashes, surge_warnings
from gpupools.domain.stack import Stack
from gpupools.errors import GpupoolsError
from gpupools.resolve import load_stack
from gpupools.resolve.cloud_rules import rules
from gpupools.resolve.pool_rules import resolve_pool
from support.base_configs import AWS, config

STUB = "gke"


@pytest.fixture
def gke() -> Iterator[Cloud]:
    stub = register(Cloud(name=STUB, display_name="Google Cloud", region_field="region"))
    yield stub
    unregister(STUB)


def _on_stub(stack: Stack) -> Stack:
    """An AWS stack's config and pools, relabelled as the stub's: what the layers see for a third cloud."""
    stub_config = stack.config.model_copy(update={"cloud": STUB})
    pools = [dataclasses.replace(pool, cloud=STUB) for pool in stack.pools]
    return dataclasses.replace(stack, config=stub_config, pools=pools)


@pytest.fixture
def stub_stack(gke: Cloud) -> Stack:
    surge = {"rotation": "surge", "autoscaling": {"minCount": 0, "maxCount": 2}, "count": 1}
    return _on_stub(load_stack(config(AWS, surge)))


def _refusal(call: Callable[[], Any]) -> str:
    with pytest.raises(CloudNotSupported) as caught:
        call()
    return str(caught.value)


CATALOG_CAPABILITIES: list[tuple[str, Callable[[], Any]]] = [
    ("node sizes", lambda: size_name_problem(STUB, "a2-highgpu-1g")),
    ("cloud tags", lambda: tag_problems(STUB, {"team": "ml"})),
    ("a cloud SDK extra", lambda: missing_extra(STUB, "GpuPlatform 'x'")),
    ("naming GPU pools", lambda: cloud_pool_name(STUB, "pool", "abcde")),
    ("fields fixed at creation", lambda: fixed_field_names(STUB)),
    ("naming GPU pools", lambda: name_clashes(STUB, [(0, "system", "system")])),
]


@pytest.mark.parametrize(("capability", "call"), CATALOG_CAPABILITIES, ids=[c for c, _ in CATALOG_CAPABILITIES])
def test_each_catalog_capability_the_stub_lacks_is_refused_by_name(gke, capability, call):
    assert _refusal(call) == f"{capability} is not supported on gke"


def test_kubernetes_versions_of_the_stub_are_refused_not_read_from_another_cloud(gke):
    from datetime import date

    from gpupools.resolve.versions import kubernetes_version_problem

    assert _refusal(lambda: kubernetes_version_problem(STUB, "1.33", date(2026, 11, 25))) == (
        "managed Kubernetes versions is not supported on gke"
    )


DOMAIN_CAPABILITIES: list[tuple[str, Callable[[Stack], Any]]] = [
    ("rotation surge (pool generations)", lambda stack: stack.pools[0].cloud_pool_name),
    ("capacity inputs", stack_capacity_inputs),
    ("rotation surge", lambda stack: surge_warnings(stack.pools)),
    ("autoscaling from zero", autoscaled_pools),
]


@pytest.mark.parametrize(("capability", "call"), DOMAIN_CAPABILITIES, ids=[c for c, _ in DOMAIN_CAPABILITIES])
def test_each_domain_capability_the_stub_lacks_is_refused_by_name(stub_stack, capability, call):
    assert _refusal(lambda: call(stub_stack)) == f"{capability} is not supported on gke"


def test_the_stub_has_no_rules_so_a_pool_on_it_is_refused_not_checked_as_aws(stub_stack):
    assert _refusal(lambda: rules(STUB)) == "stack rules is not supported on gke"
    raw_pool = stub_stack.config.gpu_pools[0]
    assert raw_pool is not None
    # An AWS size is refused as another cloud's before any rule runs ...
    resolved, found = resolve_pool(stub_stack.config, 0, raw_pool, {})
    assert resolved is None
    assert [p.message for p in found.problems] == ["'p4d.24xlarge' is an aws size but cloud is gke"]
    # ... and a size of its own reaches the cloud's rules, which it does not have.
    own = InstanceSize("a2-highgpu-1g", STUB, GPU_MODELS["A100-40GB"], 1)
    pool = raw_pool.model_copy(update={"size": own.name})
    assert _refusal(lambda: resolve_pool(stub_stack.config, 0, pool, {own.name: own})) == (
        "stack rules is not supported on gke"
    )


def test_facts_the_stub_gives_are_its_own(stub_stack):
    """What it has by default is nothing of another cloud's: no GPU labels, no Spot taints, no pool keys, no
    cluster-autoscaler chart, its own name in user text."""
    stub = cloud(STUB)
    assert (stub.gpu_labels, stub.spot_taints, stub.pool_keys) == ({}, (), ())
    assert not stub.cluster_autoscaler_chart and not stub.native_mig_profiles
    assert stub.preinstalled_runtime_class is None and stub.spot_price_note is None
    assert stub.display_name == "Google Cloud"


def test_the_stub_is_listed_and_an_unknown_cloud_is_refused(gke):
    assert cloud_names() == ("azure", "aws", STUB)
    with pytest.raises(CloudNotSupported, match=re.escape("cloud 'gcp' is not supported; allowed: azure, aws, gke")):
        cloud("gcp")
    assert issubclass(CloudNotSupported, GpupoolsError)


def test_size_names_still_go_to_their_own_cloud_with_the_stub_registered(gke):
    assert cloud_of_size_name("Standard_ND96asr_v4") == "azure"
    assert cloud_of_size_name("p4d.24xlarge") == "aws"


def test_the_stub_cannot_be_registered_twice(gke):
    with pytest.raises(ValueError, match="already registered"):
        register(Cloud(name=STUB, display_name="again", region_field="region"))


def test_a_partial_config_on_the_stub_reaches_its_rules_and_stops_there(gke):
    """The malformed-config path lets a registered cloud through to the rules, which then refuse it by name."""
    raw = {"cloud": STUB, "gpuSoftware": {"installer": "device-plugin"}}
    assert well_formed_part(raw) is not None
    assert well_formed_part({**raw, "cloud": "gcp"}) is None


def test_attaching_a_facet_gives_the_stub_that_capability_and_only_that(gke):
    """The walk-through: a new cloud gains a capability by attaching its facet; the others stay refused."""
    gke.attach(PoolNaming(max_length=40, separator="-", reserved=frozenset({"default-pool"})))
    assert cloud_pool_name(STUB, "a-very-long-pool-name-that-goes-on-and-on", "abcde") == (
        "a-very-long-pool-name-that-goes-on-abcde"  # 34 + "-" + 5 = the 40 it allows
    )
    assert name_clashes(STUB, [(0, "default-pool", "default-pool")])[0][0] == 0
    assert _refusal(lambda: size_name_problem(STUB, "a2-highgpu-1g")) == "node sizes is not supported on gke"


def test_the_built_in_clouds_have_every_capability():
    """The other side: Azure and AWS answer every capability the stub is refused."""
    for name in ("azure", "aws"):
        assert size_name_problem(name, "x") is not None
        assert cloud_pool_name(name, "pool", "abcde").endswith("abcde")
        assert rules(name) is not None
        assert fixed_field_names(name)
