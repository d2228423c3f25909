"""Issue 16 item 15: ``check`` and the plan (text and the Markdown of the pull request comment) show every input that
decides a pool's capacity or cost: Spot settings, zones, the capacity reservation group, maxPods, autoscaling, the
network and the identity on AKS; capacity type, reservation, launch template and why, subnets and EFA on EKS.

The stacks are the ones platform engineers write (a Spot A100 pool, a reserved ND96 pool, a p5 Capacity Block, an
EFA p4d pool); the expected lines are written from the stack file, not from the code that renders them.
"""

from __future__ import annotations

import copy
import re

import pytest

from support.base_configs import AWS, AZURE
from support.cli import run_cli
from support.stack_files import write_stack_file

CRG = (
    "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/gpu-capacity/providers/"
    "Microsoft.Compute/capacityReservationGroups/nd96-crg"
)


def _stack(base: dict, pools: list[dict], **cluster) -> dict:
    raw = copy.deepcopy(base)
    raw["gpupools:gpuPools"] = pools
    raw["gpupools:cluster"].update(cluster)
    if base is AWS:
        raw["gpupools:gpuSoftware"] = {"installer": "gpu-operator", "version": "v26.7.0", "migStrategy": "single"}
    else:
        raw["gpupools:gpuSoftware"] = {"installer": "device-plugin", "version": "0.20.0"}
    return raw


SPOT = _stack(
    AZURE,
    [
        {
            "name": "spota100",
            "size": "Standard_NC24ads_A100_v4",
            "count": 1,
            "autoscaling": {"minCount": 1, "maxCount": 4},
            "availabilityZones": ["1", "2"],
            "priority": "Spot",
            "evictionPolicy": "Deallocate",
            "spotMaxPrice": 3.5,
        }
    ],
)
RESERVED = _stack(
    AZURE,
    [{"name": "nd96", "size": "Standard_ND96asr_v4", "count": 2, "maxPods": 60, "capacityReservationGroupId": CRG}],
)
BLOCK = _stack(
    AWS,
    [
        {
            "name": "p5-block",
            "size": "p5.48xlarge",
            "count": 2,
            "capacityType": "CAPACITY_BLOCK",
            "capacityReservation": "cr-0123456789abcdef0",
            "subnetIds": ["subnet-0aaa1111"],
        }
    ],
)
EFA = _stack(
    AWS,
    [{"name": "p4d-efa", "size": "p4d.24xlarge", "count": 2, "efa": True, "subnetIds": ["subnet-0bbb2222"]}],
    subnetIds=["subnet-0ccc3333", "subnet-0ddd4444"],
    vpcId="vpc-0eee5555",
)


def _inputs_line(out: str, pool: str) -> str:
    """The pool's line under ``Capacity inputs:`` in the text output."""
    lines = out.splitlines()
    start = lines.index("Capacity inputs:")
    return next(line for line in lines[start + 1 :] if line.startswith(f"  {pool}: ")).removeprefix(f"  {pool}: ")


def _check(tmp_path, config: dict, *args: str):
    run = run_cli("check", "--config", str(write_stack_file(tmp_path, config, "inputs")), *args)
    assert run.code == 0, run.err
    return run.out


def test_spot_aks_pool_shows_priority_eviction_price_zones_and_bounds(tmp_path):
    out = _check(tmp_path, SPOT)
    line = _inputs_line(out, "spota100")
    assert line.startswith(
        "priority: Spot, eviction Deallocate, max price $3.5/h; zones: 1, 2; capacity reservation group: none; "
    )
    assert "; autoscaling: 1..4 nodes; " in line
    assert (
        "; network: Azure CNI Overlay, pod CIDR 10.244.0.0/16 (a /24 per node: at most 256 nodes); "
        "identity: system-assigned"
    ) in line
    # The computed maxPods is the one the capacity table shows.
    row = next(row for row in out.splitlines() if row.startswith("spota100 "))
    computed = re.search(r"maxPods: (\d+) \(computed\)", line).group(1)
    assert f" {computed} (" in row


