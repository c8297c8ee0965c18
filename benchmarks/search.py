"""Core's search agent against tuned greedy, and its time a game, in the duel, Babel and Babylon (issues 18, 37).

    .venv/bin/python benchmarks/search.py [GAME ...] [--games 400] [--quick] [--agent SPEC] [--clock cpu|wall]
                                          [--seed N] [--against SPEC] [--json FILE]

For each game, on its issue setting (the duel: Crystal Garden, regular deck; Babel: the defaults;
Babylon: every precon against itself, the decks in turn), ``--games`` games of ``search`` (the game's
default options, or ``--agent``) against ``greedy@tuned`` on one core: every game seed is played twice,
search in p1 and in p2 (common seeds, both seats).  Prints search's win rate with its 95 % Wilson
interval and n (a draw counts half), whether issue 18's bar of 60 % is reached, and the time of a
whole game (both seats' moves, reference loop with compiled rollouts) as a mean with its 95 % interval
against issue 37's bar (the duel and Babel 0.1 s, Babylon 0.25 s; issue 18's were 0.2 s and 1.6 s), and
beside it the search's own share (its decisions only).  ``--quick``: 40 games a game.
A game is timed on this process's CPU clock by default (one core: the search and its compiled rollouts
run in this thread, and other processes sharing the machine do not inflate it); ``--clock wall`` times
wall-clock seconds instead.

``--python-deal`` has core deal the search's worlds one by one in Python, as before the games' compiled
``SearchHooks.deal`` (issue 37): the same decisions, so the two times compare on the same games.

``--seed`` picks the game seeds: choose options on one seed and report on another.  ``--against SPEC``
also plays a second search spec on the same seeds and seats and prints the paired difference of the
two (``--agent`` minus ``--against``) with its 95 % interval: the way to choose between two options.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.core.model import get_game  # noqa: E402
from workbench.core.sim.play import play_game  # noqa: E402
from workbench.core.sim.seeding import game_seeds  # noqa: E402
from workbench.core.stats.rates import wilson  # noqa: E402

# the settings and bars: parameters (a list: the games cycle through them), seconds a game
SETTINGS = {
    "duel": ([{"battlefield": "crystal_garden", "deck": "regular"}], 0.1),
    "babel": ([{}], 0.1),
    "babylon": (None, 0.25),  # every precon against itself (read from the model)
}
BAR = 0.60
OPPONENT = "greedy@tuned"


class _Timed:
    """An agent whose decisions are timed (``seconds``), on the clock ``now``."""

    def __init__(self, agent: object, now: object) -> None:
        self.agent, self.now, self.seconds = agent, now, 0.0

    def act(self, *args: object) -> object:
        start = self.now()
        try:
            return self.agent.act(*args)
        finally:
            self.seconds += self.now() - start

    def __getattr__(self, name: str) -> object:
        return getattr(self.agent, name)


def settings(game: str) -> list[dict]:
    """The parameter sets the games cycle through."""
    cells, _ = SETTINGS[game]
    if cells is not None:
        return cells
    decks = get_game(game).param("deck_p1").choices or ()
    return [{"deck_p1": d, "deck_p2": d} for d in decks]


def measure(game: str, games: int, agent: str, seed: int = 2026, clock: str = "cpu", python_deal: bool = False) -> dict:
    """Search against tuned greedy: ``games`` games (half the seeds × both seats), win rate and seconds a game."""
    model = get_game(game)
    cells = settings(game)
    pairs = max(1, games // 2)
    now = time.process_time if clock == "cpu" else time.perf_counter
    wins = draws = 0.0
    seconds: list[float] = []
    own = 0.0  # the search's own decisions
    scores: list[float] = []  # search's score of each game, in seed order, p1 then p2
    for i, s in enumerate(game_seeds(seed, 0, pairs)):
        params = model.resolve_params(cells[i % len(cells)])
        config = model.make_config(params)
        for search_seat in (0, 1):
            specs = [model.resolve_spec(OPPONENT, params)] * 2
            specs[search_seat] = model.resolve_spec(agent, params)
            players = [model.make_agent(spec) for spec in specs]
            if python_deal and hasattr(players[search_seat], "dealer"):  # core deals the worlds one by one
                players[search_seat].resolve()
                players[search_seat].dealer = None
            players[search_seat] = _Timed(players[search_seat], now)
            start = now()
            final = play_game(model, config, players, int(s), max_steps=model.max_steps(params))
            seconds.append(now() - start)
            own += players[search_seat].seconds
            winner = model.result_row(config, final)["winner"]
            wins += winner == f"p{search_seat + 1}"
            draws += winner == "draw"
            scores.append(1.0 if winner == f"p{search_seat + 1}" else 0.5 if winner == "draw" else 0.0)
    n = len(seconds)
    score = wins + draws / 2
    low, high = wilson(int(round(score)), n)
    mean = sum(seconds) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in seconds) / max(1, n - 1))
    half = 1.96 * sd / math.sqrt(n)
    return {"game": game, "agent": agent, "opponent": OPPONENT, "n": n, "wins": int(wins), "draws": int(draws),
            "rate": score / n, "low": low, "high": high, "bar": BAR, "s_per_game": mean,
            "s_low": mean - half, "s_high": mean + half, "s_bar": SETTINGS[game][1], "clock": clock, "seed": seed,
            "search_s_per_game": own / n, "scores": scores}


def paired(row: dict, base: dict) -> dict:
    """``row`` minus ``base`` on the same games: the mean paired difference of search's score and its 95 % interval."""
    diffs = [a - b for a, b in zip(row["scores"], base["scores"], strict=True)]
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / max(1, n - 1))
    half = 1.96 * sd / math.sqrt(n)
    return {"game": row["game"], "agent": row["agent"], "against": base["agent"], "n": n, "diff": mean,
            "low": mean - half, "high": mean + half, "seed": row["seed"]}


