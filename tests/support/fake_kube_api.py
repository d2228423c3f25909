"""A tiny Kubernetes API server on 127.0.0.1 for ``verify`` tests: real HTTP, real JSON, no client mocking.

It serves ``/version``, ``/api/v1/nodes``, ``/api/v1/namespaces/<ns>/pods``,
``/apis/apps/v1/namespaces/<ns>/daemonsets`` and ``/apis/resource.k8s.io/v1/resourceslices`` from in-memory
objects, honouring equality-based ``labelSelector`` as the API server does. Node objects are shaped like those AKS
and EKS report.

It can also answer as a broken or hostile server: ``documents`` serves any JSON value at a path, ``raw``
hands the request to a function that writes whatever bytes it likes (or never answers), and ``failures``
answers the next requests with those status codes. ``stop()`` releases handlers that wait forever.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable
from urllib.parse import parse_qs, urlparse

NAMESPACED = re.compile(r"^/(?:api/v1|apis/apps/v1)/namespaces/(?P<ns>[^/]+)/(?P<kind>pods|daemonsets)$")
LIST_KINDS = {
    "nodes": "NodeList",
    "pods": "PodList",
    "daemonsets": "DaemonSetList",
    "resourceslices": "ResourceSliceList",
}
RESOURCE_SLICES = "/apis/resource.k8s.io/v1/resourceslices"


def selector_matches(selector: str, labels: dict[str, str]) -> bool:
    """Equality-based label selectors: ``k=v``, ``k==v``, ``k!=v``, ``k``, ``!k``, comma-separated (AND)."""
    for term in filter(None, (part.strip() for part in selector.split(","))):
        if "!=" in term:
            key, value = term.split("!=", 1)
            if labels.get(key) == value:
                return False
        elif "=" in term:
            key, value = term.replace("==", "=").split("=", 1)
            if labels.get(key) != value:
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


class FakeKubeApi:
    """Cluster state plus the server that serves it; tests edit ``nodes``, ``pods``, ``daemonsets`` directly."""

    def __init__(self) -> None:
        self.nodes: list[dict] = []
        self.pods: dict[str, list[dict]] = {}
        self.daemonsets: dict[str, list[dict]] = {}
        self.resource_slices: list[dict] = []
        self.version = {"major": "1", "minor": "33", "gitVersion": "v1.33.2", "platform": "linux/amd64"}
        self.requests: list[str] = []
        self.forbidden: set[str] = set()
        self.headers: list[dict[str, str]] = []
        self.documents: dict[str, object] = {}
        self.raw: dict[str, Callable[[BaseHTTPRequestHandler], None]] = {}
        self.failures: list[int] = []
        self.stopped = threading.Event()
        # Called with the number of node lists served so far, before serving the next one.
        self.before_node_list: Callable[[int], None] | None = None
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        # A short poll keeps shutdown() (each test's teardown) at milliseconds instead of half a second.
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FakeKubeApi":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()
        self._server.shutdown()
        self._server.server_close()

    def node_lists(self) -> int:
        return sum(1 for path in self.requests if path == "/api/v1/nodes")

    def write_kubeconfig(self, path: Path) -> Path:
        path.write_text(kubeconfig_for(self.url), encoding="utf-8")
        return path

    def respond(self, path: str, query: dict[str, list[str]]) -> tuple[int, object]:
        with self._lock:
            self.requests.append(path)
            if self.failures:
                code = self.failures.pop(0)
                return code, _status(code, "Failure", f"failing with {code} as told")
            if path in self.documents:
                return 200, self.documents[path]
            if path in self.forbidden:
                return 403, _status(403, "Forbidden", f"nodes is forbidden: cannot list resource at {path}")
            if path in ("/version", "/version/"):  # the API server answers both; the client asks for the second
                return 200, self.version
            if path == "/api/v1/nodes":
                if self.before_node_list is not None:
                    self.before_node_list(self.node_lists() - 1)
                return 200, _list("nodes", self.nodes, query)
            if path == RESOURCE_SLICES:
                return 200, _list("resourceslices", self.resource_slices, query)
            match = NAMESPACED.match(path)
            if match:
                store = self.pods if match["kind"] == "pods" else self.daemonsets
                return 200, _list(match["kind"], store.get(match["ns"], []), query)
            return 404, _status(404, "NotFound", "the server could not find the requested resource")

    def _handler(self):
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                url = urlparse(self.path)
                with api._lock:
                    api.headers.append(dict(self.headers.items()))
                if url.path in api.raw:
                    with api._lock:
                        api.requests.append(url.path)
                    api.raw[url.path](self)
                    return
                status, body = api.respond(url.path, parse_qs(url.query))
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args) -> None:  # keep test output clean
                pass

        return Handler


def _list(kind: str, items: list[dict], query: dict[str, list[str]]) -> dict:
    """Filter by ``labelSelector``; page by ``limit`` and ``continue`` (here simply the offset of the next item)."""
    selector = (query.get("labelSelector") or [""])[0]
    chosen = [item for item in items if selector_matches(selector, item["metadata"].get("labels") or {})]
    start = int((query.get("continue") or ["0"])[0])
    limit = int((query.get("limit") or [str(len(chosen) or 1)])[0])
    metadata = {"resourceVersion": "4242"}
    if start + limit < len(chosen):
        metadata["continue"] = str(start + limit)
    api_version = {"daemonsets": "apps/v1", "resourceslices": "resource.k8s.io/v1"}.get(kind, "v1")
    return {
        "kind": LIST_KINDS[kind],
        "apiVersion": api_version,
        "metadata": metadata,
        "items": chosen[start : start + limit],
    }


def _status(code: int, reason: str, message: str) -> dict:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


def kubeconfig_for(server: str) -> str:
    """A kubeconfig for plain http without auth, as ``kubectl config view`` would print it."""
    return (
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: fake\n  cluster:\n    server: {server}\n"
        "users:\n- name: fake\n  user: {}\n"
        "contexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\n"
        "current-context: fake\n"
    )


# Nodes as AKS and EKS report them (labels and status.allocatable strings), plus the pool label gpupools sets.


def aks_node(
    name: str, pool: str, gpus: str | None, size: str = "Standard_ND96asr_v4", extra_labels: dict | None = None
) -> dict:
    allocatable = {
        "cpu": "95690m",
        "ephemeral-storage": "119703055367",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": "928798572Ki",
        "pods": "110",
    }
    if gpus is not None:
        allocatable["nvidia.com/gpu"] = gpus
    labels = {
        "agentpool": pool,
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/instance-type": size,
        "beta.kubernetes.io/os": "linux",
        "kubernetes.azure.com/accelerator": "nvidia",
        "kubernetes.azure.com/agentpool": pool,
        "kubernetes.azure.com/cluster": "MC_gpu-dev-rg_gpu-dev_southcentralus",
        "kubernetes.azure.com/mode": "user",
        "kubernetes.azure.com/node-image-version": "AKSUbuntu-2204gen2containerd-202508.20.1",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": size,
        "topology.kubernetes.io/region": "southcentralus",
        "topology.kubernetes.io/zone": "0",
        "gpupools.io/pool": pool,
        "nvidia.com/gpu.present": "true",
        **(extra_labels or {}),
    }
    return _node(name, labels, allocatable)


def eks_node(
    name: str, node_group: str, slices: dict[str, str], mig_state: str | None = "success", layout: str = "all-balanced"
) -> dict:
    allocatable = {
        "cpu": "95690m",
        "ephemeral-storage": "246305030010",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": "1176415232Ki",
        "pods": "737",
        "nvidia.com/gpu": "0",
        **slices,
    }
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/instance-type": "p4d.24xlarge",
        "beta.kubernetes.io/os": "linux",
        "eks.amazonaws.com/capacityType": "ON_DEMAND",
        "eks.amazonaws.com/nodegroup": node_group,
        "eks.amazonaws.com/nodegroup-image": "ami-0a1b2c3d4e5f67890",
        "k8s.io/cloud-provider-aws": "a1b2c3d4e5f6",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": "p4d.24xlarge",
        "topology.kubernetes.io/region": "us-east-1",
        "topology.kubernetes.io/zone": "us-east-1a",
        "gpupools.io/pool": node_group,
        "nvidia.com/gpu.present": "true",
        "nvidia.com/gpu.deploy.mig-manager": "true",
        "nvidia.com/mig.config": layout,
        "nvidia.com/mig.capable": "true",
        "nvidia.com/mig.strategy": "mixed",
    }
    if mig_state is not None:
        labels["nvidia.com/mig.config.state"] = mig_state
    return _node(name, labels, allocatable)


def _node(name: str, labels: dict, allocatable: dict) -> dict:
    return {
        "kind": "Node",
        "apiVersion": "v1",
        "metadata": {"name": name, "uid": f"uid-{name}", "labels": labels, "resourceVersion": "4242"},
        "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
        "status": {
            "capacity": dict(allocatable),
            "allocatable": allocatable,
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
        },
    }


def daemonset(namespace: str, name: str, labels: dict[str, str], selector: dict[str, str]) -> dict:
    return {
        "kind": "DaemonSet",
        "apiVersion": "apps/v1",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-ds-{name}", "labels": labels},
        "spec": {"selector": {"matchLabels": selector}, "template": {"metadata": {"labels": selector}}},
        "status": {"desiredNumberScheduled": 1, "numberReady": 1},
    }


def daemonset_pod(namespace: str, owner: str, node: str, labels: dict[str, str], ready: bool = True) -> dict:
    suffix = abs(hash((owner, node))) % 100000
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {
            "name": f"{owner}-{suffix:05d}",
            "namespace": namespace,
            "labels": labels,
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "DaemonSet",
                    "name": owner,
                    "uid": f"uid-ds-{owner}",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {"nodeName": node},
        "status": {
            "phase": "Running",
            "conditions": [
                {"type": "Initialized", "status": "True"},
                {"type": "Ready", "status": "True" if ready else "False"},
                {"type": "ContainersReady", "status": "True" if ready else "False"},
                {"type": "PodScheduled", "status": "True"},
            ],
        },
    }
