"""A team's own stack: one MIG node group on an EKS cluster that another stack owns.

It reads the cluster's name, subnets and node role from the platform stack's outputs (``StackReference``) and
hands them, as outputs, to one ``GpuPlatform`` with ``create: false``: the component validates the rest of its
config with the same rules ``pulumi up`` of the main program uses, before any resource. The cluster's VPC,
security group and OIDC issuer are read from EKS at deploy time, so they need no output here.
"""

import pulumi

from gpupools.platform import GpuPlatform

config = pulumi.Config()
platform = pulumi.StackReference(config.require("clusterStack"))
pool_name = config.require("poolName")

team = GpuPlatform(
    "team",
    {
        "cloud": "aws",
        # Names and ids another stack produced: outputs are fine here; sizes, layouts and counts below must be plain.
        "cluster": {
            "name": platform.require_output("clusterName"),
            "region": config.require("region"),
            "create": False,
            "subnet_ids": platform.require_output("subnetIds"),
            # The role the platform's cluster admits, so no new role or access entry is needed.
            "node_role_arn": platform.require_output("nodeRoleArn"),
        },
        "gpu_pools": [
            {
                "name": pool_name,
                "size": config.require("instanceType"),
                "count": config.require_int("nodes"),
                "mig": {"layout": config.require("migLayout")},
            }
        ],
        # The platform stack's GPU Operator serves these nodes too: the same settings, not installed a second time
        # (its MIG manager applies the layout label; the plan checks placement against these values).
        "gpu_software": {"installer": "gpu-operator", "version": "v26.7.0", "mig_strategy": "mixed", "install": False},
    },
)

pulumi.export("slices", team.resources_total.apply(lambda totals: totals[pool_name]))
pulumi.export("nodeSelector", team.node_selectors.apply(lambda selectors: selectors[pool_name]))
pulumi.export("nodeGroupName", team.cloud_pool_names.apply(lambda names: names[pool_name]))
pulumi.export("gpuSoftware", team.gpu_software)
