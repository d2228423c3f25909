"""Run a Pulumi program offline under ``RecordingMocks`` and get back what it registered and exported.

Each run happens on its own thread. A new thread starts with an empty ``contextvars`` context, and
every piece of Pulumi runtime state (settings, monitor, root stack, config) lives in context
variables, so a run sees none of the caller's Pulumi state and leaves none behind. The thread also gets
its own event loop, closed at the end, so no future outlives its loop and the caller may itself be inside
a running loop. That is what makes ``run_program`` safe to call many times in one process.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import runpy
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pulumi
from pulumi.runtime import set_all_config

from ..pulumi_internals import reset_run_state, run_program_function, skip_unread_registration_work, stack_exports
from .program_errors import ProgramExited
from .mocks import SECRET, UNKNOWN, RecordedCall, RecordedResource, RecordingMocks, SafeMockMonitor

Program = Callable[[], None] | str | Path


@dataclass(frozen=True)
class ProgramRun:
    """What one run registered (in the monitor's order), exported and logged."""

    resources: list[RecordedResource]
    outputs: dict[str, Any]
    calls: list[RecordedCall]
    errors: list[str]
    warnings: list[str]


class _LoopPerThreadExecutor(ThreadPoolExecutor):
    """The run's executor. Its threads each own an event loop, closed on shutdown.

    Pulumi runs monitor RPCs on executor threads, and the mock monitor's ``_sync_await`` creates a loop
    on any thread without one and never closes it (``ResourceWarning: unclosed event loop``).
    """

    def __init__(self) -> None:
        self._loops: list[asyncio.AbstractEventLoop] = []
        super().__init__(thread_name_prefix="pulumi-mock-rpc", initializer=self._new_loop)

    def _new_loop(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loops.append(loop)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        super().shutdown(wait, cancel_futures=cancel_futures)
        for loop in self._loops:
            loop.close()


class _EngineLog(logging.Handler):
    """Collects what the program sends to the engine with ``pulumi.log.error`` and ``pulumi.log.warn``."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        (self.errors if record.levelno >= logging.ERROR else self.warnings).append(record.getMessage())


def run_program(
    program: Program,
    *,
    project: str,
    stack: str,
    config: dict[str, Any],
    secret_keys: Iterable[str] = (),
    mocks: RecordingMocks | None = None,
) -> ProgramRun:
    """Runs ``program`` as ``pulumi preview`` would, against mocks; exceptions from the program propagate.

    ``program`` is a callable, a Python file, or a directory with ``__main__.py`` (the directory goes on
    ``sys.path`` so the program's sibling modules import, and they are re-imported on every run). A file or
    folder program's ``sys.exit(0)`` ends it as a return; another status is a ``ProgramExited`` raised there.
    ``config`` keys are full (``"gpupools:cloud"``); a bare key gets ``project:`` in front, as
    ``pulumi config set`` does. Non-string values reach Pulumi as JSON text, so ``get_object``,
    ``get_int`` and ``get_bool`` read them back. Keys in ``secret_keys`` are marked secret.
    """
    mocks = mocks if mocks is not None else RecordingMocks()
    full_config = {_full_key(key, project): _config_text(value) for key, value in config.items()}
    secrets = [_full_key(key, project) for key in secret_keys]
    first_resource, first_call = len(mocks.resources), len(mocks.calls)
    log = _EngineLog()
    result: dict[str, Any] = {}

    def quiet_reported_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        # A failed registration also fails every output future of the resource, and each resource built on it
        # fails in turn, wrapping the error it was raised from; the caller gets the error raised (or the check of
        # ours that caused it all), so asyncio need not print it again for each future nobody awaited.
        raised = {id(error) for error in _chain(result.get("error"))}
        if not any(id(error) in raised for error in _chain(context.get("exception"))):
            loop.default_exception_handler(context)

    async def main() -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(quiet_reported_error)
        loop.set_default_executor(_LoopPerThreadExecutor())
        try:
            return await _run_in_loop(_as_callable(program), mocks, project, stack, full_config, secrets, log)
        except BaseException as error:
            result["error"] = error  # known before asyncio.run's cleanup collects the failed futures
            raise

    def thread_main() -> None:
        # asyncio.run also cancels whatever the program left pending, shuts the executor down and closes the loop.
        try:
            result["outputs"] = asyncio.run(main())
        except BaseException as error:  # noqa: BLE001 handed to the calling thread, which re-raises it
            result["error"] = error

    thread = threading.Thread(target=thread_main, name=f"pulumi-mock-{project}-{stack}")
    with _collector_paused():
        thread.start()
        thread.join()
    if "error" in result:
        raise result["error"]
    return ProgramRun(
        resources=mocks.resources[first_resource:],
        outputs=result["outputs"],
        calls=mocks.calls[first_call:],
        errors=log.errors,
        warnings=log.warnings,
    )


def _chain(error: BaseException | None) -> Iterator[BaseException]:
    """``error`` and the exceptions it was raised from or while handling."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


class _Pauses:
    """How many runs are in progress, and whether the collector was on before the first of them."""

    lock = threading.Lock()
    active = 0
    was_enabled = False


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while any run is in progress, then as it was.

    A run makes tens of thousands of short-lived tasks and outputs, and they set off full collections of every object
    the SDKs created on import: 4 of them, half a second, in a cold 50-pool EKS plan. What a run leaves in cycles
    (about 40,000 objects at 50 pools, no more peak memory) waits for the next collection after it.

    Before the collector is back on, what is alive is moved to the oldest generation (``freeze`` then ``unfreeze``).
    Left young, everything the run allocated, the SDK modules it imported among it, would be walked by the first
    young collection after the run and again by the next middle one: 172 and 113 ms in a cold 50-pool AKS plan,
    more the more pools. In the oldest generation it waits for the next full collection (a CLI's is at exit); the
    whole `plan` process of 50 AKS pools takes 0.25 s less CPU (min of 5).
    """
    with _Pauses.lock:
        if _Pauses.active == 0:
            _Pauses.was_enabled = gc.isenabled()
            gc.disable()
        _Pauses.active += 1
    try:
        yield
    finally:
        with _Pauses.lock:
            _Pauses.active -= 1
            if _Pauses.active == 0 and _Pauses.was_enabled:
                gc.freeze()
                gc.unfreeze()
                gc.enable()


async def _run_in_loop(
    program: Callable[[], None],
    mocks: RecordingMocks,
    project: str,
    stack: str,
    config: dict[str, str],
    secret_keys: list[str],
    log: _EngineLog,
) -> dict[str, Any]:
    """Installs fresh runtime state in this (new, empty) context, runs the program, resolves the exports."""
    set_all_config(config, secret_keys)
    reset_run_state()  # set_mocks leaves some settings alone; fresh ones keep runs from sharing tasks or caches
    skip_unread_registration_work()  # stack traces, alias URNs, debug lines: mocks read none of them
    # Unregistered: nothing propagates to root. At WARNING, as its one handler: the SDK logs several debug lines per
    # resource, and a logger at NOTSET builds a record for each one only for the handler to drop it.
    engine_logger = logging.Logger("gpupools.offline_runtime.engine", logging.WARNING)
    engine_logger.addHandler(log)
    pulumi.runtime.set_mocks(
        mocks, project=project, stack=stack, preview=True, logger=engine_logger, monitor=SafeMockMonitor(mocks)
    )
    await run_program_function(program)
    exports = stack_exports()
    return {name: await _resolve(value) for name, value in exports.items()}


async def _resolve(value: Any) -> Any:
    """Plain value of an export, with secrets as ``"[secret]"`` and preview unknowns as ``"[unknown]"``."""
    if isinstance(value, pulumi.Output):
        if await value.is_secret():
            return SECRET
        if not await value.is_known():
            return UNKNOWN
        return await _resolve(await value.future())
    if isinstance(value, dict):
        return {key: await _resolve(item) for key, item in value.items()}
    if isinstance(value, list):
        return [await _resolve(item) for item in value]
    return value


def _as_callable(program: Program) -> Callable[[], None]:
    """A callable program as is; a file or directory run with ``runpy`` as ``__main__``."""
    if callable(program):
        return program
    path = Path(program).resolve()
    directory = path if path.is_dir() else path.parent

    def run_path() -> None:
        before = set(sys.modules)
        sys.path.insert(0, str(directory))
        try:
            runpy.run_path(str(path), run_name="__main__")
        except SystemExit as stop:  # the program's end, not the caller's: exit 0 ends it well, any other fails it
            if stop.code not in (None, 0):
                raise ProgramExited(stop.code).with_traceback(stop.__traceback__) from None
        finally:
            sys.path.remove(str(directory))
            for name in set(sys.modules) - before:
                top = name.partition(".")[0]
                if (directory / f"{top}.py").exists() or (directory / top / "__init__.py").exists():
                    del sys.modules[name]

    return run_path


def _full_key(key: str, project: str) -> str:
    return key if ":" in key else f"{project}:{key}"


def _config_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def dump_resources(run: ProgramRun) -> list[dict[str, Any]]:
    """JSON-ready ``{type, name, parent, inputs}`` per resource, for snapshots and reading.

    Resources come in tree order (each parent before its children, siblings by type and name) so the
    dump is stable however the monitor's threads interleaved, and keys inside inputs and options are
    sorted, so the same program dumps byte-identical JSON run after run. ``parent`` is the parent's logical name
    (None under the stack); whole floats become ints. ``options`` (replaceOnChanges, deleteBeforeReplace,
    ignoreChanges, protect, dependencies, providers, ...) is there only when the resource set any.
    """
    by_urn = {resource.urn: resource for resource in run.resources}

    def tree_path(resource: RecordedResource) -> tuple[tuple[str, str], ...]:
        parent = by_urn.get(resource.parent or "")
        return (tree_path(parent) if parent else ()) + ((resource.type, resource.name),)

    return [
        {
            "type": resource.type,
            "name": resource.name,
            "parent": by_urn[resource.parent].name if resource.parent in by_urn else None,
            "inputs": _plain(resource.inputs),
            **({"options": _plain(resource.options)} if resource.options else {}),
        }
        for resource in sorted(run.resources, key=tree_path)
    ]


def _plain(value: Any) -> Any:
    """JSON-ready and canonical: whole floats as ints, mapping keys sorted (lists keep their order).

    Inputs reach the mocks through protobuf ``Struct`` maps, whose key order changes from run to run.
    """
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _plain(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value