def test_reserved_aks_pool_shows_its_group_and_set_max_pods(tmp_path):
    line = _inputs_line(_check(tmp_path, RESERVED), "nd96")
    assert line.startswith(
        f"priority: Regular; zones: none (regional); capacity reservation group: {CRG}; "
        "maxPods: 60 (set); autoscaling: off; "
    )
    # Item 8: the cluster gpupools creates for a reserved pool has a user-assigned identity.
    assert line.endswith(
        "; identity: user-assigned, created by gpupools, Contributor on each capacity reservation group's "
        "resource group"
    )


def test_existing_aks_cluster_says_whose_network_and_identity(tmp_path):
    line = _inputs_line(_check(tmp_path, _stack(AZURE, RESERVED["gpupools:gpuPools"], create=False)), "nd96")
    assert line.endswith(
        "; network: the existing cluster's (not read offline); identity: the existing cluster's (not read offline)"
    )


def test_capacity_block_shows_type_reservation_template_and_subnets(tmp_path):
    line = _inputs_line(_check(tmp_path, BLOCK), "p5-block")
    assert line == (
        "capacity type: CAPACITY_BLOCK; reservation: cr-0123456789abcdef0; "
        "launch template: gpupools' (Capacity Block); subnets: subnet-0aaa1111 (the pool's); "
        "maxPods: the AMI's (VPC CNI limit of the instance type); autoscaling: off; "
        "network: VPC CNI (pod IPs from the subnets); "
        "identity: the cluster's node role, created by gpupools"
    )


def test_efa_pool_shows_its_template_interfaces_and_placement_group(tmp_path):
    line = _inputs_line(_check(tmp_path, EFA), "p4d-efa")
    # p4d.24xlarge has 4 EFA interfaces (EC2 instance types table).
    assert line.startswith(
        "capacity type: ON_DEMAND (default); reservation: none; launch template: gpupools' (EFA); "
        "subnets: subnet-0bbb2222 (the pool's); EFA: 4 interfaces, cluster placement group; "
    )


def test_eks_pool_without_its_own_subnets_shows_the_clusters(tmp_path):
    stack = _stack(
        AWS,
        [{"name": "p4d", "size": "p4d.24xlarge", "count": 1, "capacityType": "SPOT"}],
        subnetIds=["subnet-0ccc3333", "subnet-0ddd4444"],
        vpcId="vpc-0eee5555",
    )
    line = _inputs_line(_check(tmp_path, stack), "p4d")
    assert line.startswith(
        "capacity type: SPOT; reservation: none; launch template: EKS's default; "
        "subnets: subnet-0ccc3333, subnet-0ddd4444 (the cluster's); "
    )


@pytest.mark.parametrize(
    "config, pool, expected",
    [
        (RESERVED, "nd96", f"| nd96 | priority: Regular; zones: none (regional); capacity reservation group: {CRG}; "),
        (
            BLOCK,
            "p5-block",
            "| p5-block | capacity type: CAPACITY_BLOCK; reservation: cr-0123456789abcdef0; "
            "launch template: gpupools' (Capacity Block); subnets: subnet-0aaa1111 (the pool's); ",
        ),
    ],
)
def test_pull_request_comment_has_a_capacity_inputs_row_per_pool(tmp_path, config, pool, expected):
    run = run_cli("plan", "--config", str(write_stack_file(tmp_path, config, "inputs")), "--format", "markdown")
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    # A list, not a table: an inputs line is too long for a cell GitHub shows without scrolling (issue 27).
    header = lines.index("Capacity inputs:")
    assert lines[header + 1] == ""
    assert lines[header + 2].startswith(f"- **{pool}**: " + expected.split(" | ", 1)[1])
    # Above the cost and the collapsed details: where a reviewer reads first.
    assert header < lines.index("Cost:")


def test_plan_json_and_check_json_carry_the_inputs(tmp_path):
    import json

    out = json.loads(_check(tmp_path, SPOT, "--json"))
    (inputs,) = out["capacityInputs"]
    assert inputs["pool"] == "spota100" and inputs["zones"] == "1, 2"
