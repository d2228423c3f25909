"""The gpupools stack program: read the ``gpupools:*`` config, validate it, build a ``GpuPlatform``, export.

``infra/__main__.py`` calls ``main()``, and so does ``gpupools plan`` for a stack file with no Pulumi
project of its own beside it, so an installed wheel plans any stack file from any directory.
"""

from __future__ import annotations

from typing import cast

import pulumi

from ..catalog.extras import MissingExtraError
from ..config.errors import ConfigError
from ..resolve.stack_loader import load_stack
from .args import GpuPlatformArgs
from .inputs import args_from_config
from .stack_config import read_pulumi_config, secret_config_values

PROJECT = "gpupools"  # the project name of this repository's Pulumi.yaml
PLATFORM_NAME = "gpupools"


def main() -> None:
    try:
        stack = load_stack(read_pulumi_config())
    except ConfigError as error:
        # One line per problem, before any resource is registered; nothing existing is touched. Secret
        # values (pulumi config set --secret) never reach the console or CI logs, even when they are wrong.
        raise pulumi.RunError(f"invalid gpupools config:\n{error.redacted(secret_config_values())}") from None
    from .component import GpuPlatform  # after validation: bad config loads no SDK beyond Pulumi's
    from .outputs import export

    # Stacks deployed before GpuPlatform existed hold these resources at the stack's root: aliases adopt them.
    try:
        platform = GpuPlatform(
            PLATFORM_NAME,
            # The args mirror the config models (tests/apps/test_config_and_components_agree.py).
            cast(GpuPlatformArgs, args_from_config(stack.config)),
            adopt_stack_resources=True,
            validated=stack,
        )
    except MissingExtraError as error:  # the user's install, said in one line rather than a traceback
        raise pulumi.RunError(str(error)) from None
    export(platform)
