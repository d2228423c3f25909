"""A user's program that fails is the user's error, not gpupools': it is told as the program's, with its file and
line, and its ``sys.exit`` does not end the command that ran it.

``ProgramFailed`` is a ``ConfigError`` (exit 2, one line), and keeps the program's own exception as its cause for
``GPUPOOLS_DEBUG=1``. The place named is the innermost frame in the program's folder (the line of the user's code
that raised, even when a library raised for it); a SyntaxError names the line the parser stopped at.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from ..config.errors import ConfigError, Problem
from ..errors import GpupoolsError


class ProgramExited(GpupoolsError, RuntimeError):
    """The program called ``sys.exit`` with a failing status; raised where it did."""

    def __init__(self, code: object):
        self.code = code
        super().__init__(f"the program called sys.exit({code!r})")


class ProgramFailed(ConfigError):
    """The user's program raised; ``__cause__`` is what it raised."""


def program_failed(error: BaseException, program: Path) -> ProgramFailed:
    """``error``, raised while running the program at ``program`` (a file, or a folder with ``__main__.py``), as
    one problem located at the program's file and line."""
    folder = (program if program.is_dir() else program.parent).resolve()
    where = _where(error, folder) or str(program)
    if isinstance(error, SyntaxError) and ("codec can't decode" in str(error.msg) or "Non-UTF-8" in str(error.msg)):
        message = "is not UTF-8 text; save the program as UTF-8"
    elif isinstance(error, SyntaxError):
        message = f"SyntaxError: {error.msg}"
    elif isinstance(error, (GpupoolsError, ProgramExited)):
        message = str(error)
    else:
        message = f"{type(error).__name__}: {str(error).strip() or '-'}"
    failed = ProgramFailed([Problem(f"the program {where}", message)])
    failed.__cause__ = error
    return failed


def _where(error: BaseException, folder: Path) -> str | None:
    if isinstance(error, SyntaxError) and error.filename:
        return f"{error.filename}:{error.lineno}" if error.lineno else error.filename
    inside = [frame for frame in traceback.extract_tb(error.__traceback__) if _under(Path(frame.filename), folder)]
    return f"{inside[-1].filename}:{inside[-1].lineno}" if inside else None


def _under(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder) and "site-packages" not in path.parts
    except (OSError, ValueError):
        return False
