"""The inputs of ``GpuPlatform``: the stack config (``gpupools:*``) one to one, as TypedDicts in snake_case.

Every key is a field of ``gpupools.config.models`` under its Python name (``gpuPools`` -> ``gpu_pools``), so
the schema analyzer turns them into typed inputs for every language, and ``inputs.py`` turns them back into
the config's camelCase shape for ``load_stack``. One field is split because schemas have no unions: a MIG
``layout`` is a layout name here, a per-GPU mix goes in ``layout_mix`` and a per-GPU layout in ``layout_gpus``.

Plain fields decide sizes, MIG layouts, labels and chart values while planning, so they must be known
values. Fields typed ``pulumi.Input`` are names, ids and counts another resource may produce: they skip
their syntax checks when an output is given and go to the cloud as they are (see ``inputs.DEFERRABLE``).
"""

from typing import NotRequired, TypedDict

import pulumi


class SystemPoolArgs(TypedDict):
    """The CPU pool for system pods (AKS system pool, EKS managed node group)."""

    size: str
    """VM size or instance type, e.g. Standard_D4s_v5 or m6i.large."""
    count: NotRequired[int]
    """Nodes, 1..100 (default 2)."""


class ClusterAutoscalerSettingsArgs(TypedDict):
    """The open-source cluster autoscaler that gpupools installs on EKS (AKS runs its own)."""

    install: NotRequired[bool]
    """Install the cluster autoscaler chart (default false)."""
    version: NotRequired[str]
    """Exact cluster-autoscaler chart version."""
    namespace: NotRequired[str]
    """Namespace of the release (default kube-system)."""
    expander: NotRequired[str]
    """least-waste (default), most-pods, random or priority."""
    priorities: NotRequired[dict[str, list[str]]]
    """With expander priority: priority (a whole number as text) -> node group name regexes."""
    scale_down_utilization_threshold: NotRequired[float]
    """CPU/memory utilization under which a node may be removed (autoscaler default 0.5)."""
    scale_down_gpu_utilization_threshold: NotRequired[float]
    """GPU utilization under which a GPU node may be removed (autoscaler default 0.5)."""


class KarpenterSettingsArgs(TypedDict):
    """Karpenter in an EKS cluster: installed by this stack, or already there on an existing cluster."""

    install: NotRequired[bool]
    """Install Karpenter (chart, IAM, interruption queue) on a created cluster (default false)."""
    present: NotRequired[bool]
    """create false: the existing cluster runs Karpenter (its platform stack's karpenter output is true)."""
    version: NotRequired[str]
    """Exact Karpenter chart version (default 1.14.1)."""


class ClusterArgs(TypedDict):
    """The cluster to create, or to use when ``create`` is false."""

    name: pulumi.Input[str]
    """Cluster name; may be another stack's output (its syntax is then left to the cloud)."""
    create: NotRequired[bool]
    """Create the cluster (default true) or add pools to an existing one (another stack's, on AKS or EKS)."""
    resource_group: NotRequired[pulumi.Input[str]]
    """azure: resource group of the cluster (created with it); may be an output."""
    location: NotRequired[str]
    """azure: region, required when create is true, e.g. southcentralus."""
    region: NotRequired[str]
    """aws: region, e.g. us-east-1."""
    kubernetes_version: NotRequired[str]
    """Kubernetes minor version (default: the cloud's default minor on the plan's date, in standard support)."""
    long_term_support: NotRequired[bool]
    """azure: AKS LTS on a created cluster (Premium tier + AKSLongTermSupport plan); needed past community support."""
    system_pool: NotRequired[SystemPoolArgs]
    """CPU pool for system pods; required when create is true."""
    subnet_ids: NotRequired[pulumi.Input[list[pulumi.Input[str]]]]
    """aws: subnets of the cluster and node groups (default VPC when empty; an existing cluster's); may be outputs."""
    vpc_id: NotRequired[pulumi.Input[str]]
    """aws: the VPC of subnet_ids (required with them on a created cluster); may be an output."""
    node_role_arn: NotRequired[pulumi.Input[str]]
    """aws, create false: the node role the existing cluster admits (default: one per node group); may be an output."""
    autoscaler: NotRequired[ClusterAutoscalerSettingsArgs]
    """The cluster autoscaler gpupools installs on EKS."""
    karpenter: NotRequired[KarpenterSettingsArgs]
    """aws: Karpenter, for pools with provisioner karpenter."""


class PoolAutoscalingArgs(TypedDict):
    """Node count bounds for the cluster autoscaler."""

    min_count: int
    """Lower bound, 0..1000."""
    max_count: int
    """Upper bound, 1..1000."""


