"""Every use the package makes of the Pulumi SDK's private parts, in one module, each with why.

The documented SDK is ``pulumi.__all__``, ``pulumi.runtime.__all__`` (less its ``rpc`` submodule, whose functions
are undocumented) and ``pulumi.provider.experimental.__all__``. Anything else may change in any SDK release, so it
is reached only from here (``tests/release/test_pulumi_internals.py`` fails if another module touches it), and the
SDK versions this module was checked against are ``CHECKED_PULUMI_VERSIONS``: the same test fails on any other
installed version, and ``pyproject.toml``'s ``pulumi`` range says exactly these. To check a new SDK version, read
each use below against its source, run ``tests/apps/test_mock_runner.py`` and the golden outputs, then add it.

The offline runtime (``gpupools.offline_runtime``, what ``gpupools plan`` and ``gpupools.testing`` run programs with):

- ``pulumi.runtime.mocks.MockMonitor``: the base of ``SafeMockMonitor``. ``set_mocks(monitor=...)`` takes one,
  but the class is not exported. Relied on: its ``mocks`` and ``resources`` attributes, ``ResourceRegistration``,
  ``GetDeploymentInfo``, and that the SDK calls the monitor by the gRPC method names (``RegisterResource``,
  ``ReadResource``, ``Call``, ``SupportsFeature``). ``MockMonitorBase`` below names the private parts.
- ``pulumi.runtime.mocks._resolve_callbacks``: turns a request's transform references into the callables
  ``MockResourceArgs(transforms=...)`` takes, as the stock ``RegisterResource`` does.
- ``pulumi.runtime.sync_await._sync_await`` with ``rpc.serialize_properties``: serialises a mock's answer to the
  wire on the monitor's executor thread, as the stock monitor does (``to_wire``), when it holds more than plain
  JSON values; relied on: those pass through it unchanged, but for top-level ``None``s dropped.
- ``pulumi.runtime.rpc.deserialize_properties``, ``is_rpc_secret``, ``UNKNOWN`` and ``pulumi.output.Unknown``:
  read a request's properties, and tell a secret or a preview unknown in them (``from_wire``, ``is_secret``,
  ``is_unknown``).
- ``pulumi.runtime.proto`` (``provider_pb2``, ``resource_pb2``): the messages the monitor answers with.
- ``pulumi.runtime.settings.SETTINGS.outputs``, ``.package_refs``, ``.base_providers_by_ref``: ``set_mocks``
  leaves them alone, so each run gets fresh ones and shares no pending task or cache (``reset_run_state``).
- ``pulumi.runtime.stack.run_pulumi_func``: runs the program and waits for its RPCs as the language host does
  (``run_program_function``).
- ``pulumi.runtime.settings._get_rpc_manager().rpcs`` and ``SETTINGS.outputs``: the RPCs and outputs still pending
  when the program returns, which ``run_program_function`` lets finish before ``run_pulumi_func``'s own wait. That
  wait calls ``asyncio.wait(FIRST_COMPLETED)`` over every pending output again each time one finishes, dozens of
  times per plan over thousands of outputs: a third of the plan's per-pool time (``settle``).
- In ``registration_shortcuts`` (``skip_unread_registration_work``), each wrapped in an offline run only:
  ``pulumi.runtime.resource._get_stack_trace`` (the Python stack of each registration, turned into source positions
  for the engine; mocks read none: a tenth of the plan's time per pool), ``pulumi.resource.collapse_alias_to_urn``
  with ``Resource._aliases`` (each alias as a URN, read only by ``runtime.resource.all_aliases`` when the monitor has
  no alias specs, and the offline monitor has them) and ``pulumi.runtime.resource.create_urn`` (relied on: its rule
  for plain strings, and that ``register_resource`` reads the URN it makes only when there is no monitor),
  ``pulumi._types.unwrap_type`` (relied on: a pure function of the annotation, asked per property serialized), and
  ``pulumi.log.debug`` (relied on: the SDK's modules call it as ``log.debug``; offline, the engine keeps no debug).
- ``pulumi.runtime.stack.massage`` and ``Stack.outputs``: the root stack's exports in the form the engine gets
  them (``stack_exports``).

The packaged program (``gpupools.platform.stack_config``):

- ``pulumi.runtime.config.CONFIG``: every config key the program was given. The public API reads one key at a
  time, and an unknown ``gpupools:`` key must be reported, so all keys are needed (``config_values``).

The components' argument checks (``gpupools.component_args.when_resolved``):

- ``Output.resources()``, ``Output.future()``, ``Output.is_known()`` (marked "private implementation details" in
  ``pulumi/output.py``): an output nested in a list or dict arg is handed on as an output that resolves only once
  the whole arg has been checked, with its own dependencies and its own secretness (``output_after``). The public
  ``apply``/``Output.all`` would make every item secret as soon as one is.

The provider (``gpupools.provider``), loaded lazily (``pulumi.provider.experimental`` costs ~60 ms to import):

- ``pulumi.provider.experimental.component.ComponentProvider`` (in ``provider_host``): the base of
  ``GpuPoolsProvider``, which rewrites its ``schema`` attribute with the finished schema.
- ``pulumi.provider.server.ComponentInitError`` and ``pulumi.errors.InputPropertyError`` (in ``provider_host``):
  what ``construct`` raises for a user's bad input; ``pulumi.provider.experimental.analyzer.PropertyType``: the
  types ``map_input_properties`` reads.
- ``pulumi.provider.experimental.analyzer.Analyzer`` and ``.schema.generate_schema``: the schema the provider
  serves, generated offline (``generate_component_schema``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from inspect import isawaitable
from typing import Any, cast

from google.protobuf import struct_pb2

from pulumi import Output
from pulumi.output import Unknown
from pulumi.runtime import config as _runtime_config
from pulumi.runtime import rpc
from pulumi.runtime import settings as _runtime_settings
from pulumi.runtime.mocks import MockMonitor, _resolve_callbacks
from pulumi.runtime.proto import provider_pb2, resource_pb2
from pulumi.runtime.settings import _get_rpc_manager
from pulumi.runtime.stack import Stack, massage, run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from ..errors import GpupoolsError
from .registration_shortcuts import skip_unread_registration_work

__all__ = [
    "CHECKED_PULUMI_VERSIONS",
    "MockMonitorBase",
    "output_after",
    "config_values",
    "from_wire",
    "generate_component_schema",
    "installed_pulumi_version",
    "is_secret",
    "is_unknown",
    "provider_pb2",
    "reset_run_state",
    "resolve_callbacks",
    "resource_pb2",
    "run_program_function",
    "skip_unread_registration_work",
    "stack_exports",
    "to_wire",
]

# Each SDK release every use above was read against and the offline tests (mock runner, own program, golden plans,
# provider schema) passed with, byte-identical plans included. Every release from the first to the last is here,
# and pyproject.toml allows exactly this span (>= the first, < the patch after the last). Between them: 3.271.0
# added ``ReadResourceResponse.id``, which neither the stock nor our monitor sets, so under it a read resource's id
# is unknown in preview (no plan shows one); 3.270.0's ``run_pulumi_func`` also waits out registrations the engine
# reported failed, which mocks never report.
CHECKED_PULUMI_VERSIONS = ("3.270.0", "3.271.0", "3.272.0")


def installed_pulumi_version() -> str:
    return version("pulumi")


class MockMonitorBase(MockMonitor):
    """The stock mock monitor, with the private parts a subclass needs given names of their own."""

    def remember(self, urn: str, id_: str | None, state: dict[str, Any]) -> None:
        """Records a resource as the stock monitor does, so ``Invoke`` and ``get_registered_resources`` see it."""
        self.resources[urn] = MockMonitor.ResourceRegistration(urn, cast(str, id_), state)  # as the stock one does

    def is_registered(self, urn: str) -> bool:
        return urn in self.resources

    def stock_features(self, request: Any) -> list[Any]:
        """The resource monitor features the stock monitor advertises."""
        return list(MockMonitor.GetDeploymentInfo(self, request).supportedFeatures)


def output_after(value: Output[Any], gate: Output[Any]) -> Output[Any]:
    """``value`` as an output that resolves once ``gate`` has (failing as it fails), keeping ``value``'s own
    dependencies, knownness and secretness: ``gate``'s secretness does not spread to it."""

    async def resolved() -> Any:
        await gate.future(with_unknowns=True)
        return await value.future(with_unknowns=True)

    # Tasks, not bare coroutines: when ``gate`` fails, the Output never awaits the other two.
    known, secret = asyncio.ensure_future(value.is_known()), asyncio.ensure_future(value.is_secret())
    return Output(asyncio.ensure_future(value.resources()), resolved(), known, secret)


