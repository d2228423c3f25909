"""The packaged price snapshot prices the sizes of one GPU family in proportion to their GPUs.

Clouds price most multi-GPU sizes as exact multiples of their 1-GPU sibling (research: every n-GPU/1-GPU pair in
the Azure Retail Prices and EC2 offer-file copies is exact, but for the exceptions below). A row copied from the
wrong region or page breaks that, as the eastus ``Standard_NC80adis_H100_v5`` row did (17.64 against 2 x 6.98).
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from gpupools.catalog.instances import INSTANCE_SIZES
from gpupools.catalog.prices import Price, PriceBook, snapshot

TOLERANCE = 0.01  # 1 %: rounding in the published figures (southcentralus NC48ads_A100_v4 is 1.9998 x NC24ads)

_BY_VCPU = "priced by vCPU and memory as well as GPUs: the same GPU count costs more with more vCPUs"
# Sizes that are not proportional to their family's reference size, with why (research/prices.json perGpuChecks
# and pairChecks; the clouds' size pages).
EXCEPTIONS: dict[str, str] = {
    "Standard_NC24rs_v3": "RDMA (InfiniBand) variant of NC24s_v3: a 10 % premium over 4 x NC6s_v3",
    "Standard_NV72ads_A10_v5": "2.0375 x NV36ads_A10_v5 in every region: the 2-GPU size carries more vCPU per GPU",
    "Standard_NC8as_T4_v3": "NCasT4_v3 is " + _BY_VCPU,
    "Standard_NC16as_T4_v3": "NCasT4_v3 is " + _BY_VCPU,
    "Standard_NC64as_T4_v3": "NCasT4_v3 is " + _BY_VCPU,
    "Standard_ND96amsr_A100_v4": "an ND (InfiniBand) size beside the NC A100 v4 family: another family, same GPU",
    **{
        f"{family}.{size}": f"{family} is " + _BY_VCPU
        for family in ("g5", "g6", "g6e")
        for size in ("2xlarge", "4xlarge", "8xlarge", "16xlarge", "12xlarge", "24xlarge", "48xlarge")
    },
}


def disproportions(book: PriceBook) -> list[str]:
    """Every priced size whose per-GPU price is more than TOLERANCE off its family's reference size (the size with
    the fewest GPUs, then the first by name, among the sizes not excepted), per cloud, region and capacity."""
    groups: dict[tuple[str, str, str, str], list[Price]] = defaultdict(list)
    for price in book.prices:
        size = INSTANCE_SIZES.get(price.size)
        if size is not None and price.size not in EXCEPTIONS:
            groups[(price.cloud, price.region, price.capacity, size.gpu.name)].append(price)
    found = []
    for (cloud, region, capacity, _gpu), prices in sorted(groups.items()):
        ordered = sorted(prices, key=lambda p: (INSTANCE_SIZES[p.size].gpus, p.size))
        reference = ordered[0]
        per_gpu = reference.per_hour / INSTANCE_SIZES[reference.size].gpus
        for price in ordered[1:]:
            expected = per_gpu * INSTANCE_SIZES[price.size].gpus
            if abs(price.per_hour / expected - 1) > TOLERANCE:
                found.append(
                    f"{cloud} {region} {capacity}: {price.size} {price.per_hour} is "
                    f"{price.per_hour / expected:.3f} x {INSTANCE_SIZES[price.size].gpus} x {reference.size}"
                )
    return found


def test_snapshot_prices_families_in_proportion_to_gpus():
    assert disproportions(snapshot()) == []


def test_the_check_catches_a_row_from_the_wrong_region():
    book = snapshot()
    wrong = [
        Price(p.cloud, p.size, p.region, p.capacity, 17.64, p.source, p.retrieved)
        if (p.size, p.region, p.capacity) == ("Standard_NC80adis_H100_v5", "eastus", "onDemand")
        else p
        for p in book.prices
    ]
    found = disproportions(PriceBook(book.origin, book.retrieved, book.currency, tuple(wrong)))
    assert found == ["azure eastus onDemand: Standard_NC80adis_H100_v5 17.64 is 1.264 x 2 x Standard_NC40ads_H100_v5"]


@pytest.mark.parametrize("size", sorted(EXCEPTIONS))
def test_every_exception_is_a_catalog_size_that_the_snapshot_prices(size):
    assert size in INSTANCE_SIZES
    assert any(price.size == size for price in snapshot().prices)


def test_every_exception_is_really_off_proportion_somewhere():
    """An exception that the prices no longer need is dropped, so the list stays honest."""
    book = snapshot()
    for size, _why in EXCEPTIONS.items():
        gpu = INSTANCE_SIZES[size].gpu.name
        off = False
        for price in (p for p in book.prices if p.size == size):
            siblings = [
                p
                for p in book.prices
                if (p.cloud, p.region, p.capacity) == (price.cloud, price.region, price.capacity)
                and p.size in INSTANCE_SIZES
                and INSTANCE_SIZES[p.size].gpu.name == gpu
                and p.size != size
            ]
            for sibling in siblings:
                ratio = (price.per_hour / INSTANCE_SIZES[size].gpus) / (
                    sibling.per_hour / INSTANCE_SIZES[sibling.size].gpus
                )
                off = off or abs(ratio - 1) > TOLERANCE
        assert off, size
