"""``gpupools verify``: read a rolled-out cluster and compare each pool's nodes with the plan.

``expected`` (pure) says what each pool should show; ``kubeconfig``, ``transport``, ``objects`` and
``quantity`` read an untrusted API server within limits; ``cluster`` lists the nodes and pods; ``report``
compares and renders; ``command`` is the CLI entry.
"""

from .command import add_verify_arguments, run_verify

__all__ = ["add_verify_arguments", "run_verify"]
