"""Ctrl-C and SIGTERM during a command stop its run at the next finished chunk, never inside one."""

from __future__ import annotations

import os
import signal
import time

import polars as pl
import pytest

from workbench.core.errors import RunInterrupted
from workbench.core.sim.stopping import check, deferred_stops, requested
from workbench.core.sim.stream import simulate_to_parquet


@pytest.fixture(autouse=True)
def _terminal_ctrl_c():
    """Ctrl-C as in a terminal, even when the suite runs where it is ignored (``nohup make test &``)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _busy(seconds: float) -> int:
    """Python bytecode for a while: where a signal's handler runs."""
    n, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        n += 1
    return n


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_requests_a_stop_that_is_raised_only_where_the_run_checks(signum, monkeypatch):
    monkeypatch.setenv("WORKBENCH_STOP_GRACE", "30")
    with deferred_stops():
        os.kill(os.getpid(), signum)
        assert _busy(0.3) > 0  # the handler ran meanwhile, and raised nothing here
        assert requested()
        with pytest.raises(KeyboardInterrupt):
            check()
    assert not requested()


def test_a_second_signal_stops_at_once(monkeypatch):
    monkeypatch.setenv("WORKBENCH_STOP_GRACE", "30")
    with deferred_stops():
        os.kill(os.getpid(), signal.SIGINT)
        _busy(0.1)
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            _busy(5)


def test_a_stop_no_chunk_honours_within_the_grace_interrupts_at_once(monkeypatch):
    monkeypatch.setenv("WORKBENCH_STOP_GRACE", "0.3")
    with deferred_stops():
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            _busy(20)
        waited = time.monotonic() - started
    assert waited > 0.25  # the grace was given; pytest.raises says the stop came before the 20 s of work ended


def test_the_handlers_before_the_block_come_back_and_an_ignored_signal_stays_ignored():
    before = signal.getsignal(signal.SIGTERM)
    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with deferred_stops():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # a background job's Ctrl-C
            assert signal.getsignal(signal.SIGTERM) is not before
        assert signal.getsignal(signal.SIGTERM) is before
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, old_int)


def test_a_stopped_stream_keeps_the_chunk_that_was_running_and_every_one_before(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_STOP_GRACE", "30")
    out = tmp_path / "run.parquet"
    seen: list[int] = []

    def on_progress(done: int, total: int) -> None:
        seen.append(done)
        if len(seen) == 3:  # Ctrl-C while the fourth chunk is about to be played
            os.kill(os.getpid(), signal.SIGINT)

    with deferred_stops(), pytest.raises(RunInterrupted) as info:  # 40 chunks: it ends, stopped or not
        simulate_to_parquet("toy", 20_000, out, chunk_size=500, workers=1, progress=False, on_progress=on_progress)
    assert info.value.done == 4 * 500  # the fourth chunk was finished and kept, no fifth was started
    kept = pl.read_parquet(out)
    assert kept["game_index"].to_list() == list(range(2000))
    assert len(list((tmp_path / "run.parquet.parts").glob("0*.parquet"))) == 4  # kept, so the same run resumes
