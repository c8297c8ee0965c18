"""The ratio table of issue 23: the compiled engines against hand-written C on the same machine, in one window.

    .venv/bin/python benchmarks/anchors.py [--quick] [--rounds N] [--clock cpu|wall] [--anchors DIR]
    .venv/bin/python benchmarks/bench.py ratio [same options]   (the same; ``make bench`` runs it first)

When a C compiler (``cc``) and the C anchors (``../shared/anchors``: ``duel_c``, ``dietower_c``) are
present, the anchors are compiled into ``.cache/anchors/`` (the anchors' own flags: ``-O2 -march=native
-std=gnu11``; the shared folder is only read) and every row is measured side by side: a C run, then
the workbench run, ``--rounds`` times (default 3), each side's best kept.  Rows:

- duel, Crystal Garden and Free Steppe, random vs random and greedy vs greedy: the compiled engine on
  one thread (kernel + result columns, in chunks of the engine's chunk size), against ``duel_c``;
- duel, Crystal Garden, random vs random: ``simulate()`` end to end (1 worker, default chunks: the
  frame a user gets), against ``duel_c``;
- die game, 2 random players: the kernel alone (``kernel.play_fast``, its result arrays) and
  ``simulate()`` end to end, against ``dietower_c``.

Then Babel and Babylon (no C reference): random and greedy games/s of the compiled engine on one
thread against the figures the issue calls today's.  Without ``cc`` or the anchors the ratio rows
are skipped with one line saying why.  Other processes share the machine: the load average is
printed at the start and the end.  Rates are games per CPU second by default
(``--clock cpu``: the anchor process's CPU time, this process's CPU time over all its threads), which a
loaded machine disturbs far less than wall time; ``--clock wall`` uses wall seconds (the anchors' own
``games_per_sec``, which times their game loop).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ANCHORS = ROOT.parent / "shared" / "anchors"  # read only
BUILD = ROOT / ".cache" / "anchors"
CFLAGS = ("-O2", "-march=native", "-std=gnu11")  # the anchors' Makefiles
PROGRAMS = {"duel": ("duel_c/duel.c", ()), "dietower": ("dietower_c/dietower.c", ("-lm",))}

# C battlefield index (duel_c's table, 0-based) of the workbench's battlefields timed here
BATTLEFIELDS = {"crystal_garden": (1, "Crystal Garden"), "free_steppe": (6, "Free Steppe")}

# issue 23's "today" (games/s per core, compiled engine); greedy must reach 1.5x
TODAY = {("babel", "random"): 52_500, ("babel", "greedy"): 5_900,
         ("babylon", "random"): 32_000, ("babylon", "greedy"): 4_300}
GREEDY_TARGET = 1.5

# ratio targets of the issue (same run, quiet machine)
TARGETS = {"engine": 0.7, "duel_simulate": 0.6, "die_kernel": 0.6, "die_simulate": 0.45}


# ------------------------------------------------------------------------------------------ the C side
def missing(anchors: Path) -> str | None:
    """Why the C rows cannot run here (``None`` when they can)."""
    if shutil.which("cc") is None:
        return "no C compiler (cc) on PATH"
    absent = [src for src, _ in PROGRAMS.values() if not (anchors / src).is_file()]
    if absent:
        return f"no C anchors at {anchors} (missing {', '.join(absent)})"
    return None


def build(anchors: Path, out: Path = BUILD) -> dict[str, Path]:
    """Compile the anchors into ``out`` (again only when a source is newer); the executables by name."""
    out.mkdir(parents=True, exist_ok=True)
    built = {}
    for name, (src, libs) in PROGRAMS.items():
        source, exe = anchors / src, out / name
        sources = [source, *sorted((anchors / "common").glob("*.h"))]
        if not exe.exists() or exe.stat().st_mtime < max(s.stat().st_mtime for s in sources):
            subprocess.run(["cc", *CFLAGS, "-o", str(exe), str(source), *libs], check=True, capture_output=True,
                           text=True)
        built[name] = exe
    return built


def c_rate(command: list[str], clock: str) -> float:
    """Games/s of one anchor run: its own ``games_per_sec=`` (``wall``), or games over its CPU seconds (``cpu``)."""
    before = _children_cpu()
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    cpu = _children_cpu() - before
    found = re.search(r"games=([0-9]+).*games_per_sec=([0-9.]+)", out)
    if found is None:
        raise RuntimeError(f"{command[0]} printed no games=/games_per_sec=: {out[:200]!r}")
    return float(found.group(2)) if clock == "wall" else int(found.group(1)) / cpu


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# ---------------------------------------------------------------------------------- the workbench side
def timed(fn: Callable[[], object], games: int, clock: str) -> float:
    """Games/s of one call of ``fn``: over wall seconds, or over this process's CPU seconds (every thread)."""
    now = time.perf_counter if clock == "wall" else time.process_time
    t = now()
    fn()
    return games / (now() - t)


