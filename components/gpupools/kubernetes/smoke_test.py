"""A Job that proves a pool's GPU slices are schedulable: one container per advertised resource runs ``nvidia-smi -L``.

The Kubernetes provider waits for a Job to complete, so ``pulumi up`` only succeeds once a pod holding one
unit of every resource the pool advertises has run on the pool.
"""

import re
from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from ..catalog.labels import POOL_LABEL
from ..component_args.docstrings import documented
from ..component_args.checking import check_args
from ..component_args.kubernetes import GpuSmokeTestArgsModel, SMOKE_JOB_SUFFIX

TYPE_TOKEN = "gpupools:index:GpuSmokeTest"
# Pinned CUDA base image (never latest): small, and ships nvidia-smi through the NVIDIA container toolkit.
DEFAULT_IMAGE = "nvcr.io/nvidia/cuda:12.8.1-base-ubuntu24.04"


class GpuSmokeTestArgs(TypedDict):
    """Inputs of ``GpuSmokeTest``."""

    pool_name: str
    """The pool the Job must run on; the Job is named <pool_name>-smoke."""
    namespace: str
    """Namespace of the Job."""
    resources: list[str]
    """Extended resources to request one unit of each, e.g. nvidia.com/mig-1g.5gb."""
    node_selector: dict[str, str]
    """Labels selecting the pool's nodes."""
    toleration_key: str
    """Key of the GPU taint to tolerate (operator Exists, effect NoSchedule)."""
    image: NotRequired[str]
    """Container image with nvidia-smi (default: a pinned CUDA base image)."""


@documented
class GpuSmokeTest(pulumi.ComponentResource):
    """A one-shot Job requesting one unit of each GPU resource a pool advertises."""

    job_name: pulumi.Output[str]
    """Name of the Job."""

    def __init__(self, name: str, args: GpuSmokeTestArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        """Register the GpuSmokeTest under ``name``; ``args`` is checked first (``ComponentArgsError`` names each bad
        key).

        :param name: the Pulumi resource name; children are named ``<name>-...``.
        :param args: ``GpuSmokeTestArgs``: a dict whose keys help() lists under Args below (an editor
            shows each key's docstring as it completes the keys).
        :param opts: Pulumi resource options (parent, provider, protect, ...).
        """
        args = check_args(GpuSmokeTestArgsModel, "GpuSmokeTest", name, args)
        super().__init__(TYPE_TOKEN, name, None, opts)
        containers = [
            k8s.core.v1.ContainerArgs(
                name=_container_name(resource),
                image=args.get("image") or DEFAULT_IMAGE,
                command=["nvidia-smi", "-L"],
                # Extended resources are limits only, whole numbers; Kubernetes copies them to requests.
                resources=k8s.core.v1.ResourceRequirementsArgs(limits={resource: "1"}),
            )
            for resource in args["resources"]
        ]
        job = k8s.batch.v1.Job(
            f"{name}-job",
            metadata=k8s.meta.v1.ObjectMetaArgs(
                name=f"{args['pool_name']}{SMOKE_JOB_SUFFIX}",
                namespace=args["namespace"],
                labels={"app.kubernetes.io/name": "gpu-smoke-test", POOL_LABEL: args["pool_name"]},
            ),
            spec=k8s.batch.v1.JobSpecArgs(
                backoff_limit=2,
                ttl_seconds_after_finished=3600,
                template=k8s.core.v1.PodTemplateSpecArgs(
                    spec=k8s.core.v1.PodSpecArgs(
                        restart_policy="Never",
                        node_selector=args["node_selector"],
                        tolerations=[
                            k8s.core.v1.TolerationArgs(
                                key=args["toleration_key"], operator="Exists", effect="NoSchedule"
                            )
                        ],
                        containers=containers,
                    ),
                ),
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.job_name = job.metadata.name
        self.register_outputs({"jobName": self.job_name})


def _container_name(resource: str) -> str:
    """``nvidia.com/mig-1g.5gb`` -> ``mig-1g-5gb``: container names are DNS labels."""
    return re.sub(r"[^a-z0-9-]", "-", resource.split("/")[-1].lower()).strip("-")[:63]