class MigGpuGroupArgs(TypedDict):
    """Some GPUs of each node, cut alike by one per-GPU mix or left whole: set exactly one of mix or whole."""

    gpus: int
    """How many GPUs of each node this entry covers."""
    mix: NotRequired[dict[str, int]]
    """The MIG devices of each of these GPUs, profile -> count, e.g. {"1g.10gb": 4, "2g.20gb": 1}."""
    whole: NotRequired[bool]
    """True: these GPUs stay whole, not MIG-enabled."""


class MigArgs(TypedDict):
    """How each GPU of a pool is cut: set exactly one of profile, layout, layout_mix or layout_gpus."""

    profile: NotRequired[str]
    """One profile on every GPU, AKS style (MIG1g) or NVIDIA style (1g.5gb)."""
    layout: NotRequired[str]
    """A named layout of the GPU Operator's MIG manager, e.g. all-balanced."""
    layout_mix: NotRequired[dict[str, int]]
    """A per-GPU mix, profile -> count, e.g. {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1} (config: mig.layout)."""
    layout_gpus: NotRequired[list[MigGpuGroupArgs]]
    """A per-GPU layout: groups of GPUs in device order, each with a mix or whole, adding up to the size's GPUs
    (config: mig.layout as a list)."""


class TimeSlicingArgs(TypedDict):
    """Device plugin time-slicing: each GPU or MIG device is advertised ``replicas`` times."""

    replicas: int
    """Advertised copies per device, 2..64."""
    rename_by_default: NotRequired[bool]
    """Advertise <resource>.shared instead of the resource's own name."""
    fail_requests_greater_than_one: NotRequired[bool]
    """Refuse pods asking for more than one shared unit."""


class MpsArgs(TypedDict):
    """CUDA MPS: whole GPUs shared by ``replicas`` clients with memory limits."""

    replicas: int
    """Clients per GPU, 2..48."""
    rename_by_default: NotRequired[bool]
    """Advertise <resource>.shared instead of the resource's own name."""
    allow_privileged_host_pid: NotRequired[bool]
    """Accept that the MPS control daemon runs privileged with hostPID (required for MPS)."""


class SharingArgs(TypedDict):
    """Oversubscription of a pool's GPUs: set exactly one of time_slicing or mps."""

    time_slicing: NotRequired[TimeSlicingArgs]
    """Time-slicing settings."""
    mps: NotRequired[MpsArgs]
    """MPS settings."""


class KarpenterPoolSettingsArgs(TypedDict):
    """A Karpenter pool's NodePool disruption settings and weight."""

    consolidation_policy: NotRequired[str]
    """WhenEmpty (default) or WhenEmptyOrUnderutilized."""
    consolidate_after: NotRequired[str]
    """How long a node stays empty before it goes (default 15m; or Never)."""
    budget: NotRequired[str]
    """Nodes disrupted at once, a number or a percentage (default 1)."""
    expire_after: NotRequired[str]
    """A node's longest life, e.g. 720h or Never (default: Karpenter's 720h)."""
    termination_grace_period: NotRequired[str]
    """How long a draining node's pods get before deletion, e.g. 48h (default: for ever)."""
    zones: NotRequired[list[str]]
    """Availability zones by name in the cluster's region, e.g. us-east-1a (default: wherever its subnets are)."""
    weight: NotRequired[int]
    """The NodePool's priority where pools overlap, 1..100."""


