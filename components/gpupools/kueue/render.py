"""Kubernetes objects as one multi-document YAML stream, ready for ``kubectl apply -f -``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml


def render_yaml(objects: Sequence[dict[str, Any]]) -> str:
    """Each object a ``---`` document, keys in the order written (apiVersion, kind, metadata, spec)."""
    return yaml.safe_dump_all(list(objects), sort_keys=False, explicit_start=True, default_flow_style=False)
