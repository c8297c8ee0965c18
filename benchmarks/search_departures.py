"""Where Towers of Babylon's search overrules its prior, by kind of decision (issue 37: what a fast tier must learn).

    .venv/bin/python benchmarks/search_departures.py [--opponent greedy@raised] [--pairs 25] [--seed 77]

The declared ``search`` plays ``--opponent`` over the field of ``benchmarks/search.py`` (every precon against
itself in turn), every seed in both seats, on one core.  Every decision the search rolled out is kept
(``SearchAgent.trace``): the prior's first candidate, the one played and the candidates' mean rollout values.
Per kind of decision (the prior's first candidate's: play, move, attack, build, offer, draw, block, …) it prints
how often the search played another candidate than the prior's first, and what the overruling candidates gained
in rollout value.  A flaw of one kind (as default greedy's Offerings were: issue 37) shows as one kind overruled
far more often than the rest; a gap spread over every kind is the look-ahead the prior lacks.

The search's score against the opponent comes first, with its n and 95 % Wilson interval (a draw as half).
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks.search import settings  # noqa: E402
from workbench.core.model import get_game  # noqa: E402
from workbench.core.sim.play import play_game  # noqa: E402
from workbench.core.sim.seeding import game_seeds  # noqa: E402
from workbench.core.stats.rates import wilson  # noqa: E402
from workbench.games.babylon import rules  # noqa: E402


def kind(action, config) -> str:
    """The first word of the action's text: ``play``, ``move``, ``attack``, ``offer``, …"""
    return rules.describe_action(action, config).split()[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", default="greedy@raised")
    parser.add_argument("--pairs", type=int, default=25, help="seeds; each is played with the search in both seats")
    parser.add_argument("--seed", type=int, default=77)
    args = parser.parse_args(argv)
    model = get_game("babylon")
    cells = settings("babylon")
    trace: list = []
    score, n, started = 0.0, 0, time.process_time()
    for i, seed in enumerate(game_seeds(args.seed, 0, args.pairs)):
        params = model.resolve_params(cells[i % len(cells)])
        config = model.make_config(params)
        for seat in (0, 1):
            specs = [model.resolve_spec(args.opponent, params)] * 2
            specs[seat] = model.resolve_spec("search", params)
            players = [model.make_agent(spec) for spec in specs]
            players[seat].trace = trace
            final = play_game(model, config, players, int(seed), max_steps=model.max_steps(params))
            winner = model.result_row(config, final)["winner"]
            score += 1.0 if winner == f"p{seat + 1}" else 0.5 if winner == "draw" else 0.0
            n += 1
    low, high = wilson(score, n)
    print(f"search vs {args.opponent}: {score / n:.1%} [95 % {low:.1%}, {high:.1%}] n={n} "
          f"({time.process_time() - started:.0f} s CPU); decisions searched: {len(trace):,}")
    searched, overruled, gains = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    for config, candidates, pick, means in trace:
        k = kind(candidates[0], config)
        searched[k] += 1
        if pick != 0:
            overruled[k] += 1
            gains[k].append(float(means[pick] - means[0]))
    print(f"{'prior played':>14} {'searched':>9} {'overruled':>10} {'share':>6} {'mean gain':>10}")
    for k, count in searched.most_common():
        gain = f"{np.mean(gains[k]):+.3f}" if gains[k] else "—"
        print(f"{k:>14} {count:>9,} {overruled[k]:>10,} {overruled[k] / count:>6.0%} {gain:>10}")
    total = sum(overruled.values())
    print(f"{'all':>14} {len(trace):>9,} {total:>10,} {total / max(1, len(trace)):>6.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
