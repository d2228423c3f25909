"""What ``gpupools --help`` and each command's ``--help`` say: plain text, wrapped by hand within 80 columns.

argparse prints descriptions and epilogs as written (``RawDescriptionHelpFormatter``), so every line here is what
the terminal shows; ``tests/cli/test_cli_help.py`` holds them to 80 columns, an example per command and no reST.
"""

from __future__ import annotations

import argparse
from typing import TypeVar

PROGRAM = """\
NVIDIA GPUs on AKS and EKS, cut into right-sized MIG slices, time-slices or MPS
shares. gpupools checks a stack's config, plans offline what it would create,
and verifies that a live cluster advertises what the plan promised.
"""

STACK_AND_FORMAT = """\
which stack:
  --stack NAME    reads Pulumi.NAME.yaml in the project root: the nearest folder
                  at or above the current one that holds Pulumi.yaml (else the
                  current folder), as the Pulumi CLI finds its project
  --config PATH   reads the stack file at PATH, wherever it is

output (--format):
  text            for people (the default)
  json            for scripts; --json is short for --format json
  markdown        for pull request comments and job summaries
"""

EXIT_STATUS = """\
exit status: 0 done; 2 bad input (or an output that cannot be written), one
"error:" line per problem naming the field and what is allowed; 1 a failure of
gpupools itself (GPUPOOLS_DEBUG=1 shows the traceback); 141 the reader of the
output went away; verify: 3 a mismatch.
"""

TOP_EPILOG = f"""\
{STACK_AND_FORMAT}
{EXIT_STATUS}
examples:
  gpupools check --stack dev
  gpupools plan --config stacks/Pulumi.prod.yaml --format markdown
  gpupools verify --stack dev --kubeconfig kubeconfig --timeout 900

Run "gpupools COMMAND --help" for a command's own options and examples.
"""

# Per command: the one-line summary in the command list, its description and its examples.
COMMANDS = {
    "check": (
        "validate a stack's config and print the GPU resources each pool yields",
        """\
Validates the stack's gpupools:* config with every rule that plan and
pulumi up apply (sizes, MIG profiles and layouts, sharing, autoscaling, names,
the placement of NVIDIA's daemonsets) and prints, per pool, the GPU resources
each node and the whole pool advertise. Needs no Pulumi CLI, cloud SDK or
cluster. Every problem is reported in one run.
""",
        """\
examples:
  gpupools check --stack dev
  gpupools check --config ../platform/Pulumi.prod.yaml --json
""",
    ),
    "plan": (
        "run the stack's program offline under Pulumi mocks and print what it would create",
        """\
Validates the stack like check, then runs the program pulumi up would run for
it (Pulumi.yaml's main; the packaged gpupools program for a stack file with no
Pulumi.yaml at or above it) under Pulumi's mocks, and prints every resource
with its key inputs, the GPU resources each pool advertises, what it costs,
where NVIDIA's daemonsets land, the autoscaler's node templates and warnings.
No Pulumi CLI, credentials or cloud calls are involved.
""",
        """\
examples:
  gpupools plan --stack dev
  gpupools plan --stack dev --json > plan.json
  gpupools plan --stack dev --base main-plan.json --format markdown
""",
    ),
    "verify": (
        "read the live cluster and check each pool's nodes advertise what the plan promised",
        """\
After pulumi up: reads the cluster of the kubeconfig and checks, per pool, that
its nodes (label gpupools.io/pool) advertise the nvidia.com/* resources the
plan promised, that MIG layouts are applied and that the device plugin is
ready. The cluster is read as untrusted input, and no credential is printed.
""",
        """\
examples:
  gpupools verify --stack dev
  gpupools verify --stack eks --kubeconfig kubeconfig --timeout 900 --json
""",
    ),
}

PRICES = (
    "read the clouds' public price lists into the local price cache",
    """\
The list prices plan uses for cost. plan reads the local price cache
($GPUPOOLS_PRICE_CACHE, default ~/.cache/gpupools/prices.json) before the
snapshot packaged with gpupools; prices refresh writes that cache.
""",
    """\
examples:
  gpupools prices refresh
  gpupools prices refresh --cloud azure --region eastus
""",
)

PRICES_REFRESH = (
    "fetch list prices (needs the network) and write the cache",
    """\
Reads the Azure Retail Prices API and the EC2 offer files (the network is
needed) and writes the prices of the GPU sizes gpupools knows into the local
price cache. Prices are in USD unless --currency names another; Azure answers
in several currencies, AWS's price list is in USD only. A cache holds one
currency, and plan never adds prices in two currencies together.

exit status: 0 written; 2 a price list that cannot be read, or a currency
AWS does not publish (one "error:" line; the cache is left as it was).
""",
    """\
examples:
  gpupools prices refresh
  gpupools prices refresh --cloud aws --region us-east-1
  gpupools prices refresh --cloud azure --region westeurope --currency EUR
""",
)


VERIFY_EXIT_STATUS = """\
exit status: 0 every pool matches; 3 a mismatch (one line each); 2 bad config,
an unreadable kubeconfig, an unreachable cluster or a response gpupools cannot
read (one "error:" line); 1 a failure of gpupools itself.
"""


# The CLI's own parser class: a subcommand's parser is of the class its subparsers action makes.
Parser = TypeVar("Parser", bound=argparse.ArgumentParser)


def stack_command_parser(commands: argparse._SubParsersAction[Parser], name: str) -> Parser:
    """``check``, ``plan`` or ``verify``: its description, then which stack, the formats, the exit status, examples."""
    summary, description, examples = COMMANDS[name]
    status = VERIFY_EXIT_STATUS if name == "verify" else EXIT_STATUS
    return command_parser(commands, name, (summary, description, f"{STACK_AND_FORMAT}\n{status}\n{examples}"))


def command_parser(commands: argparse._SubParsersAction[Parser], name: str, texts: tuple[str, str, str]) -> Parser:
    """A subcommand whose ``--help`` shows its description and epilog as written."""
    summary, description, epilog = texts
    return commands.add_parser(
        name, help=summary, description=description, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
    )
