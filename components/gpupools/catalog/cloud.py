"""``Cloud``: everything that differs by cloud, in one object, and ``CloudNotSupported`` for what a cloud lacks.

Modelled on karpenter's ``CloudProvider`` interface: code outside a cloud's own modules asks the stack's cloud
object (``cloud_registry.cloud(name)``) instead of comparing its name. The object carries the cloud's plain facts
directly; what only some clouds have, and the behaviour of higher layers, are *facets*: small typed objects each
layer's per-cloud module attaches when that layer is imported (``attach``), and code asks for by type (``facet``).
A capability a cloud lacks raises ``CloudNotSupported`` naming it, never another cloud's path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

from ..errors import GpupoolsError
from .kubernetes_versions import KubernetesWindow, SupportFee
from .labels import Taint
from .provisioners import DEFAULT_PROVISIONER

F = TypeVar("F")


class CloudNotSupported(GpupoolsError, NotImplementedError):
    """A capability the stack's cloud does not have: "<capability> is not supported on <cloud>"."""


@dataclass(frozen=True)
class PoolNaming:
    """How a GPU pool's cloud name (AKS agent pool, EKS node group) is spelled."""

    capability: ClassVar[str] = "naming GPU pools"
    max_length: int  # the longest cloud pool name
    separator: str  # between the config name and a surge generation's hash
    reserved: frozenset[str] = frozenset()  # names a GPU pool can never take


@dataclass(frozen=True)
class SizeNaming:
    """How the cloud spells its node sizes, ASCII only."""

    capability: ClassVar[str] = "node sizes"
    prefix: str  # every size name starts with it ("" = the names carry no prefix)
    pattern: re.Pattern[str]
    allowed: str  # the pattern in words, for the error


def _no_key_problems(key: str) -> list[str]:
    return []


@dataclass(frozen=True)
class TagRules:
    """The cloud's limits on resource tags."""

    capability: ClassVar[str] = "cloud tags"
    key_max: int
    value_max: int
    key_problems: Callable[[str], list[str]] = _no_key_problems  # the cloud's own refusals of a key


@dataclass(frozen=True)
class KubernetesOffer:
    """The managed Kubernetes service and the minor versions it offers (``catalog/kubernetes_versions.py``)."""

    capability: ClassVar[str] = "managed Kubernetes versions"
    service: str  # AKS, EKS
    minors: Mapping[str, KubernetesWindow]
    long_term: str  # what follows standard support: "LTS" (AKS), "extended support" (EKS)
    # AKS: LTS is opt-in (Premium tier + AKSLongTermSupport plan, ``cluster.longTermSupport``); EKS moves a cluster
    # to extended support by itself (billed), so it needs no opt-in.
    long_term_opt_in: bool = False
    long_term_note: str = ""  # what long-term support costs or needs, for the warning
    long_term_fee: SupportFee | None = None  # what long-term support adds per cluster-hour (the plan's cost)
    # The cloud's own answer to "which minors can a new cluster use here", for facts only a calendar gives;
    # ``{region}`` is the cluster's region.
    confirm_command: str = ""


@dataclass(frozen=True)
class FixedFields:
    """The pool fields fixed at creation (``catalog/fixed_fields.py``), by wire name: what a generation covers."""

    capability: ClassVar[str] = "fields fixed at creation"
    names: tuple[str, ...]


@dataclass(frozen=True)
class Extra:
    """Which pip extra installs the cloud's SDKs (``pyproject.toml`` ``[project.optional-dependencies]``)."""

    capability: ClassVar[str] = "a cloud SDK extra"
    name: str  # pip install 'gpupools[<name>]'
    what: str  # the SDKs, in words
    modules: tuple[str, ...]  # the top-level modules the extra installs


@dataclass(eq=False)
class Cloud:
    """One cloud: its facts, and the facets the layers attach (see the module docstring)."""

    name: str  # as the stack file spells it
    display_name: str  # in user text: Azure, AWS
    region_field: str  # the cluster config field naming the region (location, region)
    # The provider's own region key in the stack file (azure-native:location); it must name the cluster's region.
    provider_region_key: str | None = None
    pool_keys: tuple[str, ...] = ()  # pool keys only this cloud understands; other clouds refuse them
    gpu_labels: Mapping[str, str] = field(default_factory=dict)  # labels the cloud puts on every GPU node
    spot_taints: tuple[Taint, ...] = ()  # taints the cloud adds to Spot nodes by itself
    cluster_autoscaler_chart: bool = False  # gpupools installs the cluster-autoscaler chart (no managed one)
    # The container runtime class the GPU Operator names on nodes whose driver the cloud preinstalls (AKS).
    preinstalled_runtime_class: str | None = None
    native_mig_profiles: bool = False  # the cloud applies one MIG profile per pool itself (AKS gpuInstanceProfile)
    spot_price_note: str | None = None  # why a Spot pool has no price, when the cloud publishes none
    # The node provisioners (catalog/provisioners.py) a pool may name here; a managed pool everywhere.
    node_provisioners: tuple[str, ...] = (DEFAULT_PROVISIONER,)
    facets: tuple[object, ...] = ()  # facets known in the catalog (PoolNaming, SizeNaming, ...)
    _attached: dict[type, object] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for facet in self.facets:
            self.attach(facet)

    def attach(self, facet: object) -> None:
        """Give the cloud a capability: ``facet`` answers ``self.facet(type(facet))``."""
        self._attached[type(facet)] = facet

    def has(self, kind: type) -> bool:
        return kind in self._attached

    def facet(self, kind: type[F]) -> F:
        """The attached facet of type ``kind``, or ``CloudNotSupported`` naming its capability."""
        found = self._attached.get(kind)
        if found is None:
            raise self.unsupported(getattr(kind, "capability", kind.__name__))
        assert isinstance(found, kind)
        return found

    def unsupported(self, capability: str) -> CloudNotSupported:
        return CloudNotSupported(f"{capability} is not supported on {self.name}")
