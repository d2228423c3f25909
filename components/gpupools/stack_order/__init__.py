"""``gpupools stack-order``: the order to deploy a repository's stacks in, from the stacks each one names under
``gpupools:stackReferences`` (``levels``)."""

from .levels import StackOrder, stack_order

__all__ = ["StackOrder", "stack_order"]
