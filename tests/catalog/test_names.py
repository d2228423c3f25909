"""Names, labels, tags and namespaces the clouds or the kubelet would reject are refused at check time.

Rules: AKS dnsPrefix (1..54, alphanumeric ends), EKS cluster names (1..100), Azure resource groups (1..90, no
trailing '.'), Kubernetes label syntax (prefix DNS subdomain <= 253, name <= 63, value <= 63), Azure tags
(no <>%&\\?/ in keys, key <= 512, value <= 256, 50 tags, no microsoft/azure/windows prefixes), AWS tags (no aws:,
key <= 128, value <= 256, 50 tags): docs/sources.md.
"""

from __future__ import annotations

import copy

import pytest

from gpupools.config import ConfigError
from gpupools.resolve.stack_loader import load_stack
from gpupools.catalog.names import label_key_problem, reserved_label_domain

from support.base_configs import AWS, AZURE


def fields_of(raw: dict) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_stack(raw)
    return [p.field for p in caught.value.problems]


def with_section(base: dict, section: str, **values) -> dict:
    raw = copy.deepcopy(base)
    target = raw[f"gpupools:{section}"]
    (target[0] if isinstance(target, list) else target).update(values)
    return raw


@pytest.mark.parametrize("name", ["-gpu", "gpu-", "gpu_dev", "g" * 55])
def test_aks_cluster_name_must_be_a_dns_prefix(name):
    assert "gpupools:cluster.name" in fields_of(with_section(AZURE, "cluster", name=name))


def test_aks_dns_prefix_limits_accept_54():
    assert load_stack(with_section(AZURE, "cluster", name="g" * 54)).config.cluster.name == "g" * 54


@pytest.mark.parametrize(
    "name, ok", [("Gpu_EKS-1", True), ("e" * 100, True), ("e" * 101, False), ("_eks", False), ("eks.prod", False)]
)
def test_eks_cluster_names(name, ok):
    raw = with_section(AWS, "cluster", name=name)
    if ok:
        assert load_stack(raw).config.cluster.name == name
    else:
        assert "gpupools:cluster.name" in fields_of(raw)


@pytest.mark.parametrize(
    "group, ok",
    [("rg.(gpu)_1-a", True), ("r" * 90, True), ("r" * 91, False), ("rg.", False), ("rg/gpu", False), ("rg gpu", False)],
)
def test_azure_resource_group_names(group, ok):
    raw = with_section(AZURE, "cluster", resourceGroup=group)
    if ok:
        assert load_stack(raw).config.cluster.resource_group == group
    else:
        assert "gpupools:cluster.resourceGroup" in fields_of(raw)


@pytest.mark.parametrize(
    "section, key, value",
    [
        ("cluster", "location", "South Central US"),
        ("cluster", "location", "eastus;"),
    ],
)
def test_azure_location_syntax(section, key, value):
    assert f"gpupools:{section}.{key}" in fields_of(with_section(AZURE, section, **{key: value}))


@pytest.mark.parametrize("region", ["us-east", "US-EAST-1", "us-east-1a", "useast1"])
def test_aws_region_syntax(region):
    assert "gpupools:cluster.region" in fields_of(with_section(AWS, "cluster", region=region))


@pytest.mark.parametrize(
    "key",
    [
        "node-role.kubernetes.io/gpu",
        "node-restriction.kubernetes.io/team",
        "kubernetes.io/hostname",
        "k8s.io/x",
        "sub.k8s.io/x",
        "kubernetes.azure.com/mode",
        "nvidia.com/gpu.product",
        "gpupools.io/pool",
        "eks.amazonaws.com/capacityType",
    ],
)
def test_reserved_label_prefixes(key):
    assert reserved_label_domain(key) is not None
    assert f"gpupools:gpuPools[0].labels.{key}" in fields_of(with_section(AWS, "gpuPools", labels={key: "x"}))


def test_own_prefixes_and_plain_keys_are_fine():
    labels = {"example.com/team": "ml", "team": "", "notkubernetes.io/x": "y", "a" * 63: "b" * 63}
    assert load_stack(with_section(AWS, "gpuPools", labels=labels)).pools[0].labels["example.com/team"] == "ml"


@pytest.mark.parametrize(
    "key, value",
    [
        ("a" * 64, "x"),
        ("x", "b" * 64),
        ("Example.com/team", "x"),
        (("d" * 250) + ".com/x", "y"),
        ("example.com/", "x"),
        ("team", "-x"),
    ],
)
def test_label_syntax(key, value):
    assert "gpupools:gpuPools[0].labels" in fields_of(with_section(AWS, "gpuPools", labels={key: value}))


def test_label_key_prefix_length_limit():
    assert label_key_problem(("d" * 249) + ".com/x") is None  # 253-character prefix
    assert label_key_problem(("d" * 250) + ".com/x") is not None


@pytest.mark.parametrize(
    "key", ["a<b", "a%b", "a/b", "a?b", "a\\b", "Microsoft-owner", "azure-x", "windowsx", "k" * 513]
)
def test_azure_tag_keys(key):
    raw = copy.deepcopy(AZURE)
    raw["gpupools:tags"] = {key: "v"}
    assert f"gpupools:tags.{key}" in fields_of(raw)


def test_azure_and_aws_tag_limits():
    raw = copy.deepcopy(AZURE)
    raw["gpupools:tags"] = {"owner": "v" * 256, "cost/center": "x"}
    assert "gpupools:tags.cost/center" in fields_of(raw)  # '/' is forbidden on Azure only
    raw["gpupools:tags"] = {"owner": "v" * 257}
    assert "gpupools:tags.owner" in fields_of(raw)
    raw["gpupools:tags"] = {f"t{i}": "v" for i in range(51)}
    assert "gpupools:tags" in fields_of(raw)
    aws = copy.deepcopy(AWS)
    aws["gpupools:tags"] = {"cost/center": "x", "k" * 128: "v"}
    assert load_stack(aws).config.tags["cost/center"] == "x"
    for key in ("aws:team", "AWS:team", "k" * 129):
        aws["gpupools:tags"] = {key: "v"}
        assert f"gpupools:tags.{key}" in fields_of(aws)


def test_namespace_rules():
    for bad in ("GPU", "gpu_operator", "-gpu", "n" * 64, "default"):
        assert "gpupools:gpuSoftware.namespace" in fields_of(with_section(AWS, "gpuSoftware", namespace=bad))
    stack = load_stack(with_section(AWS, "gpuSoftware", namespace="kube-system"))
    assert stack.config.gpu_software.resolved_namespace == "kube-system"
    assert stack.config.gpu_software.creates_namespace is False
    assert load_stack(AWS).config.gpu_software.creates_namespace is True  # gpu-operator, its own namespace
