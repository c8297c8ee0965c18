"""`make bench`: ``bench.py ratio`` (the C anchors), then ``bench.py GAME`` for every game with a compiled engine,
each in its own process; then ``scaling.py`` (1 and 2 workers, and one core), ``search.py``, and ``raise.py`` for every
game holding a raised weight set (``data/GAME/agents/raised.toml``, issue 37), ``search_departures.py`` (where
Babylon's search overrules its prior), ``studio_stop.py`` (Stop's latency
and progress cadence), ``studio_forms.py`` (what a study switch builds); last ``flaws.py`` (no single greedy
weight change may win >= 65 % against the default greedy, every game with a greedy)."""

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
    for game in ("duel", "babel", "babylon"):
        if not (get_game(game).data_folder() / "agents" / "raised.toml").is_file():
            continue
        print(f"\n=== raise.py {game} (the raised set: its rounds, against the tiers, its speed, its search) ===",
              flush=True)
        sizes = ["--fast-games", "400", "--search-games", "20"] if quick else []
        if subprocess.call([sys.executable, str(HERE / "raise.py"), game, *sizes]) != 0:
            failed.append(f"raise {game}")
    print("\n=== search_departures.py (where Babylon's search overrules its prior, by kind of decision) ===",
          flush=True)
    if subprocess.call([sys.executable, str(HERE / "search_departures.py"),
                        *(["--pairs", "5"] if quick else [])]) != 0:
        failed.append("search_departures")
    print("\n=== studio_stop.py (the studio's Stop within 2 s, progress at least once a second) ===", flush=True)
    if subprocess.call([sys.executable, str(HERE / "studio_stop.py")]) != 0:
        failed.append("studio_stop")
    print("\n=== studio_forms.py (the widgets and kernel CPU a study switch costs) ===", flush=True)
    if subprocess.call([sys.executable, str(HERE / "studio_forms.py")]) != 0:
        failed.append("studio_forms")
    print("\n=== flaws.py (greedy's weights: no single change may win >= 65 % against the default) ===", flush=True)
    if subprocess.call([sys.executable, str(HERE / "flaws.py"), *(["--screen", "400"] if quick else [])]) != 0:
        failed.append("flaws")
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