def engine_run(game: str, params: dict, agent: str, games: int, seed: int = 2) -> Callable[[], object]:
    """The compiled engine on one thread: ``games`` in chunks of the engine's chunk size (kernel + columns)."""
    from workbench.core.model import AgentSpec, get_game
    from workbench.core.sim.seeding import game_seeds

    model = get_game(game)
    resolved = model.resolve_params(params)
    config = model.make_config(resolved)
    agents = (AgentSpec.parse(agent),) * model.players(config)
    seeds = game_seeds(seed, 0, games)
    size = model.chunk_hint("fast")
    chunks = [seeds[i:i + size] for i in range(0, games, size)]
    model.play_fast(config, resolved, agents, seeds[:200])  # load the compiled kernel

    def run() -> None:
        for chunk in chunks:
            model.play_fast(config, resolved, agents, chunk)
    return run


def simulate_run(game: str, params: dict, agent: str, games: int) -> Callable[[], object]:
    """``simulate()`` end to end: seeds, kernel, the full frame, 1 worker, default chunks."""
    from workbench.core.model import get_game
    from workbench.core.sim.runner import simulate

    model = get_game(game)
    seats = model.players(model.make_config(model.resolve_params(params)))
    agents = ",".join([agent] * seats)
    simulate(game, 1_000, params=params, agents=agents, seed=0, workers=1, engine="fast", progress=False)

    def run() -> None:
        frame = simulate(game, games, params=params, agents=agents, seed=1, workers=1, engine="fast",
                         progress=False)
        assert frame.height == games
    return run


def die_kernel_run(games: int) -> Callable[[], object]:
    """The die game's kernel alone (2 random players): its result arrays, no frame."""
    from workbench.core.model import AgentSpec, get_game
    from workbench.core.sim.seeding import game_seeds
    from workbench.games.dietower import agents as ag
    from workbench.games.dietower.engine.kernel import play_fast

    model = get_game("dietower")
    config = model.make_config(model.resolve_params({"players": 2}))
    configs = [ag.config(AgentSpec.parse("random"))] * 2
    seeds = game_seeds(2, 0, games)
    play_fast(config, configs, seeds[:200])
    return lambda: play_fast(config, configs, seeds)


# ---------------------------------------------------------------------------------------------- the table
def side_by_side(c_command: list[str], workbench: Callable[[], object], games: int, rounds: int,
                 clock: str) -> tuple[float, float]:
    """Best of ``rounds`` alternating runs: (C games/s, workbench games/s)."""
    c_best = py_best = 0.0
    for _ in range(rounds):
        c_best = max(c_best, c_rate(c_command, clock))
        py_best = max(py_best, timed(workbench, games, clock))
    return c_best, py_best


