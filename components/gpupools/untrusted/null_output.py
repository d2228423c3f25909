"""Where output goes when nobody reads it: ``/dev/null``, for a closed stdout or stderr and after a reader left
(``gpupools plan | head -1``). Kept in the kit so no module outside it opens a file."""

from __future__ import annotations

import os
from typing import TextIO


def null_text_stream() -> TextIO:
    """A text stream that discards what is written; it lives as long as the process."""
    return open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115


def discard_descriptor(descriptor: int) -> None:
    """Point ``descriptor`` (stdout's) at ``/dev/null``, so a final flush at exit has nowhere to fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, descriptor)
    finally:
        os.close(devnull)
