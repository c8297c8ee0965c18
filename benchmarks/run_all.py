"""`make bench`: ``bench.py ratio`` (the C anchors), then ``bench.py GAME`` for every game with a compiled engine,
each in its own process; then ``scaling.py`` (1 and 2 workers, and one core) and ``search.py``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from workbench.core.model import game_names, get_game  # noqa: E402


def main() -> int:
    games = [g for g in game_names() if get_game(g).engine is not None]
    failed = []
    print("=== bench.py ratio (the C anchors) ===", flush=True)
    quick = ["--quick"] if "--quick" in sys.argv[1:] else []
    if subprocess.call([sys.executable, str(HERE / "bench.py"), "ratio", *quick]) != 0:
        failed.append("ratio")
    for game in games:
        print(f"\n=== bench.py {game} ===", flush=True)
        if subprocess.call([sys.executable, str(HERE / "bench.py"), game, *sys.argv[1:]]) != 0:
            failed.append(game)
    print("\n=== scaling.py (simulate() on 1 and 2 workers, and on one core) ===", flush=True)
    if subprocess.call([sys.executable, str(HERE / "scaling.py"), *(["--games-scale", "0.2"] if quick else [])]) != 0:
        failed.append("scaling")
    print("\n=== search.py (core's search against greedy@tuned: strength and time a game) ===", flush=True)
    if subprocess.call([sys.executable, str(HERE / "search.py"), *quick]) != 0:
        failed.append("search")
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
