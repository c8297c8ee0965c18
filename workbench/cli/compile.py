"""``workbench compile [GAME …] [--jobs N]``: every game's engine compiled into the on-disk cache."""

from __future__ import annotations

import argparse
import os
import time

import workbench.cli.options as options

HELP = ("compile every game's engine into the on-disk cache (a fresh checkout's first fast run then starts at "
        "once)")
RAW = False


def add_arguments(comp: argparse.ArgumentParser) -> None:
    """The flags of ``workbench compile``."""
    comp.add_argument("games", nargs="*", help="games (default: every game with a compiled engine)")
    comp.add_argument("--jobs", type=options.positive("jobs", options.MAX_WORKERS), default=os.cpu_count() or 1,
                      help="processes (default: one per core)")


def run(args: argparse.Namespace, rest: list[str], argv: list[str]) -> int:
    """Every engine compiled (or found in the cache), one line a game."""
    from workbench.core.sim.warm import warm

    started = time.perf_counter()
    took = warm(args.games, jobs=args.jobs, on_game=lambda name, seconds: print(
        f"{name}: engine ready in {seconds:.1f} s", flush=True))
    if not took and not args.games:
        print("every engine is compiled already (no engine source changed since) — "
              f"{time.perf_counter() - started:.1f} s")
        return 0
    print(f"{len(took)} engines ready in {time.perf_counter() - started:.1f} s")
    return 0
