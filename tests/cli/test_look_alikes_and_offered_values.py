"""Look-alike characters and values no cloud offers are refused by the config and the components alike.

Python's ``\\d`` and ``str.isdigit`` take fullwidth (U+FF11) and Arabic-Indic (U+0661) digits; the clouds and Helm
spell versions, regions and sizes in ASCII. Kubernetes versions are checked against the minors each cloud offers
(``1.99`` does not exist, ``1.10`` is long gone), written out here from the sources, not imported.
"""

from __future__ import annotations

import copy

import pytest

from gpupools.config import ConfigError
from gpupools.resolve.stack_loader import load_stack
from support.base_configs import AWS, AZURE
from support.resources import component_refusal

FULLWIDTH_3, ARABIC_3 = "\uff13", "\u0663"
CYRILLIC_A = "\u0430"
SUBNET = "subnet-0123456789abcdef0"
GROUP_ARN_CN = "arn:aws:resource-groups:cn-north-1:123456789012:group/p5"
ISSUER = "oidc.eks.cn-north-1.amazonaws.com.cn/id/EXAMPLED539D4633E53DE1B71EXAMPLE"
AUTOSCALER = {
    "cluster_name": "gpu-eks",
    "region": "cn-north-1",
    "oidc_provider_arn": f"arn:aws-cn:iam::123456789012:oidc-provider/{ISSUER}",
    "oidc_provider_url": f"https://{ISSUER}",
}


def _with(base: dict, section: str, **values) -> dict:
    raw = copy.deepcopy(base)
    if section == "pool":
        target = raw["gpupools:gpuPools"][0]
    elif section == "clusterAutoscaler":
        target = raw["gpupools:cluster"].setdefault("autoscaler", {})
    else:
        target = raw.setdefault(f"gpupools:{section}", {})
    target.update(values)
    for key in [key for key, value in values.items() if value is None]:
        del target[key]
    return raw


# (id, config, refused field)
CONFIG_CASES = [
    (
        "k8s-version-fullwidth",
        _with(AZURE, "cluster", kubernetesVersion=f"1.{FULLWIDTH_3}3"),
        "gpupools:cluster.kubernetesVersion",
    ),
    (
        "k8s-version-arabic-indic",
        _with(AWS, "cluster", kubernetesVersion=f"1.3{ARABIC_3}"),
        "gpupools:cluster.kubernetesVersion",
    ),
    ("k8s-version-1.99", _with(AZURE, "cluster", kubernetesVersion="1.99"), "gpupools:cluster.kubernetesVersion"),
    ("k8s-version-1.10", _with(AWS, "cluster", kubernetesVersion="1.10"), "gpupools:cluster.kubernetesVersion"),
    (
        "chart-version-fullwidth",
        _with(AZURE, "gpuSoftware", version=f"0.2{FULLWIDTH_3}.0"),
        "gpupools:gpuSoftware.version",
    ),
    ("region-arabic-indic", _with(AWS, "cluster", region=f"us-east-{ARABIC_3}"), "gpupools:cluster.region"),
    (
        "custom-size-cyrillic",
        {
            **_with(AZURE, "pool", size=f"Standard_NC24{CYRILLIC_A}ds_v9", mig=None),
            "gpupools:customSizes": {f"Standard_NC24{CYRILLIC_A}ds_v9": {"gpu": "A100-80GB", "gpus": 1}},
        },
        "gpupools:customSizes",
    ),
    (
        "arn-of-another-partition",
        _with(AWS, "pool", capacityReservation=GROUP_ARN_CN, subnetIds=[SUBNET]),
        "gpupools:gpuPools[0].capacityReservation",
    ),
    (
        "duplicate-cluster-subnets",
        _with(AWS, "cluster", subnetIds=[SUBNET, SUBNET], vpcId="vpc-0123456789abcdef0"),
        "gpupools:cluster.subnetIds",
    ),
    (
        "priorities-not-a-regex",
        _with(AWS, "clusterAutoscaler", install=True, expander="priority", priorities={"10": ["p4d[.*"]}),
        "gpupools:cluster.autoscaler.priorities",
    ),
    (
        "priorities-key-fullwidth",
        _with(AWS, "clusterAutoscaler", install=True, expander="priority", priorities={f"1{FULLWIDTH_3}": [".*p4d.*"]}),
        "gpupools:cluster.autoscaler.priorities",
    ),
    (
        "eks-spot-with-reservation",
        _with(AWS, "pool", capacityType="SPOT", capacityReservation="cr-02168da1478b509e0", subnetIds=[SUBNET]),
        "gpupools:gpuPools[0].capacityReservation",
    ),
]