class GpuPoolArgs(TypedDict):
    """One GPU node pool (AKS agent pool or EKS managed node group)."""

    name: str
    """Pool name; AKS: lowercase letters and digits, at most 12; EKS: lowercase letters, digits and '-'."""
    size: str
    """VM size or instance type from the catalog (or custom_sizes), e.g. Standard_ND96asr_v4, p4d.24xlarge."""
    count: NotRequired[pulumi.Input[int]]
    """Nodes, 0..1000 (default 1); may be an output (then smoke_test is refused and totals are outputs)."""
    autoscaling: NotRequired[PoolAutoscalingArgs]
    """Autoscaler bounds."""
    provisioner: NotRequired[str]
    """nodeGroup (default) or, on aws, karpenter: a NodePool launching nodes for pending pods up to max_count."""
    max_count: NotRequired[int]
    """provisioner karpenter: the most nodes, 1..1000 (required there)."""
    karpenter: NotRequired[KarpenterPoolSettingsArgs]
    """provisioner karpenter: the NodePool's disruption settings and weight."""
    mig: NotRequired[MigArgs]
    """MIG partitioning of every GPU."""
    sharing: NotRequired[SharingArgs]
    """Time-slicing or MPS."""
    os_sku: NotRequired[str]
    """azure: Ubuntu (default), Ubuntu2204, AzureLinux or AzureLinux3 (Azure Linux not on A100, H100 or H200 sizes)."""
    ami_type: NotRequired[str]
    """aws: AL2023_x86_64_NVIDIA (default, and the only AMI type taken; docs/sources.md says why)."""
    disk_size_gb: NotRequired[int]
    """OS disk in GB, 64..4096 (default 256)."""
    labels: NotRequired[dict[str, str]]
    """Extra node labels (nvidia.com/, gpupools.io/ and cloud prefixes are reserved)."""
    smoke_test: NotRequired[bool]
    """Run a Job requesting one unit of each advertised resource; needs a plain count."""
    max_pods: NotRequired[int]
    """azure: pods per node, 10..250 (default: sized from the pool's slices and daemonsets)."""
    availability_zones: NotRequired[list[str]]
    """azure: zones "1".."3"."""
    capacity_reservation_group_id: NotRequired[pulumi.Input[str]]
    """azure: resource id of a capacity reservation group; may be an output."""
    priority: NotRequired[str]
    """azure: Regular (default) or Spot."""
    eviction_policy: NotRequired[str]
    """azure Spot: Delete (default) or Deallocate."""
    spot_max_price: NotRequired[float]
    """azure Spot: most to pay per VM hour in US dollars, or -1 for up to the on-demand price."""
    capacity_type: NotRequired[str]
    """aws: ON_DEMAND, SPOT or CAPACITY_BLOCK."""
    capacity_reservation: NotRequired[pulumi.Input[str]]
    """aws: an ODCR or Capacity Block id (cr-...) or a reservation group ARN; may be an output."""
    subnet_ids: NotRequired[pulumi.Input[list[pulumi.Input[str]]]]
    """aws: the node group's own subnets (default: the cluster's); may be outputs."""
    efa: NotRequired[bool]
    """aws: Elastic Fabric Adapter interfaces and a cluster placement group."""
    reserved_instances: NotRequired[int]
    """Instances the pool's reservation holds: it is billed for them, used or not (the plan's cost)."""
    reserved_days: NotRequired[int]
    """aws Capacity Block: its length in days, 1..182 (paid up front)."""
    rotation: NotRequired[str]
    (
        """How a change to a field fixed at creation replaces the pool: surge (new pool first; default with nodes) """
        """or recreate (delete first; default for count 0)."""
    )


class GpuMetricsArgs(TypedDict):
    """GPU metrics: NVIDIA's DCGM exporter on the GPU nodes, and a Prometheus Operator ServiceMonitor for it."""

    dcgm_exporter: NotRequired[bool]
    """Run a DCGM exporter (default: the GPU Operator's own; none beside the device plugin unless true)."""
    service_monitor: NotRequired[bool]
    """Create a ServiceMonitor for it (needs the Prometheus Operator's CRDs)."""


class GpuSoftwareArgs(TypedDict):
    """Which NVIDIA software exposes the GPUs to Kubernetes, and how it names MIG devices."""

    installer: str
    """device-plugin, gpu-operator or dra-driver (preview)."""
    version: NotRequired[str]
    """Exact chart version (device plugin 0.20.0, operator v26.7.0 by default)."""
    mig_strategy: NotRequired[str]
    """none, single (default) or mixed."""
    gfd: NotRequired[bool]
    """GPU feature discovery (default true)."""
    namespace: NotRequired[str]
    """Namespace of the release (default: the chart's name; default is refused)."""
    driver: NotRequired[str]
    """preinstalled (default) or operator (gpu-operator only)."""
    metrics: NotRequired[GpuMetricsArgs]
    """GPU metrics."""
    dra_alpha_gates: NotRequired[list[str]]
    """dra-driver only: the driver's alpha gates accepted by name (TimeSlicingSettings, MPSSupport)."""
    install: NotRequired[bool]
    """Install the chart (default true); false on an existing cluster whose owner runs it with these settings."""


class CustomSizeArgs(TypedDict):
    """A node size missing from the catalog."""

    gpu: str
    """Catalog GPU model, e.g. V100-16GB."""
    gpus: int
    """GPUs per node, 1..16."""


class GpuPlatformArgs(TypedDict):
    """Inputs of ``GpuPlatform``: the ``gpupools:*`` stack config, keys in snake_case."""

    cloud: str
    """azure or aws."""
    cluster: ClusterArgs
    """The cluster to create or use."""
    gpu_pools: list[GpuPoolArgs]
    """GPU node pools, 1..50."""
    gpu_software: GpuSoftwareArgs
    """The NVIDIA device plugin or GPU Operator."""
    custom_sizes: NotRequired[dict[str, CustomSizeArgs]]
    """Sizes missing from the catalog, by name."""
    tags: NotRequired[dict[str, str]]
    """Cloud tags for every resource that takes them."""
    stack_references: NotRequired[list[str]]
    """The stacks whose outputs this stack's values come from, for the deploy order (`gpupools stack-order`); the
    component accepts it, so a stack's config passes as it is, and registers nothing for it."""
    demand: NotRequired[str]
    """The demand file the pools were sized for (`gpupools fit`), relative to the stack file. `gpupools plan` reads
    it to say whether the pools still hold the demand; the component accepts it, so a stack's config passes as it
    is, and registers nothing for it."""
