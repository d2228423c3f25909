"""What an offline run's registrations skip (the parts of the SDK's work only a deployment's engine reads) or reuse.

Each SDK function is wrapped once per process, and the wrapper does the SDK's work as is outside an offline run (a
context variable set by ``skip_unread_registration_work``, seen by the run's tasks), so other runs in the process,
and deployments, are untouched. Each shortcut gives the engine the same request; ``tests/testing`` checks each.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from pulumi import Output
from pulumi import _types as _sdk_types
from pulumi import log as _sdk_log
from pulumi import resource as _resource_module
from pulumi.runtime import resource as _runtime_resource
from pulumi.runtime import settings as _runtime_settings
from pulumi.runtime.proto import source_pb2

_OFFLINE_RUN: ContextVar[bool] = ContextVar("gpupools_offline_run", default=False)
_INSTALL = threading.Lock()


def skip_unread_registration_work() -> None:
    """In this context and the tasks it starts (one offline run), resources register without three things that
    mocks never read, the SDK's debug lines are dropped, and annotations are unwrapped once:

    - their stack trace (``runtime.resource._get_stack_trace``): the Python stack, source lines included, turned
      into source positions for the engine;
    - the URN form of their aliases (``pulumi.resource.collapse_alias_to_urn``, as ``Resource.__init__`` calls it):
      a chain of outputs read only by ``all_aliases``, which the SDK calls when the monitor lacks alias specs, and
      the offline monitor has them (``SafeMockMonitor``). The request's aliases come from the options
      (``prepare_aliases``), untouched;
    - the chains of outputs of URNs built from plain strings (``runtime.resource.create_urn``): each registration
      computes the URN a missing monitor would have answered, with six outputs; offline it is one known output of
      the same string.

    Debug lines are dropped where the SDK logs them (``pulumi.log.debug``, as the SDK's modules call it): the
    offline engine logger keeps warnings and errors only, and the SDK built a log request for each line first.

    It also reuses what ``pulumi._types.unwrap_type`` found for each annotation (``Output[T]`` to ``T``): a pure
    function of the annotation that the SDK asks again for every property of every resource it serializes.
    """
    with _INSTALL:
        _wrap(_runtime_resource, "_get_stack_trace", _without_stack_trace)
        _wrap(_resource_module, "collapse_alias_to_urn", _alias_as_given)
        _wrap(_runtime_resource, "create_urn", _urn_of_strings)
        _wrap(_sdk_types, "unwrap_type", _unwrapped_once)
        _wrap(_sdk_log, "debug", _debug_dropped)
    _OFFLINE_RUN.set(True)


def _wrap(module: Any, name: str, offline: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    """``module.name`` replaced by ``offline(original)``, once."""
    original = getattr(module, name)
    if not getattr(original, "gpupools_offline", False):
        wrapper = offline(original)
        setattr(wrapper, "gpupools_offline", True)
        setattr(module, name, wrapper)


def _without_stack_trace(original: Callable[..., Any]) -> Callable[..., Any]:
    def stack_trace() -> Any:
        return source_pb2.StackTrace() if _OFFLINE_RUN.get() else original()

    return stack_trace


def _alias_as_given(original: Callable[..., Any]) -> Callable[..., Any]:
    def collapse(alias: Any, name: str, type_: str, parent: Any) -> Any:
        return alias if _OFFLINE_RUN.get() else original(alias, name, type_, parent)

    return collapse


def _urn_of_strings(original: Callable[..., Any]) -> Callable[..., Any]:
    def create_urn(name: Any, type_: Any, parent: Any = None, project: Any = None, stack: Any = None) -> Any:
        strings = type(name) is str and type(type_) is str
        if not (_OFFLINE_RUN.get() and strings and all(v is None or type(v) is str for v in (parent, project, stack))):
            return original(name, type_, parent, project, stack)
        # The SDK's own rule, on the same strings (``runtime.resource.create_urn``).
        if parent is not None:
            prefix = parent[0 : parent.rfind("::")] + "$"
        else:
            stack = stack if stack is not None else _runtime_settings.get_stack()
            project = project if project is not None else _runtime_settings.get_project()
            prefix = "urn:pulumi:" + stack + "::" + project + "::"
        return Output.from_input(prefix + type_ + "::" + name)

    return create_urn


def _debug_dropped(original: Callable[..., Any]) -> Callable[..., Any]:
    def debug(msg: str, resource: Any = None, stream_id: Any = None, ephemeral: Any = None) -> None:
        if not _OFFLINE_RUN.get():
            original(msg, resource, stream_id, ephemeral)

    return debug


def _unwrapped_once(original: Callable[..., Any]) -> Callable[..., Any]:
    found: dict[Any, Any] = {}

    def unwrap_type(annotation: Any) -> Any:
        if not _OFFLINE_RUN.get():
            return original(annotation)
        try:
            return found[annotation]
        except KeyError:
            found[annotation] = unwrapped = original(annotation)
            return unwrapped
        except TypeError:  # an unhashable annotation: asked anew
            return original(annotation)

    return unwrap_type
