"""The one registry of clouds: ``cloud(name)`` is the only way code outside a cloud's own modules learns what differs
by cloud. A new cloud registers its ``Cloud`` here (``register``), and each layer's per-cloud module attaches its
facets to the same object (``docs/architecture.md``, "A cloud").
"""

from __future__ import annotations

from datetime import date

from .aws_cloud import AWS
from .azure_cloud import AZURE
from .cloud import Cloud, CloudNotSupported, KubernetesOffer, SizeNaming
from .kubernetes_versions import default_minor

_CLOUDS: dict[str, Cloud] = {}


def register(new: Cloud) -> Cloud:
    """Add ``new`` (a name not taken yet) and return it, for its layers to attach facets to."""
    if new.name in _CLOUDS:
        raise ValueError(f"cloud {new.name!r} is already registered")
    _CLOUDS[new.name] = new
    return new


def unregister(name: str) -> None:
    """Remove a cloud registered by a test."""
    _CLOUDS.pop(name, None)


def cloud(name: str) -> Cloud:
    """The registered cloud called ``name``; ``CloudNotSupported`` for any other."""
    found = _CLOUDS.get(name)
    if found is None:
        raise CloudNotSupported(f"cloud {name[:40]!r} is not supported; allowed: {', '.join(_CLOUDS)}")
    return found


def cloud_names() -> tuple[str, ...]:
    """Every registered cloud's name, in registration order."""
    return tuple(_CLOUDS)


def clouds() -> tuple[Cloud, ...]:
    return tuple(_CLOUDS.values())


def default_kubernetes_version(name: str, day: date) -> str | None:
    """The default ``kubernetesVersion`` of cloud ``name`` on ``day`` (``kubernetes_versions.default_minor``), or
    None when it offers no Kubernetes versions or none is in standard support that day."""
    found = _CLOUDS.get(name)
    if found is None or not found.has(KubernetesOffer):
        return None
    return default_minor(dict(found.facet(KubernetesOffer).minors), day)


def cloud_of_size_name(name: str) -> str:
    """The cloud whose size names ``name`` is spelled like: the longest matching prefix (Azure's ``Standard_``);
    EC2 instance types carry none, so anything else is taken for one."""
    spelled = [(c.facet(SizeNaming).prefix, c.name) for c in _CLOUDS.values() if c.has(SizeNaming)]
    for prefix, owner in sorted(spelled, key=lambda p: -len(p[0])):
        if name.startswith(prefix):
            return owner
    raise CloudNotSupported(f"no cloud spells a node size like {name[:80]!r}")


register(AZURE)
register(AWS)
