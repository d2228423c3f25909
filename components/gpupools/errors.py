"""``GpupoolsError``: the one base of every error gpupools raises on purpose.

A caller (a user's program, the CLI, a test) catches ``GpupoolsError`` to tell a refusal of ours from a bug;
anything else reaching the CLI is reported as an internal error. Subclasses keep their builtin bases
(``ValueError``, ``TypeError``, ...) so existing ``except`` clauses keep working.
"""

from __future__ import annotations


class GpupoolsError(Exception):
    """An error gpupools raises on purpose: bad input, an unsupported combination, an unreachable server."""
