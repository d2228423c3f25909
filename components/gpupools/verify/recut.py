"""What a node's ``nvidia.com/mig.config.state=failed`` means after a layout change, and what to do about it.

The GPU Operator's MIG manager sets ``failed`` when a step of the cut fails (NVIDIA/mig-parted v0.15.0
``pkg/mig/reconfigure/reconfigure.go`` ``Run``), most often because a GPU pod still runs on the node (NVIDIA's
gpu-operator-mig docs: "MIG Manager requires that no user workloads are running on the GPUs being configured").
It does not try again by itself: after an error it waits for the next change of the node's ``nvidia.com/mig.config``
label, and it applies the label when its pod starts (``cmd/nvidia-mig-manager/main.go`` ``start``). Meanwhile the
workloads' selector ``nvidia.com/mig.config.state: success`` no longer matches the node.
"""

from __future__ import annotations

from ..catalog.labels import MIG_CONFIG_STATE_LABEL, MIG_CONFIG_STATE_READY


def failed_recut(node: str, layout: str | None) -> str:
    """The mismatch's ``got`` for a node whose cut failed: what failed, why it usually does, and the way out."""
    to = f" to {layout}" if layout else ""
    return (
        f"failed: the re-cut{to} failed (usually a GPU pod still ran on the node), so pods selecting "
        f"{MIG_CONFIG_STATE_LABEL}={MIG_CONFIG_STATE_READY} no longer land on it; drain it "
        f"(kubectl drain {node} --ignore-daemonsets --delete-emptydir-data), then delete its nvidia-mig-manager pod "
        "so the MIG manager cuts it again when it starts"
    )
