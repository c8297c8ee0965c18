"""The pilot behind every estimate of a run's time: a few games played before Run, on a clock of our own.

A compiled engine's chunk costs a fixed amount per call (building its frame) besides its games; a run
plays chunks of thousands of games, so the estimate must spread that cost as a run does.  Here
``play_chunk`` is replaced by one whose cost is known exactly (a fixed part per call, a part per game)
and the clock is advanced by it, so each expected figure is worked by hand from those two numbers.
"""

from __future__ import annotations

from types import SimpleNamespace

import polars as pl
import pytest

from workbench.core.sim import play, stream


class FakeEngine:
    """``play_chunk`` costing ``per_call + per_game × games`` seconds of a fake clock; records each call's games."""

    def __init__(self, per_call: float, per_game: float) -> None:
        self.per_call, self.per_game, self.now, self.calls = per_call, per_game, 0.0, []

    def clock(self) -> float:
        return self.now

    def play_chunk(self, model, params, agents, seeds, engine) -> pl.DataFrame:
        self.calls.append(len(seeds))
        self.now += self.per_call + self.per_game * len(seeds)
        return pl.DataFrame({"length": [7] * len(seeds)})


@pytest.fixture
def engine(monkeypatch):
    def make(per_call: float, per_game: float) -> FakeEngine:
        fake = FakeEngine(per_call, per_game)
        monkeypatch.setattr(play, "play_chunk", fake.play_chunk)
        monkeypatch.setattr(stream, "time", SimpleNamespace(perf_counter=fake.clock))  # stream's clock only
        return fake

    return make


def test_a_fast_engines_per_call_cost_is_spread_over_batches_that_double(engine):
    # 2 ms a call, 1 µs a game: 31 games alone would read 2.031 ms / 31 = 65.5 µs a game, 65 times the truth
    fake = engine(0.002, 1e-6)
    found = stream.pilot("toy")
    # a warm-up game, a game alone, then 31, 62, ... games until a batch takes 50 ms or the next would pass
    # 65,536 games: 31 × 2^10 = 31,744 games take 33.7 ms; the next, 63,488, would bring the pilot past 65,536
    assert fake.calls == [1, 1, *(31 * 2**k for k in range(11))]
    assert found.games == 1 + sum(31 * 2**k for k in range(11))
    assert found.seconds_per_game == pytest.approx((0.002 + 31_744e-6) / 31_744)  # 1.063 µs: within 7 % of 1 µs
    assert fake.now < stream.PILOT_SECONDS  # the whole pilot, warm-up included: 0.09 s


def test_a_batch_long_enough_ends_the_doubling(engine):
    fake = engine(0.002, 20e-6)  # 31 games: 2.6 ms, ... 992 games: 21.8 ms, 1,984 games: 41.7 ms, 3,968: 81.4 ms
    found = stream.pilot("toy")
    assert fake.calls == [1, 1, 31, 62, 124, 248, 496, 992, 1984, 3968]
    assert found.seconds_per_game == pytest.approx((0.002 + 3968 * 20e-6) / 3968)


def test_a_slow_setting_plays_only_what_fits_in_half_a_second(engine):
    fake = engine(0.0, 0.1)  # a search agent: 0.1 s a game
    found = stream.pilot("toy")
    assert fake.calls == [1, 1, 5]  # 0.5 s / 0.1 s = 5 games after the one timed alone, and no second batch
    assert found.games == 6 and found.seconds_per_game == pytest.approx(0.1)


def test_the_doubling_stops_before_the_pilot_would_pass_half_a_second(engine):
    fake = engine(0.045, 1e-7)  # 45 ms a call: no batch of a few thousand games reaches 50 ms
    found = stream.pilot("toy")
    # the game alone (45 ms) leaves room for int(0.5 / 0.045) = 11 games; each batch then takes 45.0-45.3 ms,
    # and after the 9th (2,816 games) the pilot has spent 450.6 ms since its clock started: another batch,
    # about twice as long, would pass 0.5 s, so it ends there
    assert fake.calls == [1, 1, *(11 * 2**k for k in range(9))]
    assert found.games == 1 + 11 * 511
    assert found.seconds_per_game == pytest.approx((0.045 + 2816e-7) / 2816)
    assert fake.now - 0.045 < stream.PILOT_SECONDS  # the clock starts after the warm-up game


