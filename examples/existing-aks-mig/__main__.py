"""A team's own stack: one MIG pool plus the device plugin on a cluster that another stack owns.

It reads the cluster's name and resource group from the platform stack's outputs (``StackReference``)
and hands them, as outputs, to one ``GpuPlatform`` with ``create: false``: the component validates the
rest of its config with the same rules ``pulumi up`` of the main program uses, before any resource.
"""

import pulumi

from gpupools.platform import GpuPlatform

config = pulumi.Config()
platform = pulumi.StackReference(config.require("clusterStack"))
pool_name = config.require("poolName")

team = GpuPlatform(
    "team",
    {
        "cloud": "azure",
        # Names another stack produced: outputs are fine here; sizes, profiles and counts below must be plain.
        "cluster": {
            "name": platform.require_output("clusterName"),
            "resource_group": platform.require_output("resourceGroupName"),
            "create": False,
        },
        "gpu_pools": [
            {
                "name": pool_name,
                "size": config.require("vmSize"),
                "count": config.require_int("nodes"),
                "mig": {"profile": config.require("migProfile")},
            }
        ],
        "gpu_software": {"installer": "device-plugin", "version": "0.20.0", "mig_strategy": "single"},
    },
)

pulumi.export("slices", team.resources_total.apply(lambda totals: totals[pool_name]))
pulumi.export("nodeSelector", team.node_selectors.apply(lambda selectors: selectors[pool_name]))