def resolve_callbacks(transforms: Any) -> list[Any]:
    return _resolve_callbacks(transforms)


def to_wire(state: dict[str, Any]) -> Any:
    """A mock's answer as the protobuf ``Struct`` the SDK reads back.

    An answer of plain JSON values (what ``RecordingMocks`` returns: the request's own wire form plus computed
    strings) is built directly, without a loop: ``serialize_properties`` passes such values through unchanged but
    for dropping top-level ``None``s, and the ``Struct`` is the same bytes. Anything else (outputs, resources,
    assets, enums, tuples a user's mocks return) goes the SDK's way, serialised on this thread's loop."""
    if type(state) is dict and _plain_json(state):
        struct = struct_pb2.Struct()
        struct.update({key: value for key, value in state.items() if value is not None})
        return struct
    return _sync_await(rpc.serialize_properties(state, {}))


_JSON_SCALARS = frozenset({str, bool, int, float, type(None)})


def _plain_json(value: Any) -> bool:
    """Whether ``value`` is made of exactly dicts with string keys, lists and JSON scalars (no subclasses)."""
    kind = type(value)
    if kind in _JSON_SCALARS:
        return True
    if kind is dict:
        return all(type(key) is str and _plain_json(item) for key, item in value.items())
    if kind is list:
        return all(_plain_json(item) for item in value)
    return False


