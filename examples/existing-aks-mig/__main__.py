"""A team's own stack: one MIG pool plus the device plugin on a cluster that another stack owns.

It reads the cluster from the platform stack's outputs (``StackReference``), validates its own small
config with the same rules ``pulumi up`` of the main program uses, and composes gpupools components.
"""

import pulumi
import pulumi_kubernetes as k8s

from gpupools.azure import AksGpuPool
from gpupools.charts.device_plugin import device_plugin_values
from gpupools.capacity import stack_capacity
from gpupools.config import load_stack
from gpupools.kubernetes import NvidiaDevicePlugin

config = pulumi.Config()
platform = pulumi.StackReference(config.require("clusterStack"))
pool_name = config.require("poolName")

# The same validation as the main program: a wrong size or profile fails here, before any resource.
stack = load_stack({
    "gpupools:cloud": "azure",
    "gpupools:cluster": {"name": "from-stack-reference", "create": False, "resourceGroup": "from-stack-reference"},
    "gpupools:gpuPools": [{
        "name": pool_name, "size": config.require("vmSize"), "count": config.require_int("nodes"),
        "mig": {"profile": config.require("migProfile")},
    }],
    "gpupools:gpuSoftware": {"installer": "device-plugin", "version": "0.20.0", "migStrategy": "single"},
})
pool = stack.pools[0]

gpu_pool = AksGpuPool(pool.name, {
    "cluster_name": platform.require_output("clusterName"),
    "resource_group_name": platform.require_output("resourceGroupName"),
    "pool_name": pool.name,
    "vm_size": pool.size.name,
    "count": pool.nodes,
    "gpu_instance_profile": pool.mig.aks_profile,
    "node_labels": pool.labels,
    "node_taints": [str(taint) for taint in pool.taints],
    "max_pods": pool.max_pods,  # sized by load_stack for the pool's slices and daemonsets; fixed at creation
})

provider = k8s.Provider("platform-cluster", kubeconfig=platform.require_output("kubeconfig"))
NvidiaDevicePlugin("device-plugin", {
    "version": stack.config.gpu_software.resolved_version,
    "namespace": stack.config.gpu_software.resolved_namespace,
    "values": device_plugin_values(stack),
}, pulumi.ResourceOptions(providers=[provider], depends_on=[gpu_pool]))

pulumi.export("slices", stack_capacity(stack.pools, stack.config.gpu_software.mig_strategy)[0].total)
