"""``gpupools prices refresh [--cloud azure|aws] [--region R]``: the clouds' price lists into the local cache."""

from __future__ import annotations

import argparse
import sys

from ..catalog.instances import CLOUDS
from .help import PRICES, PRICES_REFRESH, command_parser


def add_prices_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``prices refresh`` to the CLI's subcommands."""
    prices = command_parser(commands, "prices", PRICES)
    actions = prices.add_subparsers(dest="action", required=True, parser_class=type(prices), metavar="ACTION",
                                    title="actions")
    refresh = command_parser(actions, "refresh", PRICES_REFRESH)
    refresh.add_argument("--cloud", choices=CLOUDS, help="one cloud (default: both)")
    refresh.add_argument("--region", help="one region (default: the regions of this repository's stacks)")


def run_prices(args: argparse.Namespace) -> int:
    from ..prices.errors import PriceSourceError
    from ..prices.refresh import refresh

    try:
        path, fresh = refresh([args.cloud] if args.cloud else list(CLOUDS), args.region)
    except PriceSourceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"wrote {len(fresh)} prices to {path}")
    return 0