def test_the_memory_check_before_a_long_run_plays_one_batch_only(engine):
    """The CLI's check of a run's memory needs a row's size, not a game's time: no doubling (it would play
    up to 65,536 games before a run of 100,001)."""
    fake = engine(0.002, 1e-6)
    estimate = stream.check_memory("toy", 200_000, [{}], None, None)
    assert fake.calls == [1, 1, 31]
    # a fake row holds one Int64 (8 bytes) beside the run's shared columns, measured on the 32 games' own; a run
    # held in memory peaks at its chunks and the frame they are joined into, each reference chunk's buffers counted
    # twice (3 copies in all); and one chunk of 200 games plays as Python rows, 64 bytes a cell of its 13 columns
    from workbench.core.sim.results import head_frame

    toy = stream.get_game("toy")
    params = toy.resolve_params({})
    head = head_frame(toy, params, tuple(map(str, toy.resolve_agents(None, params))), 0, 1, stream.game_seeds(0, 1, 33))
    assert head.width == 12 and toy.reference_chunk == 200
    assert estimate == int(200_000 * 3 * (8 * 32 + head.estimated_size()) / 32) + 200 * 64 * 13


def test_a_pause_during_the_game_timed_alone_is_not_read_as_the_games_speed(engine):
    """The host paused 0.6 s (another thread holding the interpreter) while the one game alone was timed:
    it leaves no room for a batch, so a second game alone is timed and the faster kept; the batches follow."""
    fake = engine(0.002, 1e-6)
    paused = fake.play_chunk

    def play_chunk(model, params, agents, seeds, engine):
        frame = paused(model, params, agents, seeds, engine)
        if len(fake.calls) == 2:  # the game timed alone
            fake.now += 0.6
        return frame

    play.play_chunk = play_chunk  # (the fixture's monkeypatch restores the module's own)
    found = stream.pilot("toy")
    # the second game alone takes 2.001 ms, and the half second starts again there: 30 games (32 in all), then
    # doubling batches as with no pause, until 30 × 2^10 = 30,720 games (32.7 ms; the next would pass 65,536)
    assert fake.calls == [1, 1, 1, *(30 * 2**k for k in range(11))]
    assert found.games == 2 + sum(30 * 2**k for k in range(11))
    assert found.seconds_per_game == pytest.approx((0.002 + 30_720e-6) / 30_720)  # 1.07 µs, not the pause's 0.6 s


def test_a_setting_slow_enough_to_fill_the_pilot_alone_is_timed_twice_and_not_batched(engine):
    fake = engine(0.0, 0.4)  # a deep search: 0.4 s a game, the half second holds one
    found = stream.pilot("toy")
    assert fake.calls == [1, 1, 1] and found.games == 2
    assert found.seconds_per_game == pytest.approx(0.4)


def test_run_pressed_while_the_size_line_measures_waits_for_that_measurement_not_a_second(monkeypatch):
    """The form measures a setting in the background as it is edited; Run, pressed meanwhile, waits for
    that one pilot (two at once slow each other) and both see the same figure."""
    import threading

    from workbench.ui.common import Pilots

    calls, redrawn, release = [], [], threading.Event()

    def measure():
        calls.append(threading.current_thread().name)
        release.wait(5)
        return stream.Pilot(100.0, 1e-5, 32)

    pilots = Pilots(lambda: redrawn.append(True))
    assert pilots.get("duel 40000", measure) is None  # edited: measuring in the background, nothing yet
    assert pilots.get("duel 40000", measure) is None  # a second redraw starts no second pilot
    threading.Timer(0.2, release.set).start()
    found = pilots.get("duel 40000", measure, wait=True)  # Run
    assert found == stream.Pilot(100.0, 1e-5, 32) and release.is_set()  # Run waited for the measurement
    assert calls == ["workbench-pilot"] and redrawn == [True]
    assert pilots.get("duel 40000", measure, wait=True) is found and len(calls) == 1  # known: not measured again


# a held run of the die tower (its compiled engine: millions of games a second) and the pilot's estimate of it
PEAK = """
import sys
from workbench.core.sim.runner import simulate
from workbench.core.sim.stream import pilot

def kb(key):
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith(key + ":")) * 1024

games = int(sys.argv[1])
simulate("dietower", 2000, progress=False)  # compiled (or loaded) first: a compile's memory is no game's
estimate = pilot("dietower", timed=False).memory(games)
open("/proc/self/clear_refs", "w").write("5")  # the peak starts again from here
before = kb("VmRSS")
frame = simulate("dietower", games, progress=False)
print(kb("VmHWM") - before, estimate, frame.height)
"""


def test_a_run_held_in_memory_is_estimated_at_what_it_takes_not_several_times_more():
    """Issue 39: 2,000,000 games of the die tower peak near 125 bytes a game, but were estimated at 914 (a
    parameter column counted at 64 bytes a game): the studio refused long runs that fit.  The estimate is the
    chunks and the frame they are joined into: never below what the run takes, and not twice more."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", PEAK, "2000000"], capture_output=True, text=True, check=True,
                         cwd=root, env=dict(os.environ)).stdout.split()
    peak, estimate, games = map(int, out)
    assert games == 2_000_000
    assert peak <= estimate < 2 * peak, (peak, estimate)