@pytest.mark.parametrize(("raw", "field"), [c[1:] for c in CONFIG_CASES], ids=[c[0] for c in CONFIG_CASES])
def test_the_config_refuses_it(raw, field):
    with pytest.raises(ConfigError) as caught:
        load_stack(raw)
    assert any(problem.field.startswith(field) for problem in caught.value.problems), caught.value.problems


@pytest.mark.parametrize(("cloud", "version"), [("azure", "1.36"), ("azure", "1.34"), ("aws", "1.36"), ("aws", "1.31")])
def test_the_minors_the_clouds_offer_pass(cloud, version):
    base = AZURE if cloud == "azure" else AWS
    assert load_stack(_with(base, "cluster", kubernetesVersion=version)).config.cluster.kubernetes_version == version


AKS_POOL = {
    "cluster_name": "gpu-dev",
    "resource_group_name": "gpu-dev-rg",
    "pool_name": "whole",
    "vm_size": "Standard_NC24ads_A100_v4",
    "count": 1,
}
# (id, component, args, refused argument)
COMPONENT_CASES = [
    (
        "aks-cluster-1.99",
        "AksCluster",
        {
            "name": "gpu-dev",
            "resource_group_name": "gpu-dev-rg",
            "location": "southcentralus",
            "kubernetes_version": "1.99",
        },
        "kubernetes_version",
    ),
    (
        "aks-pool-fullwidth-patch",
        "AksGpuPool",
        {**AKS_POOL, "kubernetes_version": f"1.33.{FULLWIDTH_3}"},
        "kubernetes_version",
    ),
    ("eks-cluster-1.10", "EksCluster", {"name": "gpu-eks", "kubernetes_version": "1.10"}, "kubernetes_version"),
    (
        "chart-version-arabic-indic",
        "NvidiaDevicePlugin",
        {"version": f"0.20.{ARABIC_3}", "namespace": "nvidia-device-plugin", "values": {}},
        "version",
    ),
    ("autoscaler-region-fullwidth", "ClusterAutoscaler", {**AUTOSCALER, "region": f"cn-north-{FULLWIDTH_3}"}, "region"),
    (
        "autoscaler-arn-of-another-partition",
        "ClusterAutoscaler",
        {**AUTOSCALER, "oidc_provider_arn": f"arn:aws:iam::123456789012:oidc-provider/{ISSUER}"},
        "oidc_provider_arn",
    ),
    (
        "autoscaler-priorities-not-a-regex",
        "ClusterAutoscaler",
        {**AUTOSCALER, "kubernetes_version": "1.33", "expander": "priority", "priorities": {"10": ["p4d[.*"]}},
        "priorities",
    ),
    (
        "node-group-arn-of-another-partition",
        "EksGpuNodeGroup",
        {
            "cluster_name": "gpu-eks",
            "subnet_ids": [SUBNET],
            "node_group_name": "p5",
            "instance_type": "p5.48xlarge",
            "desired_size": 1,
            "capacity_reservation": GROUP_ARN_CN,
        },
        "capacity_reservation",
    ),
]


@pytest.mark.parametrize(("kind", "args", "arg"), [c[1:] for c in COMPONENT_CASES], ids=[c[0] for c in COMPONENT_CASES])
def test_the_component_refuses_it(kind, args, arg):
    lines, mocks = component_refusal(kind, args)
    assert any(line.startswith(f"{kind}('bad') args.{arg}: ") for line in lines), lines
    assert mocks.resources == []
