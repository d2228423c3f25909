"""The GitHub Actions the repository's workflows run, each pinned by commit SHA with its release in a comment
(``uses: owner/repo@<sha> # vX.Y.Z``): what ``gpupools catalog`` lists and Renovate's regex manager moves.

``tests/release/test_renovate.py`` holds this table equal to what ``.github/workflows/*.yml`` pin, so a pin moved
in a workflow and not here (or the reverse) fails. Read from the workflows on 2026-11-26.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

READ_ON = date(2026, 11, 26)


@dataclass(frozen=True)
class ActionPin:
    action: str  # owner/repo
    sha: str
    release: str  # the tag the SHA is, as the workflow's comment says


ACTION_PINS: tuple[ActionPin, ...] = (
    ActionPin("actions/checkout", "3d3c42e5aac5ba805825da76410c181273ba90b1", "v7.0.1"),
    ActionPin("actions/setup-python", "5fda3b95a4ea91299a34e894583c3862153e4b97", "v7.0.0"),
    ActionPin("actions/github-script", "ed597411d8f924073f98dfc5c65a23a2325f34cd", "v8.0.0"),
    ActionPin("azure/login", "f5d393ae46f8fde4be8b75f32e3fc50e654ad0ca", "v3.0.1"),
    ActionPin("aws-actions/configure-aws-credentials", "e6de054238d6b7531b4efff3b6587d9aade6a06c", "v6.2.3"),
    ActionPin("pulumi/actions", "8e5e406f4007fca908480587cb9893c07090f58d", "v7.0.0"),
)
