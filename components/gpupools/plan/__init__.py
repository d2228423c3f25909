"""The offline plan (``offline``: the real program under Pulumi's mocks) and the capacity diff against a base plan
(``diff``), as ``gpupools plan`` prints them."""

from .offline import Plan, plan_stack

__all__ = ["Plan", "plan_stack"]
