"""Reading the live cluster with the official ``kubernetes`` client: each pool's nodes and the device plugin's pods.

The client is imported here only, when ``verify`` runs, so ``check`` and ``plan`` never load it. Responses
are read as raw JSON (``_preload_content=False``): verify needs a handful of fields, and the typed models
would cost time on big node lists. Requests use short timeouts and no retries, so an unreachable cluster
fails in seconds with one line instead of a stack trace.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Iterator, Literal, Mapping

from ..catalog.labels import MIG_CONFIG_STATE_LABEL
from .expected import DevicePluginTarget, PoolExpectation

NVIDIA_RESOURCE_PREFIX = "nvidia.com/"
DEFAULT_KUBECONFIG = "~/.kube/config"
# (connect, read) seconds for each API call: a cluster that does not answer is an error, not a hang.
REQUEST_TIMEOUT = (5.0, 20.0)
PAGE_SIZE = 500

DevicePluginStatus = Literal["ready", "not ready", "no pod", "no daemonset"]


class ClusterError(Exception):
    """The cluster could not be read: bad kubeconfig, unreachable API server, refused request. One line."""


@dataclass(frozen=True)
class NodeState:
    """What one node shows: its ``nvidia.com/*`` allocatable, MIG state label and device plugin pod."""

    name: str
    allocatable: dict[str, int]
    mig_config_state: str | None
    device_plugin: DevicePluginStatus

    @property
    def device_plugin_ready(self) -> bool:
        return self.device_plugin == "ready"


def resolve_kubeconfig(flag: str | os.PathLike | None, environ: Mapping[str, str] = os.environ) -> str:
    """The flag, else ``KUBECONFIG`` (a path list, as kubectl reads it), else ``~/.kube/config``."""
    if flag:
        return str(flag)
    return environ.get("KUBECONFIG") or str(Path(DEFAULT_KUBECONFIG).expanduser())


class ClusterReader:
    """Lists nodes, pods and daemonsets through one ``ApiClient``; every failure becomes a ``ClusterError``."""

    def __init__(self, api_client: Any, request_timeout: tuple[float, float] = REQUEST_TIMEOUT):
        from kubernetes import client

        self._api_client = api_client
        self._core = client.CoreV1Api(api_client)
        self._apps = client.AppsV1Api(api_client)
        self._version = client.VersionApi(api_client)
        self._timeout = request_timeout

    @classmethod
    def from_kubeconfig(cls, path: str, request_timeout: tuple[float, float] = REQUEST_TIMEOUT) -> "ClusterReader":
        from kubernetes import client, config

        if not any(Path(part).expanduser().is_file() for part in path.split(os.pathsep) if part):
            raise ClusterError(f"kubeconfig {path} does not exist (pass --kubeconfig or set KUBECONFIG)")
        configuration = client.Configuration()
        try:
            config.load_kube_config(config_file=path, client_configuration=configuration, persist_config=False)
        except Exception as error:  # the loader raises ConfigException, YAML and key errors alike
            raise ClusterError(f"cannot read kubeconfig {path}: {_one_line(error)}") from None
        configuration.retries = 0  # urllib3 would otherwise retry a refused connection three times
        return cls(client.ApiClient(configuration), request_timeout)

    @property
    def server(self) -> str:
        return self._api_client.configuration.host

    def version(self) -> str:
        """The API server's ``gitVersion``: the first call, so an unreachable cluster fails before anything else."""
        return str(self._call("/version", self._version.get_code).get("gitVersion", "unknown"))

    def nodes(self, label_selector: str) -> list[dict]:
        return list(self._list("/api/v1/nodes", self._core.list_node, label_selector=label_selector))

    def pods(self, namespace: str, label_selector: str) -> list[dict]:
        return list(self._list(f"/api/v1/namespaces/{namespace}/pods", self._core.list_namespaced_pod,
                               namespace=namespace, label_selector=label_selector))

    def daemonsets(self, namespace: str, label_selector: str) -> list[dict]:
        return list(self._list(f"/apis/apps/v1/namespaces/{namespace}/daemonsets",
                               self._apps.list_namespaced_daemon_set,
                               namespace=namespace, label_selector=label_selector))

    def _list(self, path: str, method, **params) -> Iterator[dict]:
        token = None
        while True:
            page = self._call(path, method, limit=PAGE_SIZE, _continue=token, **params)
            yield from page.get("items") or []
            token = (page.get("metadata") or {}).get("continue")
            if not token:
                return

    def _call(self, path: str, method, **params) -> dict:
        from kubernetes.client.exceptions import ApiException

        try:
            response = method(_preload_content=False, _request_timeout=self._timeout, **params)
            return json.loads(response.data)
        except ApiException as error:
            raise ClusterError(f"{self.server} answered {error.status} {error.reason} to GET {path}") from None
        except ValueError as error:
            raise ClusterError(f"{self.server} sent a response to GET {path} that is not JSON: "
                               f"{_one_line(error)}") from None
        except Exception as error:  # urllib3 connection, timeout and TLS errors
            raise ClusterError(f"cannot reach the cluster at {self.server}: {_connection_problem(error)}") from None


def observe(reader: ClusterReader, pools: list[PoolExpectation],
            target: DevicePluginTarget) -> dict[str, list[NodeState]]:
    """Per pool name, the state of each of its nodes, sorted by node name."""
    readiness = device_plugin_readiness(reader, target)
    observed = {}
    for pool in pools:
        states = []
        for node in reader.nodes(pool.label_selector):
            name = node["metadata"]["name"]
            labels = node["metadata"].get("labels") or {}
            allocatable = (node.get("status") or {}).get("allocatable") or {}
            states.append(NodeState(
                name=name,
                allocatable=nvidia_allocatable(allocatable),
                mig_config_state=labels.get(MIG_CONFIG_STATE_LABEL),
                device_plugin=readiness(name),
            ))
        observed[pool.pool] = sorted(states, key=lambda state: state.name)
    return observed


def device_plugin_readiness(reader: ClusterReader, target: DevicePluginTarget):
    """A function from node name to the state of the device plugin pod there.

    Pods are matched by the chart's labels and then by their owning daemonset, because the device plugin
    chart gives its GFD and MPS pods the same labels.
    """
    if not any(ds["metadata"]["name"] == target.daemonset
               for ds in reader.daemonsets(target.namespace, target.label_selector)):
        return lambda node: "no daemonset"
    by_node: dict[str, bool] = {}
    for pod in reader.pods(target.namespace, target.label_selector):
        if not _owned_by(pod, target.daemonset):
            continue
        node = (pod.get("spec") or {}).get("nodeName")
        if node:
            by_node[node] = by_node.get(node, False) or pod_ready(pod)
    return lambda node: "no pod" if node not in by_node else ("ready" if by_node[node] else "not ready")


def pod_ready(pod: Mapping[str, Any]) -> bool:
    """Running with the ``Ready`` condition true, the way ``kubectl get pods`` counts READY."""
    status = pod.get("status") or {}
    if status.get("phase") != "Running" or (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])


def nvidia_allocatable(allocatable: Mapping[str, str]) -> dict[str, int]:
    """The ``nvidia.com/*`` quantities as integers (extended resources are whole numbers; ``1k`` is 1000)."""
    return {name: _quantity(value) for name, value in sorted(allocatable.items())
            if name.startswith(NVIDIA_RESOURCE_PREFIX)}


_SUFFIXES = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
             "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}


def _quantity(value: str) -> int:
    text = str(value).strip()
    for suffix in sorted(_SUFFIXES, key=len, reverse=True):
        if text.endswith(suffix):
            text, factor = text[: -len(suffix)], _SUFFIXES[suffix]
            break
    else:
        factor = 1
    try:
        return int(Decimal(text) * factor)
    except InvalidOperation:
        return 0


def _owned_by(pod: Mapping[str, Any], daemonset: str) -> bool:
    owners = (pod.get("metadata") or {}).get("ownerReferences") or []
    return any(owner.get("kind") == "DaemonSet" and owner.get("name") == daemonset for owner in owners)


# urllib3 prefixes its errors with the pool or connection's repr: "HTTPConnectionPool(host=..., port=...): ".
_URLLIB3_PREFIX = re.compile(r"^(?:\w+\([^)]*\)|<[^>]*>): ")


def _connection_problem(error: BaseException) -> str:
    """``Failed to establish a new connection: [Errno 111] Connection refused``, not urllib3's retry wrapper."""
    reason = getattr(error, "reason", None)
    text = _one_line(reason if isinstance(reason, BaseException) else error)
    return _URLLIB3_PREFIX.sub("", text) or text


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text or type(error).__name__
