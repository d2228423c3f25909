"""Reading the live cluster: each pool's nodes and the device plugin's pods, as typed, bounded objects.

verify GETs three lists and ``/version``, so it speaks HTTP itself (``transport``) instead of loading the
126 MB ``kubernetes`` client: every limit is then ours to set. Each response is validated by ``objects``; a
list may span at most ``MAX_PAGES`` pages and ``objects.MAX_ITEMS`` items. Connection errors, timeouts, 5xx
and 429 are retried with backoff until the run's deadline (``--timeout``), as a deploy right after
``pulumi up`` needs; other failures end the run at once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Literal, Mapping

from pydantic import ValidationError

from ..catalog.labels import MIG_CONFIG_LABEL, MIG_CONFIG_STATE_LABEL
from ..errors import GpupoolsError
from .expected import DevicePluginTarget, PoolExpectation
from .kubeconfig import Connection, KubeconfigError, load_connection, resolve_kubeconfig
from .objects import (
    MAX_ITEMS,
    DaemonSet,
    DaemonSetList,
    Node,
    NodeList,
    Pod,
    PodList,
    ResourceSlice,
    ResourceSliceList,
    Version,
    problem,
)
from ..untrusted.quantity import QuantityError, parse_count
from .transport import RequestFailed, get_json

__all__ = ["ClusterError", "ClusterReader", "NodeState", "observe", "resolve_kubeconfig"]

RESOURCE_SLICES_PATH = "/apis/resource.k8s.io/v1/resourceslices"

NVIDIA_RESOURCE_PREFIX = "nvidia.com/"
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 20.0
MIN_REQUEST_SECONDS = 1.0  # the least a request is given, however little of --timeout is left
PAGE_SIZE = 500
MAX_PAGES = MAX_ITEMS // PAGE_SIZE + 1
SLICE_PAGE_SIZE = 50  # a ResourceSlice lists a node's devices (56 MIG devices on 8 A100s): about 20 KB each
FIRST_RETRY_DELAY = 0.5
MAX_RETRY_DELAY = 8.0

DevicePluginStatus = Literal["ready", "not ready", "no pod", "no daemonset"]


class ClusterError(GpupoolsError):
    """The cluster could not be read: bad kubeconfig, unreachable API server, refused request. One line."""


@dataclass(frozen=True)
class NodeState:
    """What one node shows: its ``nvidia.com/*`` allocatable, MIG state label and device plugin pod."""

    name: str
    allocatable: dict[str, int]
    mig_config_state: str | None
    device_plugin: DevicePluginStatus
    # The layout the node's nvidia.com/mig.config label asks the MIG manager for (None: no label).
    mig_config: str | None = None

    @property
    def device_plugin_ready(self) -> bool:
        return self.device_plugin == "ready"


class ClusterReader:
    """GETs through one ``Connection`` within one deadline; every failure becomes a ``ClusterError``."""

    def __init__(
        self,
        connection: Connection,
        deadline: float,
        *,
        retry: bool,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self._connection = connection
        self._deadline = deadline
        self._retry = retry
        self._clock = clock
        self._sleep = sleep

    @classmethod
    def from_kubeconfig(
        cls,
        path: str,
        deadline: float,
        *,
        retry: bool,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> "ClusterReader":
        try:
            connection = load_connection(path, deadline, clock)
        except KubeconfigError as error:
            raise ClusterError(str(error)) from None
        return cls(connection, deadline, retry=retry, clock=clock, sleep=sleep)

    @property
    def server(self) -> str:
        """The server URL without user info: safe to print."""
        return self._connection.shown

    def version(self) -> str:
        """The API server's ``gitVersion``: the first call, so an unreachable cluster fails before anything else."""
        return self._typed("/version", {}, Version, "version").gitVersion

    def nodes(self, label_selector: str) -> list[Node]:
        return list(self._list("/api/v1/nodes", label_selector, NodeList, "node"))

    def pods(self, namespace: str, label_selector: str) -> list[Pod]:
        return list(self._list(f"/api/v1/namespaces/{namespace}/pods", label_selector, PodList, "pod"))

    def daemonsets(self, namespace: str, label_selector: str) -> list[DaemonSet]:
        return list(
            self._list(f"/apis/apps/v1/namespaces/{namespace}/daemonsets", label_selector, DaemonSetList, "daemonset")
        )

    def resource_slices(self) -> list[ResourceSlice]:
        return list(self.iter_resource_slices())

    def iter_resource_slices(self) -> Iterator[ResourceSlice]:
        """The slices page by page (``SLICE_PAGE_SIZE`` a page: one holds up to a thousand devices), each page read
        only when the last is used."""
        return self._list(RESOURCE_SLICES_PATH, "", ResourceSliceList, "resourceslice", SLICE_PAGE_SIZE)

    def _list(self, path: str, label_selector: str, model: Any, kind: str, size: int | None = None) -> Iterator[Any]:
        size = size or PAGE_SIZE
        token, seen, count = None, set(), 0
        for _ in range(MAX_ITEMS // size + 1):
            page = self._typed(path, {"labelSelector": label_selector, "limit": size, "continue": token}, model, kind)
            items = page.items or []
            count += len(items)
            if count > MAX_ITEMS:
                raise ClusterError(
                    f"{self.server} listed more than {MAX_ITEMS} {kind}s at GET {path}, the most gpupools reads"
                )
            yield from items
            token = page.metadata.continue_ if page.metadata else None
            if not token:
                return
            if token in seen:
                raise ClusterError(f"{self.server} sent the same continue token twice at GET {path}")
            seen.add(token)
        raise ClusterError(f"{self.server} kept paging GET {path} past {MAX_ITEMS // size + 1} pages of {size}")

    def _typed(self, path: str, query: dict[str, Any], model: Any, kind: str) -> Any:
        document = self._get(path, query)
        try:
            return model.model_validate(document)
        except ValidationError as error:
            raise ClusterError(
                f"{self.server} sent a {kind} {'list ' if kind != 'version' else ''}at GET {path} "
                f"that gpupools cannot read: {problem(error, document, kind)}"
            ) from None

    def _get(self, path: str, query: dict[str, Any]) -> Any:
        delay = FIRST_RETRY_DELAY
        while True:
            # Each request gets at most a third of the time left (and never more than the fixed bounds), so one
            # silent server or dropped connection cannot take the whole --timeout: there is time to retry.
            share = max(MIN_REQUEST_SECONDS, (self._deadline - self._clock()) / 3)
            try:
                return get_json(
                    self._connection,
                    path,
                    query,
                    deadline=self._deadline,
                    clock=self._clock,
                    connect_timeout=min(CONNECT_TIMEOUT, share),
                    read_timeout=min(READ_TIMEOUT, share),
                )
            except RequestFailed as failure:
                left = self._deadline - self._clock()
                if not (self._retry and failure.transient and left > delay):
                    raise ClusterError(self._message(path, failure)) from None
                self._sleep(delay)
                delay = min(delay * 2, MAX_RETRY_DELAY)

    def _message(self, path: str, failure: RequestFailed) -> str:
        if failure.status is not None:
            return f"{self.server} {failure} to GET {path}"
        if failure.transient:
            return f"cannot reach the cluster at {self.server}: {failure}"
        return (
            f"{self.server} {failure} at GET {path}"
            if str(failure).startswith("sent")
            else f"cannot read the cluster at {self.server}: {failure} (GET {path})"
        )


def observe(
    reader: ClusterReader, pools: list[PoolExpectation], target: DevicePluginTarget
) -> dict[str, list[NodeState]]:
    """Per pool name, the state of each of its nodes, sorted by node name."""
    readiness = device_plugin_readiness(reader, target)
    observed = {}
    for pool in pools:
        states = []
        for node in reader.nodes(pool.label_selector):
            labels = node.metadata.labels or {}
            states.append(
                NodeState(
                    name=node.metadata.name,
                    allocatable=nvidia_allocatable(node, reader.server),
                    mig_config_state=labels.get(MIG_CONFIG_STATE_LABEL),
                    device_plugin=readiness(node.metadata.name),
                    mig_config=labels.get(MIG_CONFIG_LABEL),
                )
            )
        observed[pool.pool] = sorted(states, key=lambda state: state.name)
    return observed


def device_plugin_readiness(reader: ClusterReader, target: DevicePluginTarget) -> Callable[[str], DevicePluginStatus]:
    """A function from node name to the state of the device plugin pod there.

    Pods are matched by the chart's labels and then by their owning daemonset, because the device plugin
    chart gives its GFD and MPS pods the same labels.
    """
    if not any(
        ds.metadata.name == target.daemonset for ds in reader.daemonsets(target.namespace, target.label_selector)
    ):
        return lambda node: "no daemonset"
    by_node: dict[str, bool] = {}
    for pod in reader.pods(target.namespace, target.label_selector):
        if not _owned_by(pod, target.daemonset):
            continue
        node = pod.spec.nodeName if pod.spec else None
        if node:
            by_node[node] = by_node.get(node, False) or pod_ready(pod)
    return lambda node: "no pod" if node not in by_node else ("ready" if by_node[node] else "not ready")


def pod_ready(pod: Pod) -> bool:
    """Running with the ``Ready`` condition true, the way ``kubectl get pods`` counts READY."""
    status = pod.status
    if status is None or status.phase != "Running" or pod.metadata.deletionTimestamp:
        return False
    return any(c.type == "Ready" and c.status == "True" for c in status.conditions or [])


def nvidia_allocatable(node: Node, server: str = "the server") -> dict[str, int]:
    """The ``nvidia.com/*`` quantities as device counts, read by the quantity grammar."""
    allocatable: Mapping[str, str] = (node.status.allocatable if node.status else None) or {}
    counts = {}
    for name, value in sorted(allocatable.items()):
        if name.startswith(NVIDIA_RESOURCE_PREFIX):
            try:
                counts[name] = parse_count(value)
            except QuantityError as error:
                raise ClusterError(
                    f"{server} sent node {node.metadata.name!r} at GET /api/v1/nodes with "
                    f"status.allocatable[{name!r}] that gpupools cannot read: {error}"
                ) from None
    return counts


def _owned_by(pod: Pod, daemonset: str) -> bool:
    owners = pod.metadata.ownerReferences or []
    return any(owner.kind == "DaemonSet" and owner.name == daemonset for owner in owners)
