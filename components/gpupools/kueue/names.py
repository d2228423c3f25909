"""Names Kubernetes accepts for the objects: a pool or team name made a DNS-1123 label, or a clear refusal.

A label (at most 63 of ``a-z0-9-``, alphanumeric at both ends) is valid for every name we write: a
ResourceFlavor or ClusterQueue name and the flavor references (DNS-1123 subdomains in Kueue's CRD), a cohort, a
namespace and a LocalQueue. Team names come from a user's demand file, so the error echoes them safely.
"""

from __future__ import annotations

import re

from ..untrusted.text import shown
from .errors import KueueError

DNS_LABEL_MAX = 63
DNS_LABEL = re.compile(rf"[a-z0-9]([-a-z0-9]{{0,{DNS_LABEL_MAX - 2}}}[a-z0-9])?")
_NOT_LABEL = re.compile(r"[^a-z0-9]+")  # ASCII only: other letters and digits are not valid in a label


def dns_label(name: str, what: str) -> str:
    """``Research Team`` -> ``research-team``: lower case, each run of other characters one ``-``, none at the ends.

    ``what`` says whose name it is (``team``, ``pool``) for the error.
    """
    if not isinstance(name, str):
        raise KueueError(f"{what} name must be a string, got {type(name).__name__}")
    label = _NOT_LABEL.sub("-", name.lower()).strip("-")
    if not label:
        raise KueueError(shown(f"{what} name {name!r} has no letter or digit (a-z, 0-9) to make a Kubernetes name of"))
    if len(label) > DNS_LABEL_MAX:
        raise KueueError(
            shown(f"{what} name {name!r} makes a Kubernetes name of {len(label)} characters; at most {DNS_LABEL_MAX}")
        )
    return label
