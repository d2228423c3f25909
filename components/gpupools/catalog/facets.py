"""Typed facets a higher layer attaches to a catalog object (an installer, a node provisioner), so no module
compares the object's name: it asks the object for the behaviour a layer gave it, and one that was never given
raises the object's own ``Unsupported...`` error instead of falling through to another object's path."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar, cast

from ..errors import GpupoolsError

F = TypeVar("F")


class Capability(Generic[F]):
    """A typed key for one facet a layer attaches to a catalog object: ``Capability[ValuesBuilder]("chart values")``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Capability({self.name!r})"


@dataclass(eq=False)
class Faceted:
    """A named catalog object with the facets the higher layers attach (``attach``/``facet``)."""

    # What the subclass is called in the error for a missing facet, and that error's type.
    kind: ClassVar[str]
    unsupported: ClassVar[type[GpupoolsError]]

    name: str
    _facets: dict[Capability[Any], object] = field(default_factory=dict, repr=False, init=False)

    def attach(self, capability: Capability[F], facet: F) -> None:
        """Give this object ``capability`` (a layer's module does it at import; again on reload is fine)."""
        self._facets[capability] = facet

    def supports(self, capability: Capability[F]) -> bool:
        return capability in self._facets

    def facet(self, capability: Capability[F]) -> F:
        """The facet attached for ``capability``; the subclass's ``unsupported`` error when there is none."""
        try:
            return cast(F, self._facets[capability])
        except KeyError:
            raise self.unsupported(f"{capability.name} is not supported by {self.kind} {self.name}") from None