def line(row: dict) -> str:
    """One readable line of a measurement."""
    reached = ("reached" if row["low"] >= row["bar"] else "point estimate at or above, interval not" if
               row["rate"] >= row["bar"] else "not reached")
    fast = "within" if row["s_high"] <= row["s_bar"] else ("mean within" if row["s_per_game"] <= row["s_bar"]
                                                           else "over")
    return (f"{row['game']:>8}  {row['agent']} vs {row['opponent']}: {row['rate']:.1%} "
            f"[95 % {row['low']:.1%}, {row['high']:.1%}] n={row['n']} draws={row['draws']} — 60 % bar {reached};  "
            f"{row['s_per_game']:.3f} s a game ({row['clock']}) [95 % {row['s_low']:.3f}, {row['s_high']:.3f}] — "
            f"{row['s_bar']} s bar {fast}; the search's own decisions {row['search_s_per_game']:.3f} s a game")


def paired_line(row: dict) -> str:
    """One readable line of a paired comparison."""
    return (f"{row['game']:>8}  {row['agent']} minus {row['against']} (same games): {row['diff']:+.1%} "
            f"[95 % {row['low']:+.1%}, {row['high']:+.1%}] n={row['n']} seed={row['seed']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", default=list(SETTINGS), help="games to measure (default: all three)")
    ap.add_argument("--games", dest="n", type=int, default=400, help="games per game (both seats; default 400)")
    ap.add_argument("--quick", action="store_true", help="40 games per game")
    ap.add_argument("--agent", default="search", help="the search spec (default: the game's defaults)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="time a game on the CPU clock (default) "
                    "or wall-clock")
    ap.add_argument("--against", default=None, help="a second search spec played on the same games: prints the "
                    "paired difference")
    ap.add_argument("--python-deal", action="store_true", help="deal the search's worlds one by one in Python "
                    "(SearchHooks.deal off): the same decisions, the time before the compiled deal")
    ap.add_argument("--json", default=None, help="also write the rows to this JSON file")
    args = ap.parse_args()
    unknown = [g for g in args.games if g not in SETTINGS]
    if unknown:
        ap.error(f"unknown game(s) {', '.join(unknown)}; allowed: {', '.join(SETTINGS)}")
    n = 40 if args.quick else args.n
    rows = []
    for game in args.games:
        row = measure(game, n, args.agent, args.seed, args.clock, args.python_deal)
        rows.append(row)
        print(line(row), flush=True)
        if args.against:
            base = measure(game, n, args.against, args.seed, args.clock, args.python_deal)
            rows.append(base)
            print(line(base), flush=True)
            rows.append(paired(row, base))
            print(paired_line(rows[-1]), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
