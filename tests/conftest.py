"""Markers from the folder a test lives in, so a layer's tests run alone: ``pytest -m pure`` is the inner loop.

The folders follow the package's layers: catalog -> config -> domain -> charts -> resolve are ``pure`` (no
helm, no packaging, no program or component run under Pulumi's mocks: such a test goes to the folder of the
layer it runs, tests/components, platform or plan); components, platform
and one folder per entry-point package (cli, plan, verify, price_lists, provider, testing) are ``program``;
``render`` runs the real charts through helm, and ``release`` builds and checks what is shipped. The shared
helpers are the ``support`` package (``tests/`` is on ``sys.path`` through pytest's ``pythonpath``). A test
module directly in ``tests/`` or in a folder not named here is a collection error: put it in the folder of
the package or layer it tests.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
# Plans price pools from the packaged snapshot, never from a price cache this machine may have.
os.environ["GPUPOOLS_PRICE_CACHE"] = str(TESTS / "no-price-cache.json")
os.environ["GPUPOOLS_OFFERS_CACHE"] = str(TESTS / "no-offers-cache.json")  # and offers from the packaged snapshot
# Plans compare dated facts (Kubernetes support windows, snapshot ages) with one fixed day, 2026-11-25 UTC, so
# outputs and goldens do not change with the calendar (catalog/clock.py reads it).
PLAN_EPOCH = "1795564800"
os.environ["SOURCE_DATE_EPOCH"] = PLAN_EPOCH
SUITE_EXAMPLES = 150
INNER_LOOP_EXAMPLES = 30
MARKER_OF_FOLDER = {
    "catalog": "pure",
    "config": "pure",
    "domain": "pure",
    "charts": "pure",
    "resolve": "pure",
    "components": "program",
    "platform": "program",
    "cli": "program",
    "plan": "program",
    "verify": "program",
    "price_lists": "program",
    "provider": "program",
    "testing": "program",
    "kueue": "program",
    "render": "render",
    "release": "release",
}


def _selected_markers(config: pytest.Config) -> set[str] | None:
    """The folder markers a plain ``-m a or b`` selects, else ``None`` (any other expression: collect everything)."""
    words = (config.option.markexpr or "").split()
    names = set(words[0::2])
    if not words or any(word != "or" for word in words[1::2]) or not names <= set(MARKER_OF_FOLDER.values()):
        return None
    return names


def pytest_configure(config: pytest.Config) -> None:
    """Property budgets, as Hypothesis profiles: the whole suite (and CI) tries ``SUITE_EXAMPLES`` cases per
    property that sets no budget of its own; a folder selection such as ``-m pure``, the inner loop run before each
    commit, tries ``INNER_LOOP_EXAMPLES`` and replays first every failure Hypothesis saved in ``.hypothesis/``.
    ``--hypothesis-profile suite`` gives the inner loop the whole budget."""
    from hypothesis import settings

    settings.register_profile("suite", max_examples=SUITE_EXAMPLES)
    settings.register_profile("inner-loop", max_examples=INNER_LOOP_EXAMPLES)
    if config.getoption("hypothesis_profile", default=None) is None:
        settings.load_profile("suite" if _selected_markers(config) is None else "inner-loop")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """``-m pure`` and the like import only their own folders' test modules: the others would load every cloud SDK
    just to be deselected (the inner loop's cost was mostly that import)."""
    selected = _selected_markers(config)
    if selected is None or collection_path.parent != TESTS or not collection_path.is_dir():
        return None
    marker = MARKER_OF_FOLDER.get(collection_path.name)
    return True if marker is not None and marker not in selected else None


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: `-p no:xdist` runs without it
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject's addopts): one worker per core for a folder or the whole suite, none for named test
    files or ids (a worker's start-up and collection would cost more than it saves) or a snapshot update (each
    worker would see only its own snapshots in use)."""
    named = [arg for arg in config.args if arg.endswith(".py") or "::" in arg]
    if config.getoption("--snapshot-update", default=False) or (named and len(named) == len(config.args)):
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores if cores > 1 else 0


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    misplaced = set()
    for item in items:
        try:
            folder = item.path.resolve().relative_to(TESTS).parts[0]
        except ValueError:  # collected from outside tests/: not ours to mark
            continue
        marker = MARKER_OF_FOLDER.get(folder)
        if marker is None:
            misplaced.add(str(item.path.relative_to(TESTS.parent)))
        else:
            item.add_marker(marker)
    if misplaced:
        raise pytest.UsageError(
            f"test modules outside the layer folders ({', '.join(sorted(MARKER_OF_FOLDER))}): "
            f"{', '.join(sorted(misplaced))}"
        )
