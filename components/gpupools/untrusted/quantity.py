"""Kubernetes quantities (``56``, ``1k``, ``2Ki``, ``5e3``) read exactly as the API's grammar defines them.

https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/:
``<quantity> ::= <signedNumber><suffix>``, ``<number> ::= <digits> | <digits>.<digits> | <digits>. | .<digits>``,
``<suffix> ::= <binarySI> | <decimalExponent> | <decimalSI>``, ``<binarySI> ::= Ki | Mi | Gi | Ti | Pi | Ei``,
``<decimalSI> ::= m | "" | k | M | G | T | P | E``, ``<decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>``;
"no quantity may represent a number greater than 2^63-1 in magnitude". Digits are ASCII only (``[0-9]``, never
``\\d``), so ``NaN``, ``Infinity``, fullwidth digits and a 5,000-digit number are refused before any arithmetic.
"""

from __future__ import annotations

import re
from decimal import Decimal

from ..errors import GpupoolsError

MAX_MAGNITUDE = 2**63 - 1
# Longer than any quantity a real server sends (2^63-1 has 19 digits); checked before the regex runs.
MAX_QUANTITY_CHARS = 64

_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_QUANTITY = re.compile(rf"(?P<number>{_NUMBER})(?:(?P<si>Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)|[eE](?P<exp>{_NUMBER}))?")
_FACTORS = {
    "m": Decimal("0.001"),
    "k": Decimal(10**3),
    "M": Decimal(10**6),
    "G": Decimal(10**9),
    "T": Decimal(10**12),
    "P": Decimal(10**15),
    "E": Decimal(10**18),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}


class QuantityError(GpupoolsError, ValueError):
    """Not a quantity, or not one a node can advertise; the message says which."""


def parse_quantity(text: object) -> Decimal:
    """The exact value of a quantity string; ``QuantityError`` for anything outside the grammar or 2^63-1."""
    if not isinstance(text, str):
        raise QuantityError(f"is {type(text).__name__}, not a quantity string")
    if len(text) > MAX_QUANTITY_CHARS:
        raise QuantityError(f"is {len(text)} characters long; a quantity is at most {MAX_QUANTITY_CHARS}")
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise QuantityError(
            f"{text!r} is not a Kubernetes quantity (digits, an optional decimal point, and a "
            "suffix such as k, Ki or e3)"
        )
    number = Decimal(match["number"])
    if match["exp"] is not None:
        exponent = Decimal(match["exp"])
        if exponent != exponent.to_integral_value() or abs(exponent) > 30:
            raise QuantityError(f"{text!r} has an exponent outside -30..30")
        value = number.scaleb(int(exponent))
    else:
        value = number * _FACTORS.get(match["si"] or "", Decimal(1))
    if abs(value) > MAX_MAGNITUDE:
        raise QuantityError(f"{text!r} is larger than 2^63-1, the largest quantity Kubernetes allows")
    return value


def parse_count(text: object) -> int:
    """A device count (an extended resource): a whole, non-negative quantity."""
    value = parse_quantity(text)
    if value < 0 or value != value.to_integral_value():
        raise QuantityError(f"{text!r} is not a whole number of devices (extended resources are integers)")
    return int(value)
