"""EksCluster and AksCluster take another resource's outputs for every input but ``create`` (issue 17): the schema
says so (not ``plain``), and under the mocks a program that passes each as an Output registers exactly what the same
program with plain values registers (no ``Output.__str__`` text, no changed names, nothing left out)."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from support.resources import run_mocked

EKS_ARGS = {
    "name": "gpu-eks",
    "kubernetes_version": "1.33",
    "system_node_size": "m6i.xlarge",
    "system_node_count": 3,
    "subnet_ids": ["subnet-0123456789abcdef0", "subnet-0fedcba9876543210"],
    "vpc_id": "vpc-0123456789abcdef0",
    "tags": {"team": "ml"},
}
CRG = (
    "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/gpu-capacity/providers/"
    "Microsoft.Compute/capacityReservationGroups/nd96-crg"
)
AKS_ARGS = {
    "name": "gpu-aks",
    "resource_group_name": "gpu-rg",
    "location": "southcentralus",
    "kubernetes_version": "1.35",
    "system_pool_size": "Standard_D8s_v5",
    "system_pool_count": 3,
    "system_pool_max_pods": 60,
    "pod_cidr": "10.100.0.0/16",
    "tags": {"team": "ml"},
}
# decide which resources exist / one per group / which inputs the cluster gets
PLAIN_ONLY = {"create", "capacity_reservation_group_ids", "long_term_support"}


def _schema_inputs(component: str) -> dict[str, Any]:
    from gpupools.provider import package_schema

    return package_schema()["resources"][f"gpupools:index:{component}"]["inputProperties"]


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)


@pytest.mark.parametrize("component, args", [("EksCluster", EKS_ARGS), ("AksCluster", AKS_ARGS)])
def test_schema_takes_outputs_for_every_input_but_create(component: str, args: dict[str, Any]) -> None:
    inputs = _schema_inputs(component)
    assert {name for name, prop in inputs.items() if not prop.get("plain")} == {_camel(key) for key in args}
    assert {name for name, prop in inputs.items() if prop.get("plain")} == (
        {"create"} | ({"capacityReservationGroupIds", "longTermSupport"} if component == "AksCluster" else set())
    )


def _as_outputs(args: dict[str, Any]) -> dict[str, Any]:
    return {key: value if key in PLAIN_ONLY else pulumi.Output.from_input(value) for key, value in args.items()}


def _registered(component: str, args: dict[str, Any], outputs: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every resource the component registered, by name -> (type, inputs), and its exports."""
    from gpupools.provider import COMPONENTS

    kind = {c.__name__: c for c in COMPONENTS}[component]

    def program():
        made = kind("c", _as_outputs(args) if outputs else dict(args))
        pulumi.export("cluster_name", made.cluster_name)

    run = run_mocked(program, project="outputs")
    return {r.name: (r.type, r.inputs) for r in run.resources}, run.outputs


@pytest.mark.parametrize("create", [True, False])
def test_eks_cluster_with_an_output_for_each_input_registers_what_plain_values_register(create: bool) -> None:
    args = {**EKS_ARGS, "create": create}
    if not create:  # an existing cluster takes only its name (its network is EKS's)
        args = {"name": EKS_ARGS["name"], "create": False}
    plain, plain_outputs = _registered("EksCluster", args, outputs=False)
    deferred, deferred_outputs = _registered("EksCluster", args, outputs=True)
    assert deferred == plain and deferred_outputs == plain_outputs == {"cluster_name": "gpu-eks"}
    if create:
        _, cluster = plain["c-eks"]
        assert (cluster["name"], cluster["version"], cluster["vpcId"]) == ("gpu-eks", "1.33", EKS_ARGS["vpc_id"])
        assert cluster["subnetIds"] == EKS_ARGS["subnet_ids"] and cluster["tags"] == {"team": "ml"}
        _, system = plain["c-system"]
        assert system["instanceTypes"] == ["m6i.xlarge"]
        assert system["scalingConfig"] == {"desiredSize": 3, "minSize": 3, "maxSize": 3}
        assert plain["c-nodes-role"][1]["tags"] == {"team": "ml"}


@pytest.mark.parametrize("groups", [[], [CRG]], ids=["system-identity", "reservation-group"])
def test_aks_cluster_with_an_output_for_each_input_registers_what_plain_values_register(groups: list[str]) -> None:
    args = {**AKS_ARGS, **({"capacity_reservation_group_ids": groups} if groups else {})}
    plain, plain_outputs = _registered("AksCluster", args, outputs=False)
    deferred, deferred_outputs = _registered("AksCluster", args, outputs=True)
    assert deferred == plain and deferred_outputs == plain_outputs
    (cluster,) = [inputs for kind, inputs in plain.values() if kind.endswith("containerservice:ManagedCluster")]
    assert (cluster["resourceName"], cluster["dnsPrefix"], cluster["kubernetesVersion"]) == (
        "gpu-aks",
        "gpu-aks",
        "1.35",
    )
    (pool,) = cluster["agentPoolProfiles"]
    assert (pool["vmSize"], pool["count"], pool["maxPods"]) == ("Standard_D8s_v5", 3, 60)
    assert cluster["networkProfile"]["podCidr"] == "10.100.0.0/16" and cluster["tags"] == {"team": "ml"}
    (group,) = [inputs for kind, inputs in plain.values() if kind.endswith("resources:ResourceGroup")]
    assert (group["resourceGroupName"], group["location"]) == ("gpu-rg", "southcentralus")
    if groups:
        (identity,) = [inputs for kind, inputs in plain.values() if kind.endswith("UserAssignedIdentity")]
        assert identity["resourceName"] == "gpu-aks-control-plane"
        (role,) = [inputs for kind, inputs in plain.values() if kind.endswith("authorization:RoleAssignment")]
        assert role["scope"] == CRG and len(role["roleAssignmentName"]) == 36  # a GUID, stable for name and group


def test_existing_aks_cluster_takes_its_name_and_group_as_outputs() -> None:
    args = {"name": "gpu-aks", "resource_group_name": "gpu-rg", "create": False}
    plain, plain_outputs = _registered("AksCluster", args, outputs=False)
    deferred, deferred_outputs = _registered("AksCluster", args, outputs=True)
    assert deferred == plain and deferred_outputs == plain_outputs == {"cluster_name": "gpu-aks"}
