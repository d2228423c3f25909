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
    from ..price_lists import azure_offers
    from ..price_lists.errors import PriceSourceError
    from ..price_lists.refresh import refresh_caches
    from ..untrusted.files import FileRefused
    from ..untrusted.text import shown

    unknown = _unknown_region(args)
    if unknown:
        print(f"error: {shown(unknown)}", file=sys.stderr)
        return EXIT_CANNOT_READ
    # A whole refresh (no --region) that includes Azure also reads which regions sell each size: both caches are
    # written together, or neither (price_lists/refresh.refresh_caches).
    with_offers = args.region is None and args.cloud in (None, azure_offers.CLOUD)
    try:
        done = refresh_caches(
            [args.cloud] if args.cloud else list(CLOUDS), args.region, currency=args.currency, with_offers=with_offers
        )
    except (PriceSourceError, FileRefused) as error:
        print(f"error: {shown(str(error))}", file=sys.stderr)
        return EXIT_CANNOT_READ
    dropped = done.dropped
    replaced = f" (replacing {dropped} prices in another currency: a cache holds one)" if dropped else ""
    print(shown(f"wrote {len(done.fresh)} {args.currency} prices to {done.prices_path}{replaced}", cut_values=False))
    if done.offers_path is not None:
        print(shown(f"wrote the regions selling {done.offer_sizes} sizes to {done.offers_path}", cut_values=False))
    return 0


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
    return 0
