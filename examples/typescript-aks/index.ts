// An AKS cluster with one Standard_ND96asr_v4 node (8x A100 40GB) cut into MIG1g slices by AKS, and the NVIDIA
// device plugin: 56 nvidia.com/gpu. The args are the gpupools:* keys of a Python stack file, in the same camelCase.
// tests/provider/test_examples.py checks every name, type and enum here against the schema the provider serves.
import * as gpupools from "@pulumi/gpupools";

const platform = new gpupools.GpuPlatform("gpu", {
    cloud: "azure",
    cluster: {
        name: "gpu-ts",
        create: true,
        resourceGroup: "gpu-ts-rg",
        location: "southcentralus",
        kubernetesVersion: "1.35",
        systemPool: { size: "Standard_D4s_v5", count: 2 },
    },
    gpuPools: [
        {
            name: "mig1g",
            size: "Standard_ND96asr_v4",
            count: 1,
            mig: { profile: "MIG1g" },
            osSku: "Ubuntu",
            labels: { team: "research" },
        },
    ],
    gpuSoftware: {
        installer: "device-plugin",
        version: "0.20.0",
        migStrategy: "single",
        gfd: true,
    },
    tags: { owner: "platform" },
});

// A pod's placement on the pool and what one node offers, for workloads in other stacks.
export const clusterName = platform.clusterName;
export const kubeconfig = platform.kubeconfig;
export const resourcesPerNode = platform.resourcesPerNode;
export const nodeSelectors = platform.nodeSelectors;
export const tolerations = platform.tolerations;
