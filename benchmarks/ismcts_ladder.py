"""IS-MCTS (OpenSpiel, ``workbench.interop.openspiel``) against greedy on the duel, both seatings.

Game ``i`` of each seating uses game seed ``i`` of the master seed, so both seatings play the same
deals with the seats swapped (and the first mover drawn from the seed, as in ``simulate``); each
game is what ``simulate("duel", ..., agents="ismcts:...,greedy", seed=seed)`` plays on the
reference engine.  Prints the IS-MCTS win rate with its 95 % Wilson interval and n, draws, the
exact binomial test against 50 %, and seconds per game (wall clock, per worker).  Needs the
``openspiel`` extra.  Takes minutes:

    .venv/bin/python benchmarks/ismcts_ladder.py --games 60 --budget 100 [--rollout random] [--uct 2] [--workers 1]
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

from workbench.core.model import get_game
from workbench.core.sim.play import play_game
from workbench.core.sim.seeding import game_seed
from workbench.core.stats.rates import binom_pvalue, wilson
from workbench.interop.openspiel import with_ismcts


def play_one(spec: str, versus: str, search_seat: int, params: dict, seed: int) -> tuple[str, str, float]:
    """One game: ``(winner, the searcher's seat name, seconds)``."""
    model = get_game("duel")
    config = model.make_config(model.resolve_params(params))
    agents = [with_ismcts(versus, model), with_ismcts(versus, model)]
    agents[search_seat] = with_ismcts(spec, model)
    start = time.perf_counter()
    state = play_game(model, config, agents, seed, max_steps=model.max_steps(model.resolve_params(params)))
    return model.result_row(config, state)["winner"], f"p{search_seat + 1}", time.perf_counter() - start


def summary(label: str, results: list[tuple[str, str, float]]) -> str:
    n = len(results)
    wins = sum(winner == seat for winner, seat, _ in results)
    draws = sum(winner == "draw" for winner, _, _ in results)
    lo, hi = wilson(wins, n)
    p = binom_pvalue(wins, n, 0.5)
    seconds = sum(s for _, _, s in results) / n
    verdict = "significant" if p < 0.05 else "not significant"
    return (f"{label:<28} win rate {wins / n:6.1%}  [{lo:6.1%}, {hi:6.1%}]  n={n:<4} wins={wins:<4} draws={draws:<3} "
            f"p vs 50% = {p:.3g} ({verdict})  {seconds:6.1f} s/game")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=60, help="games in all, half in each seating")
    ap.add_argument("--budget", type=int, default=100, help="IS-MCTS simulations per decision")
    ap.add_argument("--rollout", default="random", help="leaf evaluation: random or a duel agent (e.g. greedy)")
    ap.add_argument("--uct", type=float, default=2.0, help="UCT exploration constant")
    ap.add_argument("--versus", default="greedy", help="the opponent agent")
    ap.add_argument("--battlefield", default="crystal_garden")
    ap.add_argument("--seed", type=int, default=1, help="master seed")
    ap.add_argument("--workers", type=int, default=1, help="worker processes (each plays whole games)")
    args = ap.parse_args()
    spec = f"ismcts:budget={args.budget},rollout={args.rollout},uct={args.uct}"
    params = {"battlefield": args.battlefield}
    half = args.games // 2
    jobs = [(spec, args.versus, seat, params, game_seed(args.seed, i)) for seat in (0, 1) for i in range(half)]
    print(f"duel {args.battlefield}: {spec} vs {args.versus}, {2 * half} games, master seed {args.seed}, "
          f"{args.workers} worker(s)")
    start = time.perf_counter()
    if args.workers == 1:
        results = [play_one(*job) for job in jobs]
    else:
        with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as pool:
            results = list(pool.map(play_one, *zip(*jobs, strict=True)))
    print(summary("ismcts as p1", results[:half]))
    print(summary("ismcts as p2", results[half:]))
    print(summary("ismcts, both seatings", results))
    print(f"wall clock {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
