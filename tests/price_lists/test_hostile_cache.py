"""The price cache against a hostile filesystem and a hostile price list (issue 25): refresh writes only the cache,
atomically, keeps its mode and its symlink, never writes what the reader would refuse, and every OS error on the
path is one line with exit 2; a plan never breaks because of ``XDG_CACHE_HOME``."""

from __future__ import annotations

import errno
import json
import os
import stat
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from gpupools.price_lists import refresh as refresh_module
from gpupools.price_lists.book import MAX_CACHE_BYTES, current_price_book
from gpupools.price_lists.refresh import refresh_caches
from gpupools.untrusted.atomic_file import write_atomically
from gpupools.untrusted.files import FileRefused
from support.cli import run_cli

RECORDED = Path(__file__).parent / "recorded_prices"
OFFER = json.loads((RECORDED / "aws_offer_us-east-1.json").read_text())
NOW = datetime(2026, 11, 20, tzinfo=timezone.utc)
REPO = Path(__file__).resolve().parents[2]


def _offer(price: str = "32.7726", region_code: str = "us-east-1") -> bytes:
    """The recorded offer file with every hourly price and region code set as given."""
    document = json.loads(json.dumps(OFFER))
    for product in document["products"].values():
        product["attributes"]["regionCode"] = region_code
    for offers in document["terms"]["OnDemand"].values():
        for offer in offers.values():
            for dimension in offer["priceDimensions"].values():
                if dimension["pricePerUnit"]["USD"] not in ("0.0000000000", "0"):
                    dimension["pricePerUnit"]["USD"] = price
    return json.dumps(document).encode()


def _refresh(path: Path, body: bytes | None = None) -> None:
    refresh_caches(["aws"], "us-east-1", fetcher=lambda url: body or _offer(), now=NOW, path=path)


def test_a_planted_temp_symlink_is_never_followed_and_a_users_tmp_file_survives(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("mine\n")
    (tmp_path / "prices.tmp").symlink_to(victim)  # the old fixed temp name
    (tmp_path / ".prices.json.tmp").write_text("also mine\n")
    _refresh(tmp_path / "prices.json")
    assert victim.read_text() == "mine\n"
    assert (tmp_path / "prices.tmp").is_symlink() and (tmp_path / ".prices.json.tmp").read_text() == "also mine\n"
    assert json.loads((tmp_path / "prices.json").read_text())["format"] == "gpupools-prices/2"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".prices.json.tmp", "prices.json", "prices.tmp", "victim"]


def test_a_symlinked_cache_stays_a_link_and_its_file_keeps_its_mode(tmp_path: Path) -> None:
    real = tmp_path / "real" / "prices.json"
    real.parent.mkdir()
    _refresh(real)
    real.chmod(0o600)
    link = tmp_path / "prices.json"
    link.symlink_to(Path("real") / "prices.json")
    _refresh(link)
    assert link.is_symlink() and stat.S_IMODE(real.stat().st_mode) == 0o600
    assert json.loads(real.read_text())["prices"]


