"""The hostile catalogue's ``verify`` cases: a DRA stack's node against hostile ResourceSlices from the fake
Kubernetes API (``support.fake_kube_api``): a pool missing a slice, escapes in names, a list that is not one, deep
nesting, a list of tens of MB, a server that never answers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from support import hostile_catalogue as k
from support.dra_stacks import AKS_MIG1G_134
from support.hostile_catalogue import Case

DRA_STACK = AKS_MIG1G_134
NODE = "aks-mig1g-31415926-vmss000000"
VERIFY = ["verify", "--config", "{dir}/project/Pulumi.dra.yaml", "--kubeconfig", "{dir}/kubeconfig", "--timeout", "5"]


def _dra_stack(where: Path) -> dict[str, str]:
    folder = where / "project"
    folder.mkdir(parents=True, exist_ok=True)
    config = {f"gpupools:{key}": value for key, value in DRA_STACK.items()}
    (folder / "Pulumi.dra.yaml").write_text(yaml.safe_dump({"config": config}))
    return {}


def _cluster(slices: Callable[[], list[dict]]) -> Callable[[Any], None]:
    """An AKS DRA node with the kubelet plugin running and ``slices`` published."""

    def kube(api: Any) -> None:
        from support.dra_slices import node_slice  # noqa: F401  (the slices' module, for the callers)
        from support.fake_kube_api import aks_node, daemonset, daemonset_pod

        ns, plugin = "dra-driver-nvidia-gpu", "dra-driver-nvidia-gpu-kubelet-plugin"
        labels = {"app.kubernetes.io/name": ns, "app.kubernetes.io/instance": ns}
        api.nodes = [aks_node(NODE, "mig1g", None)]
        api.daemonsets[ns] = [daemonset(ns, plugin, labels, {"dra-driver-nvidia-gpu-component": "kubelet-plugin"})]
        api.pods[ns] = [daemonset_pod(ns, plugin, NODE, labels)]
        api.resource_slices = slices()

    return kube


def _slice(**change: Any) -> dict:
    from support.dra_slices import node_slice

    piece = node_slice(NODE, 8, "NVIDIA A100-SXM4-40GB", 40, {"1g.5gb": 7}, {"1g.5gb": 5})
    piece["spec"]["pool"].update(change)
    return piece


def _escaped_slice() -> list[dict]:
    piece = _slice()
    piece["metadata"]["name"] = "x\x1b[2J\u009b"
    piece["spec"]["devices"][0]["name"] = "gpu-0\x1b]0;pwn\x07"
    return [piece]


def _many_slices() -> list[dict]:
    """About 25 MB: the node's slice and 3,000 of other nodes, each with 56 devices."""
    other = [_slice() for _ in range(3000)]
    for n, piece in enumerate(other):
        piece["spec"]["nodeName"] = piece["spec"]["pool"]["name"] = f"other-{n}"
    return [_slice(), *other]


def verify_cases() -> list[Case]:
    def documents(path: str, body: Any) -> Callable[[Any], None]:
        return lambda api: (_cluster(lambda: [_slice()])(api), api.documents.__setitem__(path, body))

    slices = "/apis/resource.k8s.io/v1/resourceslices"
    return [
        Case(
            "all slices published",
            "verify",
            VERIFY,
            _dra_stack,
            kube=_cluster(lambda: [_slice()]),
            codes=frozenset({0}),
        ),
        Case(
            "one of two slices",
            "verify",
            [*VERIFY[:-1], "2"],  # waits for the missing slice until the timeout
            _dra_stack,
            kube=_cluster(lambda: [_slice(resourceSliceCount=2)]),
            codes=frozenset({3}),  # a mismatch (1 is a bug of ours)
        ),
        Case(
            "slice names with ESC",
            "verify",
            VERIFY,
            _dra_stack,
            kube=_cluster(_escaped_slice),
            codes=frozenset({0, 2, 3}),
        ),
        Case("slices not a list", "verify", VERIFY, _dra_stack, kube=documents(slices, {"items": "x"}), says="items"),
        Case("slices 100000 deep", "verify", VERIFY, _dra_stack, kube=_raw_slices(k.nested(100_000))),
        Case(
            "slice list 25 MB",
            "verify",
            VERIFY,
            _dra_stack,
            kube=_cluster(_many_slices),
            codes=frozenset({0, 2, 3}),
            slow=True,
        ),
        Case(
            "server never answers",
            "verify",
            VERIFY,
            _dra_stack,
            kube=_silent_nodes,
            slow=True,
        ),
    ]


def _silent_nodes(api: Any) -> None:
    """The cluster answers its version, then never answers the node list."""
    _cluster(lambda: [_slice()])(api)
    api.raw["/api/v1/nodes"] = lambda handler: api.stopped.wait(30)


def _raw_slices(body: bytes) -> Callable[[Any], None]:
    def send(handler: Any) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def kube(api: Any) -> None:
        _cluster(lambda: [_slice()])(api)
        api.raw["/apis/resource.k8s.io/v1/resourceslices"] = send

    return kube
