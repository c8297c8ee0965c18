"""Where Babylon's compiled engine spends its time (issue 23, item 1 for Babylon; no C reference: its own speed).

    .venv/bin/python benchmarks/babylon_profile.py [--agents random,greedy] [--rounds N] [--scale X] [--perf]

For each agent pairing (both seats the same agent, default Config) it times, in chunks of the engine's
chunk size, on this process's CPU clock (one thread; the machine is shared), best of ``--rounds``:

- ``kernel``: ``fast.run_kernel`` alone (the compiled game loop and its raw arrays);
- ``engine``: ``fast.play_chunk`` (kernel + the result frame: what ``benchmarks/anchors.py`` times);

the two take turns within each round, so a change in the machine's load falls on both;

and prints games/s against issue 23's "today" (and greedy's 1.5x target), with the load average.

``--perf`` adds a sampling profile of the kernel by function: it runs itself again under ``perf record``
(when ``perf`` is on PATH) with a fresh numba cache in a temporary folder (so the kernel is compiled in
that process, about a minute, and its functions' addresses are known), writes those addresses to
``/tmp/perf-<pid>.map`` (the file perf reads for JIT code) and prints each kernel function's share of
the samples taken in compiled code.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TODAY = {"random": 32_000, "greedy": 4_300}  # issue 23's today, games/s per core
GAMES = {"random": 40_000, "greedy": 4_000}
PREFIX = "_ZN9workbench5games7babylon6kernel"


def _setup(agent: str, games: int):
    from workbench.core.model import AgentSpec, get_game
    from workbench.core.sim.seeding import game_seeds

    model = get_game("babylon")
    config = model.make_config(model.resolve_params({}))
    agents = (AgentSpec.parse(agent),) * 2
    seeds = game_seeds(2, 0, games)
    size = model.chunk_hint("fast")
    return config, agents, [seeds[i:i + size] for i in range(0, games, size)]


def _best(fns: tuple, rounds: int) -> list[float]:
    """The shortest of ``rounds`` calls of each of ``fns`` in CPU seconds, the calls taking turns (same load)."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            t = time.process_time()
            fn()
            best[i] = min(best[i], time.process_time() - t)
    return best


def timings(agent: str, games: int, rounds: int) -> dict:
    """Kernel and engine games/s of ``agent`` vs ``agent`` (best of ``rounds``)."""
    from workbench.games.babylon.engine import fast

    config, agents, chunks = _setup(agent, games)
    fast.play_chunk(config, agents, chunks[0][:50])  # load the compiled kernel
    kernel, engine = _best((lambda: [fast.run_kernel(config, agents, c) for c in chunks],
                            lambda: [fast.play_chunk(config, agents, c) for c in chunks]), rounds)
    return {"agents": f"{agent} vs {agent}", "games": games, "kernel games/s": games / kernel,
            "engine games/s": games / engine, "frame share": 1 - kernel / engine,
            "× today": games / engine / TODAY[agent]}


def _write_perf_map() -> None:
    """The compiled kernel's functions and addresses as ``/tmp/perf-<pid>.map`` (play_games' library)."""
    from workbench.games.babylon.engine import kernel as K

    library = next(iter(K.play_games.overloads.values())).library
    names = set(re.findall(r'^define [^@]*@"?([^"( ]+)"?\(', library.get_llvm_str(), re.M))
    found = sorted((library.get_pointer_to_function(n), n) for n in names)
    found = [(a, n) for a, n in found if a]
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for i, (address, name) in enumerate(found):
            size = found[i + 1][0] - address if i + 1 < len(found) else 0x10000
            short = re.sub(r"B\d+v\d+.*", "", re.sub(rf"^{PREFIX}\d+", "", name))
            out.write(f"{address:x} {size:x} {short}\n")


def _profiled_run(agent: str, games: int) -> None:
    """The child under ``perf record``: compile, map, then play."""
    from workbench.games.babylon.engine import fast

    config, agents, chunks = _setup(agent, games)
    fast.run_kernel(config, agents, chunks[0][:5])
    _write_perf_map()
    for chunk in chunks:
        fast.run_kernel(config, agents, chunk)


def perf_profile(agent: str, games: int) -> list[tuple[str, float]]:
    """Each kernel function's share of the compiled code's samples (``perf record`` of a child process)."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / "numba")}
        subprocess.run(["perf", "record", "-q", "-F", "2999", "-o", str(data), sys.executable, __file__, "--child",
                        agent, str(games)], check=True, env=env, capture_output=True)
        command = ["perf", "report", "-i", str(data), "--no-children", "--sort", "dso,sym", "-g", "none", "-n"]
        report = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    shares: dict[str, float] = {}
    for line in report.splitlines():
        match = re.match(r"\s*[\d.]+%\s+(\d+)\s+\[JIT\] tid \d+\s+\[\.\]\s+(\S+)", line)
        if match:
            shares[match.group(2)] = shares.get(match.group(2), 0.0) + float(match.group(1))
    total = sum(shares.values()) or 1.0
    return sorted(((name, share / total) for name, share in shares.items()), key=lambda r: -r[1])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        _profiled_run(argv[1], int(argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="random,greedy", help="comma-separated: random, greedy")
    parser.add_argument("--rounds", type=int, default=5, help="timed runs per row (best kept)")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the default games per row")
    parser.add_argument("--perf", action="store_true", help="add a per-function sampling profile (perf)")
    args = parser.parse_args(argv)
    agents = args.agents.split(",")
    bad = [a for a in agents if a not in TODAY]
    if bad or args.rounds < 1 or args.scale <= 0:
        parser.error(f"--agents takes {', '.join(TODAY)} (got {args.agents!r}); --rounds a positive integer, "
                     "--scale a positive number")
    print(f"# Babylon compiled engine, 1 thread, CPU clock, best of {args.rounds}; "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    for agent in agents:
        games = max(200, int(GAMES[agent] * args.scale))
        row = timings(agent, games, args.rounds)
        target = "  (target 1.5× today)" if agent == "greedy" else ""
        print(f"{row['agents']}: kernel {row['kernel games/s']:,.0f} games/s, engine {row['engine games/s']:,.0f} "
              f"games/s ({games:,} games a run; the frame {row['frame share']:.0%} of it), "
              f"{row['× today']:.2f}× today's {TODAY[agent]:,}{target}", flush=True)
        if args.perf:
            if shutil.which("perf") is None:
                print("  per-function profile skipped: no perf on PATH", flush=True)
                continue
            for name, share in perf_profile(agent, games)[:20]:
                print(f"  {share:6.1%}  {name}", flush=True)
    print(f"# load average at the end {os.getloadavg()[0]:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