def test_a_new_cache_gets_the_usual_mode_not_mkstemps(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        _refresh(tmp_path / "new" / "prices.json")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new" / "prices.json").stat().st_mode) == 0o644


@pytest.mark.parametrize(
    ("price", "region", "says"),
    [
        ("NaN", "us-east-1", "is not a finite price"),
        ("Infinity", "us-east-1", "is not a finite price"),
        ("1e309", "us-east-1", "is not a finite price"),
        ("1e308", "us-east-1", "more than any node costs an hour"),
        ("32.7", "us-east-1\x1b[2J", "region"),
        ("32.7", "US East", "region"),
    ],
)
def test_a_price_or_region_the_reader_would_refuse_is_never_written(
    tmp_path: Path, price: str, region: str, says: str
) -> None:
    cache = tmp_path / "prices.json"
    _refresh(cache)
    before = cache.read_bytes()
    with pytest.raises(Exception) as error:
        _refresh(cache, _offer(price, region))
    assert says in str(error.value) and type(error.value).__name__ == "PriceSourceError"
    assert cache.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["prices.json"]  # no temp file left behind


def _cli_refresh(monkeypatch: pytest.MonkeyPatch, cache: str, body: bytes | None = None):
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", cache)
    monkeypatch.setattr(refresh_module, "fetcher_until", lambda deadline: lambda url: body or _offer())
    return run_cli("prices", "refresh", "--cloud", "aws", "--region", "us-east-1")


def test_a_poisoned_answer_is_one_error_whose_advice_is_not_the_same_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _cli_refresh(monkeypatch, str(tmp_path / "prices.json"), _offer("1e308"))
    assert run.code == 2 and run.out == "" and len(run.err.splitlines()) == 1
    assert "nothing was written" in run.err and "prices refresh" not in run.err


def test_a_cache_that_is_not_a_price_book_is_left_alone_by_refresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = tmp_path / "notes.txt"
    victim.write_text("my notes\n")
    (tmp_path / "prices.json").symlink_to(victim)
    run = _cli_refresh(monkeypatch, str(tmp_path / "prices.json"))
    assert run.code == 2 and victim.read_text() == "my notes\n"
    assert "left as it was" in run.err and "prices refresh" not in run.err and len(run.err.splitlines()) == 1


def _parent_is_a_file(tmp_path: Path) -> str:
    (tmp_path / "file").write_text("x")
    return str(tmp_path / "file" / "prices.json")


@pytest.mark.parametrize(
    ("where", "says"),
    [
        (lambda tmp: str(tmp), "is a directory"),
        (lambda tmp: "/", "is a directory"),
        (_parent_is_a_file, "is a file, not a directory"),
        (lambda tmp: str(tmp / ("n" * 300)), "too long"),
        (lambda tmp: str(tmp / ("d" * 5000) / "prices.json"), "too long"),
    ],
)
def test_os_errors_on_the_cache_path_are_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where, says: str
) -> None:
    asked: list[str] = []
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", where(tmp_path))
    monkeypatch.setattr(refresh_module, "fetcher_until", lambda deadline: lambda url: asked.append(url) or _offer())
    run = run_cli("prices", "refresh", "--cloud", "aws", "--region", "us-east-1")
    assert run.code == 2 and says in run.err and len(run.err.splitlines()) == 1, run.err
    assert run.err.startswith("error: ") and "internal error" not in run.err
    assert not asked  # refused before the network is asked


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_a_failed_write_leaves_the_old_cache_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    cache = tmp_path / "prices.json"
    cache.write_bytes(b"old")

    def failing(descriptor: int, data: object) -> int:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "write", failing)
    with pytest.raises(FileRefused) as error:
        write_atomically(cache, b"new")
    assert cache.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["prices.json"]
    assert "left as it was" in str(error.value)


def test_a_read_only_folder_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr("tempfile.mkstemp", refused)
    run = _cli_refresh(monkeypatch, str(tmp_path / "prices.json"))
    assert run.code == 2 and "read-only" in run.err and len(run.err.splitlines()) == 1


def test_a_plan_never_breaks_because_of_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPUPOOLS_PRICE_CACHE", raising=False)
    monkeypatch.chdir(REPO)
    for home in (str(tmp_path / ("x" * 5000)), str(_file(tmp_path)), "relative/\x01odd"):
        monkeypatch.setenv("XDG_CACHE_HOME", home)
        assert current_price_book().origin == "snapshot"
    run = run_cli("plan", "--stack", "dev", "--json")
    assert run.code == 0, run.err


def _file(tmp_path: Path) -> Path:
    (tmp_path / "a-file").write_text("x")
    return tmp_path / "a-file"


def test_a_huge_cache_is_refused_by_its_size_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "prices.json"
    with cache.open("wb") as handle:
        handle.truncate(400 << 20)  # sparse: 400 MB reported, nothing on disk
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", str(cache))
    monkeypatch.chdir(REPO)
    start = time.monotonic()
    run = run_cli("plan", "--stack", "dev")
    assert run.code == 2 and f"the limit for a price cache is {MAX_CACHE_BYTES} bytes" in run.err
    assert time.monotonic() - start < 10


def test_a_cache_source_cannot_carry_a_markdown_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "prices.json"
    _refresh(cache)
    book = json.loads(cache.read_text())
    book["prices"][0]["source"] = "https://x/[a](javascript:alert(1))"
    cache.write_text(json.dumps(book))
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", str(cache))
    monkeypatch.chdir(REPO)
    run = run_cli("plan", "--stack", "dev", "--format", "markdown")
    assert run.code == 2 and "is not the shape of a source" in run.err and run.out == ""


def test_a_cached_price_of_1e308_stops_the_plan_instead_of_printing_infinity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "prices.json"
    _refresh(cache)
    book = json.loads(cache.read_text())
    book["prices"][0]["perHour"] = 1e308
    cache.write_text(json.dumps(book))
    monkeypatch.setenv("GPUPOOLS_PRICE_CACHE", str(cache))
    monkeypatch.chdir(REPO)
    run = run_cli("plan", "--stack", "eks", "--json")
    assert run.code == 2 and "more than any node costs an hour" in run.err and "Infinity" not in run.out
