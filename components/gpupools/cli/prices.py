"""``gpupools prices refresh [--cloud azure|aws] [--region R] [--currency C]``: the clouds' price lists into the
local cache."""

from __future__ import annotations

import argparse
import sys

from ..catalog.instances import CLOUDS
from ..catalog.prices import CURRENCY, CURRENCY_CODE
from .help import PRICES, PRICES_REFRESH, Parser, command_parser

EXIT_CANNOT_READ = 2  # as verify: the price list could not be read or the request cannot be met; 1 is a bug


def add_prices_command(commands: argparse._SubParsersAction[Parser]) -> None:
    """Add ``prices refresh`` to the CLI's subcommands."""
    prices = command_parser(commands, "prices", PRICES)
    actions = prices.add_subparsers(
        dest="action", required=True, parser_class=type(prices), metavar="ACTION", title="actions"
    )
    refresh = command_parser(actions, "refresh", PRICES_REFRESH)
    refresh.add_argument("--cloud", choices=CLOUDS, help="one cloud (default: both)")
    refresh.add_argument("--region", help="one region (default: the regions of this repository's stacks)")
    refresh.add_argument(
        "--currency",
        type=_currency,
        default=CURRENCY,
        metavar="CODE",
        help=f"ISO 4217 code of the prices (default {CURRENCY}; others from Azure only)",
    )


def _currency(text: str) -> str:
    code = text.upper()
    if not CURRENCY_CODE.fullmatch(code):
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a currency code (three letters, such as EUR)")
    return code


def run_prices(args: argparse.Namespace) -> int:
    from ..price_lists.errors import PriceSourceError
    from ..price_lists.refresh import refresh
    from ..untrusted.files import FileRefused
    from ..untrusted.text import shown

    unknown = _unknown_region(args)
    if unknown:
        print(f"error: {shown(unknown)}", file=sys.stderr)
        return EXIT_CANNOT_READ
    try:
        path, fresh, dropped = refresh(
            [args.cloud] if args.cloud else list(CLOUDS), args.region, currency=args.currency
        )
    except (PriceSourceError, FileRefused) as error:
        print(f"error: {shown(str(error))}", file=sys.stderr)
        return EXIT_CANNOT_READ
    replaced = f" (replacing {dropped} prices in another currency: a cache holds one)" if dropped else ""
    print(shown(f"wrote {len(fresh)} {args.currency} prices to {path}{replaced}", cut_values=False))
    return _refresh_offers(args)


def _unknown_region(args: argparse.Namespace) -> str:
    """``--region us-est-1``: a name none of the chosen clouds has, refused before the network with the closest."""
    from ..catalog.cloud_registry import cloud
    from ..catalog.regions import Places
    from ..untrusted.lookup import did_you_mean

    if args.region is None:
        return ""
    chosen = [cloud(name) for name in ([args.cloud] if args.cloud else CLOUDS)]
    lists = [each.facet(Places) for each in chosen if each.has(Places)]
    if len(lists) < len(chosen) or any(args.region in places.names for places in lists):
        return ""
    known = [name for places in lists for name in places.names]
    return (
        f"--region: '{args.region}' is not a region of {' or '.join(args.cloud and [args.cloud] or CLOUDS)}; "
        + (did_you_mean(args.region, known) or "see gpupools sizes for the regions with a price").rstrip()
    )


def _refresh_offers(args: argparse.Namespace) -> int:
    """With the prices, the regions that sell each size (``price_lists/azure_offers.py``), on a whole refresh."""
    from ..price_lists import azure_offers
    from ..price_lists.errors import PriceSourceError
    from ..price_lists.refresh import fetch
    from ..untrusted.text import shown

    if args.region is not None or args.cloud not in (None, azure_offers.CLOUD):
        return 0
    try:
        path, sizes = azure_offers.refresh_offers(fetch)
    except PriceSourceError as error:
        print(f"error: offers: {shown(str(error))}", file=sys.stderr)
        return EXIT_CANNOT_READ
    print(shown(f"wrote the regions selling {sizes} sizes to {path}", cut_values=False))
    return 0