def from_wire(properties: Any) -> Any:
    return rpc.deserialize_properties(properties)


def is_secret(value: Any) -> bool:
    """Whether a wire-form value is a wrapped secret."""
    return bool(rpc.is_rpc_secret(value))


def is_unknown(value: Any) -> bool:
    """Whether a value is a preview unknown, in wire form (the sentinel) or deserialised."""
    return isinstance(value, Unknown) or value == rpc.UNKNOWN


def reset_run_state() -> None:
    """Fresh per-run settings ``set_mocks`` does not reset, so runs share no pending tasks or caches."""
    settings: Any = _runtime_settings.SETTINGS  # context properties, typed as their descriptors
    settings.outputs = set()
    settings.package_refs = {}
    settings.base_providers_by_ref = {}


def run_program_function(program: Callable[[], Any]) -> Awaitable[None]:
    """``run_pulumi_func(program)``, with what the program left pending finished first (``settle``).

    The SDK's own wait then finds everything done. When a check of ours failed, that failure is raised rather than
    whichever of its consequences the SDK's wait meets first (a registration quoting Python names and reprs)."""
    ours: list[BaseException] = []

    async def program_then_settle() -> None:
        result = program()
        if isawaitable(result):
            await result
        ours.extend(await settle())

    async def run() -> None:
        try:
            await run_pulumi_func(program_then_settle)
        except Exception:
            if ours:
                raise ours[0] from None
            raise

    return run()


async def settle() -> list[BaseException]:
    """Wait until every pending RPC and output has finished, or one has failed; the errors of ours among them.

    ``run_pulumi_func`` waits by calling ``asyncio.wait(FIRST_COMPLETED)`` over every pending output again each time
    one finishes: thousands of outputs, dozens of times per plan. Here each pass waits on the pending ones once
    (``FIRST_EXCEPTION``), so a plan costs one wait per output. A failure stops the wait; the failed outputs and RPCs
    that hold a ``GpupoolsError`` are returned, first the outputs, as they fail first.
    """
    rpc_manager = _get_rpc_manager()
    settings: Any = _runtime_settings.SETTINGS

    def tracked() -> list[asyncio.Future[Any]]:
        with settings.lock:  # the RPCs are typed as awaitables; do_rpc makes each a task (ensure_future)
            return [*settings.outputs, *cast(list[asyncio.Future[Any]], rpc_manager.rpcs)]

    while True:
        pending = [task for task in tracked() if not task.done()]
        if not pending:
            return []
        done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
        if any(not task.cancelled() and task.exception() is not None for task in done):
            failed = [task for task in tracked() if task.done() and not task.cancelled()]
            return [error for task in failed if isinstance(error := task.exception(), GpupoolsError)]


def stack_exports() -> dict[str, Any]:
    """The root stack's exports, made plain as the engine would receive them (outputs stay outputs).

    An export of plain JSON values is copied as it is: ``massage`` would rebuild it node by node to the same dicts
    and lists (a stack's per-pool exports, at 50 pools, are thousands of nodes); anything else goes through it."""
    outputs = cast(Stack, _runtime_settings.get_root_resource()).outputs
    return {name: _plain_copy(value) if _plain_json(value) else massage(value, []) for name, value in outputs.items()}


def _plain_copy(value: Any) -> Any:
    """A plain JSON value's dicts and lists copied, as ``massage`` returns new ones."""
    kind = type(value)
    if kind is dict:
        return {key: _plain_copy(item) for key, item in value.items()}
    if kind is list:
        return [_plain_copy(item) for item in value]
    return value


def config_values() -> dict[str, Any]:
    """Every config key the running program was given through the runtime (``set_all_config`` under mocks)."""
    return _runtime_config.CONFIG.get()


def generate_component_schema(package: str, package_version: str, components: list[type]) -> Any:
    """The package schema Pulumi's component provider would serve for ``components``, generated offline."""
    from pulumi.provider.experimental.analyzer import Analyzer
    from pulumi.provider.experimental.schema import generate_schema

    analyzed = Analyzer(package).analyze(components)
    return generate_schema(
        package,
        package_version,
        None,
        analyzed["component_definitions"],
        analyzed["type_definitions"],
        cast(Any, analyzed["dependencies"]),  # a set, passed as analysed (the SDK's own host sorts it first)
    )
