"""Issue 16 item 8: clusters gpupools creates can use capacity reservation groups.

Microsoft (aks-docs use-capacity-reservation-groups.md): "You need to create a user-assigned managed identity with
the `Contributor` role on the capacity reservation group and assign the identity to your AKS cluster.
System-assigned managed identities don't work for this feature." The role is assigned with
``--assignee-principal-type ServicePrincipal`` and ``--scope`` the group's id. Contributor's role definition id is
Microsoft's built-in roles table. The expected wire values come from the pinned pulumi-azure-native 3.29.0 SDK's own
enums; the assertions are on what the mocks recorded (the RegisterResourceRequest inputs and options).
"""

from __future__ import annotations

import copy
import uuid

import pytest
from pulumi_azure_native.authorization import PrincipalType
from pulumi_azure_native.containerservice import ResourceIdentityType

from gpupools.config import ConfigError
from support.base_configs import AZURE
from support.resources import plan_of_type, plan_one
from support.stack_files import plan_config

# Contributor, learn.microsoft.com/azure/role-based-access-control/built-in-roles
CONTRIBUTOR = "b24988ac-6180-42a0-ab88-20f7382dd24c"
SUBSCRIPTION = "11111111-2222-3333-4444-555555555555"
GROUP = (
    f"/subscriptions/{SUBSCRIPTION}/resourceGroups/gpu-capacity/providers/Microsoft.Compute/capacityReservationGroups/"
)


def _config(*groups: str | None, create: bool = True) -> dict:
    raw = copy.deepcopy(AZURE)
    raw["gpupools:gpuPools"] = [
        {
            "name": f"nd{index}",
            "size": "Standard_ND96asr_v4",
            "count": 1,
            **({"capacityReservationGroupId": group} if group else {}),
        }
        for index, group in enumerate(groups)
    ]
    raw["gpupools:gpuSoftware"] = {"installer": "device-plugin", "version": "0.20.0"}
    raw["gpupools:cluster"]["create"] = create
    return raw


def _plan(tmp_path, raw: dict):
    return plan_config(tmp_path, raw, "crg")


def test_a_created_cluster_with_a_reservation_group_gets_a_user_assigned_identity_with_contributor(tmp_path):
    plan = _plan(tmp_path, _config(GROUP + "nd96-crg"))
    identity = plan_one(plan, "azure-native:managedidentity:UserAssignedIdentity")
    assert identity["inputs"]["resourceGroupName"] == "gpu-dev-rg"
    assert identity["inputs"]["location"] == "southcentralus"
    cluster = plan_one(plan, "azure-native:containerservice:ManagedCluster")
    assert cluster["inputs"]["identity"] == {
        "type": ResourceIdentityType.USER_ASSIGNED.value,
        "userAssignedIdentities": [f"{identity['name']}-id"],
    }  # the mock's id
    (role,) = plan_of_type(plan, "azure-native:authorization:RoleAssignment")
    inputs = role["inputs"]
    # On the resource group holding the group, as the doc's `az role assignment create --scope` does (issue 27).
    assert inputs["scope"] == f"/subscriptions/{SUBSCRIPTION}/resourceGroups/gpu-capacity"
    assert inputs["roleDefinitionId"] == (
        f"/subscriptions/{SUBSCRIPTION}/providers/Microsoft.Authorization/roleDefinitions/{CONTRIBUTOR}"
    )
    assert inputs["principalId"] == f"{identity['name']}-principal"  # the identity's principalId output
    # The SDK defaults principalType to User; a managed identity is a service principal.
    assert inputs["principalType"] == PrincipalType.SERVICE_PRINCIPAL.value
    assert uuid.UUID(inputs["roleAssignmentName"])  # "It can be any valid GUID"
    assert role["options"]["deleteBeforeReplace"] is True
    # The pool is created only once the cluster may use the group.
    (pool,) = plan_of_type(plan, "azure-native:containerservice:AgentPool")
    assert pool["inputs"]["capacityReservationGroupID"] == GROUP + "nd96-crg"
    assert any(dep.endswith(f"::{role['name']}") for dep in pool["options"]["dependencies"])


def test_one_role_assignment_per_resource_group_shared_by_pools(tmp_path):
    other = GROUP.replace("gpu-capacity", "more-capacity")
    plan = _plan(tmp_path, _config(GROUP + "a", GROUP + "a", GROUP + "b", None, other + "c"))
    scopes = sorted(role["inputs"]["scope"] for role in plan_of_type(plan, "azure-native:authorization:RoleAssignment"))
    # Azure refuses a second identical role assignment: groups a and b share one resource group.
    assert scopes == [f"/subscriptions/{SUBSCRIPTION}/resourceGroups/{rg}" for rg in ("gpu-capacity", "more-capacity")]
    roles = plan_of_type(plan, "azure-native:authorization:RoleAssignment")
    assert len({role["inputs"]["roleAssignmentName"] for role in roles}) == 2
    pools = {
        p["inputs"]["nodeLabels"]["gpupools.io/pool"]: p
        for p in plan_of_type(plan, "azure-native:containerservice:AgentPool")
    }
    assert not any("RoleAssignment" in dep for dep in pools["nd3"]["options"]["dependencies"])


def test_clusters_without_reservation_groups_keep_their_system_assigned_identity(tmp_path):
    plan = _plan(tmp_path, _config(None))
    cluster = plan_one(plan, "azure-native:containerservice:ManagedCluster")
    assert cluster["inputs"]["identity"] == {"type": ResourceIdentityType.SYSTEM_ASSIGNED.value}
    assert not [r for r in plan.resources if r["type"].split(":")[1] in ("managedidentity", "authorization")]
    assert not any("capacity reservation" in warning for warning in plan.warnings)


def test_the_plan_says_the_created_cluster_switches_identity_and_why(tmp_path):
    plan = _plan(tmp_path, _config(GROUP + "nd96-crg"))
    (warning,) = [w for w in plan.warnings if "capacity reservation groups" in w]
    assert warning.startswith(
        "pools nd0 (nd96-crg) draw from capacity reservation groups, so the cluster gpu-dev "
        "gets a user-assigned identity with the Contributor role on the resource group holding each group"
    )
    assert "switches it in place" in warning and "60 minutes" in warning
    (inputs,) = plan.capacity_inputs
    assert inputs.to_json()["identity"] == (
        "user-assigned, created by gpupools, Contributor on each capacity reservation group's resource group"
    )


def test_an_existing_cluster_is_told_what_it_needs(tmp_path):
    plan = _plan(tmp_path, _config(GROUP + "nd96-crg", create=False))
    assert not [r for r in plan.resources if r["type"].split(":")[1] in ("managedidentity", "authorization")]
    (warning,) = [w for w in plan.warnings if "capacity reservation groups" in w]
    assert (
        "the existing cluster gpu-dev must use a user-assigned managed identity with the Contributor role on the "
        in warning
    )
    assert "System-assigned managed identities don't work for this feature" in warning
    assert "--assign-identity" in warning


def test_the_component_refuses_a_group_that_is_no_group_id():
    from gpupools.azure import AksCluster

    with pytest.raises((ConfigError, ValueError, TypeError)) as error:
        AksCluster(
            "gpu-dev",
            {
                "name": "gpu-dev",
                "resource_group_name": "gpu-dev-rg",
                "location": "southcentralus",
                "capacity_reservation_group_ids": ["nd96-crg"],
            },
        )
    assert "capacity_reservation_group_ids" in str(error.value)
