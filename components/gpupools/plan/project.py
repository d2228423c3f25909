"""Which program ``gpupools plan`` runs for a stack file: the one ``pulumi up`` would run, or none.

The Pulumi CLI takes the nearest ``Pulumi.yaml`` at or above the stack file as the project, and its Python host
runs ``main`` (relative to ``Pulumi.yaml``, the project's folder by default) with ``runpy.run_path``: a directory
with ``__main__.py`` or a Python file (``pulumi-language-python-exec``). A path that is missing, or a directory
without ``__main__.py``, fails ``pulumi up``, so it fails the plan too, rather than planning another program.
Only a stack file with no project at or above it plans the packaged program (``gpupools.platform.program``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ..config.errors import ConfigError, Problem
from ..config.loading import find_project_root, read_yaml_file

PACKAGED_PROJECT = "gpupools"


def program_location(stack_path: Path) -> tuple[str, Path | Callable[[], None]]:
    """The project's name and program: what ``pulumi up`` runs for the stack file, else the packaged program."""
    root = find_project_root(stack_path.resolve().parent)
    project_file = root / "Pulumi.yaml"
    if not os.path.lexists(project_file):  # anything there (a folder, a FIFO, a link to /dev/zero) is read, refused
        from ..platform.program import main as packaged_program  # loads Pulumi: only once a plan runs

        return PACKAGED_PROJECT, packaged_program
    project = read_yaml_file(project_file, "Pulumi.yaml")
    project = project if isinstance(project, dict) else {}
    main, name, runtime = project.get("main", "."), project.get("name", root.name), project.get("runtime")
    if not isinstance(main, str) or not isinstance(name, str):
        raise ConfigError([Problem(str(project_file), "has a 'name' or 'main' that is not a string")])
    runtime_name = runtime.get("name") if isinstance(runtime, dict) else runtime
    if runtime_name != "python":
        raise _refused(
            project_file, "runtime", f"is {runtime_name!r}; gpupools plan runs Python programs only (runtime: python)"
        )
    if Path(main).is_absolute():
        raise _refused(project_file, "main", f"{main!r} is absolute; Pulumi reads main relative to Pulumi.yaml")
    program = root / main
    if program.is_dir():
        if (program / "__main__.py").is_file():
            return name, program
        raise _refused(
            project_file,
            "main",
            f"{main!r} ({program}) has no __main__.py: the Python host would find "
            "no program to run; add __main__.py or name a .py file",
        )
    if program.is_file():
        return name, program
    raise _refused(
        project_file,
        "main",
        f"{main!r} ({program}) does not exist: pulumi up would fail, and plan runs only the program pulumi up runs",
    )


def _refused(project_file: Path, key: str, message: str) -> ConfigError:
    return ConfigError([Problem(f"{project_file}: {key}", message)])