def ratio_rows(exes: dict[str, Path], scale: float, rounds: int, clock: str) -> list[dict]:
    """Every ratio row of the issue, measured in this window."""
    def n(games: int) -> int:
        return max(1_000, int(games * scale))

    duel, die = str(exes["duel"]), str(exes["dietower"])
    plan: list[tuple[str, str, list[str], Callable[[], object], int]] = []
    for key, (index, label) in BATTLEFIELDS.items():
        for agent, c_games, py_games in (("random", 300_000, 100_000), ("greedy", 100_000, 40_000)):
            if key == "free_steppe":
                c_games, py_games = c_games // 2, py_games // 2
            plan.append((f"duel, {label}, {agent} vs {agent}", "engine",
                         [duel, str(index), "regular", agent, agent, str(n(c_games)), "1"],
                         engine_run("duel", {"battlefield": key}, agent, n(py_games)), n(py_games)))
    plan.append(("duel, Crystal Garden, random: simulate() end to end", "duel_simulate",
                 [duel, "1", "regular", "random", "random", str(n(300_000)), "1"],
                 simulate_run("duel", {"battlefield": "crystal_garden"}, "random", n(100_000)), n(100_000)))
    plan.append(("die game, 2 random players: kernel only", "die_kernel", [die, "2", str(n(5_000_000)), "1"],
                 die_kernel_run(n(2_000_000)), n(2_000_000)))
    plan.append(("die game, 2 random players: simulate() end to end", "die_simulate",
                 [die, "2", str(n(5_000_000)), "1"], simulate_run("dietower", {"players": 2}, "random", n(1_000_000)),
                 n(1_000_000)))
    rows = []
    for label, kind, command, run, games in plan:
        c, py = side_by_side(command, run, games, rounds, clock)
        rows.append({"same machine, same window": label, "C games/s": f"{c:,.0f}",
                     "workbench 1 core games/s": f"{py:,.0f}", "ratio": f"{py / c:.2f}",
                     "target": f"≥ {TARGETS[kind]}", "met": "yes" if py / c >= TARGETS[kind] else "no"})
        print(f"  {label}: C {c:,.0f} games/s ({command[-2]} games a run), workbench {py:,.0f} games/s "
              f"({games:,} games a run), ratio {py / c:.2f}", flush=True)
    return rows


def babel_babylon_rows(scale: float, rounds: int, clock: str) -> list[dict]:
    """Babel and Babylon games/s per core (compiled engine, one thread) against the issue's today."""
    rows = []
    for (game, agent), today in TODAY.items():
        games = max(500, int(today * 1.5 * scale))  # about a second at the target speed
        run = engine_run(game, {}, agent, games)
        best = max(timed(run, games, clock) for _ in range(rounds))
        greedy = agent == "greedy"
        row = {"game": game.capitalize(), "agents": f"{agent} vs {agent}", "games/s per core": f"{best:,.0f}",
               "today (issue 23)": f"{today:,}", "× today": f"{best / today:.2f}",
               "target": f"≥ {GREEDY_TARGET}× today" if greedy else "",
               "met": ("yes" if best / today >= GREEDY_TARGET else "no") if greedy else ""}
        rows.append(row)
        print(f"  {row['game']}, {row['agents']}: {best:,.0f} games/s ({games:,} games a run, "
              f"{best / today:.2f}× today)", flush=True)
    return rows


def show(pl, rows: list[dict]) -> None:
    """A table a person reads: every row, no dtype line, no shape."""
    with pl.Config(tbl_rows=-1, tbl_width_chars=200, fmt_str_lengths=80, tbl_hide_dataframe_shape=True,
                   tbl_hide_column_data_types=True):
        print(pl.DataFrame(rows), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the games (a smoke run)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating C / workbench runs per row (best kept)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="games over CPU seconds (default: steadier on a shared machine) or over wall seconds")
    parser.add_argument("--anchors", type=Path, default=ANCHORS, help="the C anchors' folder (read only)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be a positive integer, got {args.rounds}")
    import polars as pl

    scale = 0.1 if args.quick else 1.0
    print(f"# engines against C on {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} "
          f"(best of {args.rounds}, C and workbench alternating; games per {args.clock} second)", flush=True)
    why = missing(args.anchors)
    if why is not None:
        print(f"## ratio to C skipped: {why}", flush=True)
    else:
        print(f"## ratio to C (anchors from {args.anchors}, built in {BUILD.relative_to(ROOT)})", flush=True)
        rows = ratio_rows(build(args.anchors), scale, args.rounds, args.clock)
        show(pl, rows)
    print("## Babel and Babylon, compiled engine, 1 thread, against issue 23's today", flush=True)
    other = babel_babylon_rows(scale, args.rounds, args.clock)
    show(pl, other)
    print(f"# load average at the end {os.getloadavg()[0]:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
