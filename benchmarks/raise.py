"""The loop that raises the agents (issue 37): each round's curve, the raised set against the earlier tiers, its
speed, and the search that rolls out with it.

    .venv/bin/python benchmarks/raise.py GAME [--set raised] [--parts curve,fast,speed,search,versus]
                                         [--fast-games 2000] [--search-games 200] [--seed 2027] [--json FILE]

Parts (each on one core):

* ``curve``: from the set file ``data/GAME/agents/SET.toml`` (``workbench tune GAME --name SET --population …``):
  every round's last centre against its population and its held-out score against each member (n, interval).
* ``fast``: ``greedy@SET`` against ``greedy@tuned`` and against default ``greedy`` on the compiled engine, over
  the field the set was raised on (its parameter cells in turn: Babylon every deck pairing), ``--fast-games``
  games each, every seed in both seats.
* ``speed``: games a second of ``greedy@SET`` in both seats against default ``greedy`` in both seats (compiled,
  one core, the field's first cell), best of three; the issue's bar is a ratio of at least 0.5.
* ``search``: the search rolling out with ``greedy@SET`` (its rollouts and prior; what ``rollout=best`` plays
  once the set is a declared tier) against the old search (``OLD``: default greedy's rollouts where they were),
  head to head (``--new SPEC``: another new search, e.g. ``search``, the defaults), ``--search-games`` games,
  every seed in both seats, on ``benchmarks/search.py``'s setting (Babylon: every precon against itself in
  turn).  The issue's bar: 55 %.  Babylon's declared search rolls out with default greedy again (prior
  greedy@tuned, as ``OLD``): rolling out with greedy@raised measured 17 points weaker (``games/babylon/agents.py``).
* ``versus``: ``greedy@SET`` against that search, as ``search``.  The issue's bar: 45 %.

A score counts a draw as half; every rate has its n and 95 % Wilson interval.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.search import settings  # noqa: E402
from workbench.core.model import get_game, load_weight_set  # noqa: E402
from workbench.core.sim.play import play_game  # noqa: E402
from workbench.core.sim.runner import simulate  # noqa: E402
from workbench.core.sim.seeding import game_seeds  # noqa: E402
from workbench.core.stats.rates import wilson  # noqa: E402

# the search before issue 37: its rollout and prior as the game's hooks declared them
OLD = {"duel": "search:rollout=greedy@tuned", "babel": "search:rollout=greedy,prior=greedy@tuned",
       "babylon": "search:rollout=greedy,prior=greedy@tuned"}
PARTS = ("curve", "fast", "speed", "search", "versus")


def rate(wins: float, draws: float, n: int) -> dict:
    """A score (a draw counts half) with its 95 % Wilson interval."""
    score = wins + draws / 2
    low, high = wilson(score, n)
    return {"n": n, "wins": int(wins), "draws": int(draws), "score": score / n, "low": float(low), "high": float(high)}


def shown(row: dict) -> str:
    """``57.1 % [55.0, 59.2] n=2000``."""
    return f"{row['score']:.1%} [95 % {row['low']:.1%}, {row['high']:.1%}] n={row['n']}"


def curve(game: str, name: str) -> list[dict]:
    """Every round's end of curve and held-out rows, as the set file holds them."""
    data = load_weight_set(get_game(game), name)
    print(f"{game}: greedy@{name} — {data.get('raise', {}).get('method', 'one tuning run')}; command: "
          f"{data.get('command')}")
    for row in data.get("rounds", []):
        print(f"  round {row['round']}: {row['generations']} generations, {row['games_played']:,} games, last "
              f"centre vs [{row['population']}] {row['centre']:.1%} [95 % {row['centre_low']:.1%}, "
              f"{row['centre_high']:.1%}] n={row['centre_n']}")
    for row in data.get("held_out", []):
        print(f"    held out, round {row['round']} vs {row['opponent']}: {shown(row)}")
    for row in data.get("widened", []):
        print(f"    widened after round {row['round']}: {row['option']} [{row['low_before']}, {row['high_before']}] "
              f"-> [{row['low']}, {row['high']}] (at {row['value']})")
    edge = data.get("raise", {}).get("at_edge_after_last_round")
    if edge is not None:
        print(f"  weights within 5 % of their box's edge after the last round: {len(edge)} of "
              f"{len(data['options'])} ({', '.join(edge) or 'none'})")
    return [*data.get("rounds", []), *data.get("held_out", [])]


def field(game: str, name: str) -> list[dict]:
    """The parameter cells the set was raised on (the field)."""
    data = load_weight_set(get_game(game), name)
    return [dict(c) for c in data.get("tuning", {}).get("params", [{}])] or [{}]


def fast(game: str, name: str, opponent: str, games: int, seed: int) -> dict:
    """``greedy@name`` vs ``opponent`` on the compiled engine over the field: every seed in both seats."""
    cells = field(game, name)
    per_cell = max(1, games // (2 * len(cells)))
    wins = draws = n = 0
    for i, cell in enumerate(cells):
        for seat, lineup in ((1, [f"greedy@{name}", opponent]), (2, [opponent, f"greedy@{name}"])):
            frame = simulate(game, per_cell, params=cell, agents=lineup, seed=seed + i, engine="fast",
                             progress=False)
            wins += int((frame["winner"] == f"p{seat}").sum())
            draws += int((frame["winner"] == "draw").sum())
            n += frame.height
    row = {"part": "fast", "game": game, "agent": f"greedy@{name}", "opponent": opponent, **rate(wins, draws, n)}
    print(f"{game:>8}  greedy@{name} vs {opponent} (compiled, the field: {len(cells)} cell(s), both seats): "
          f"{shown(row)}", flush=True)
    return row


def speed(game: str, name: str, games: int = 4000) -> dict:
    """Games a second of the set against default greedy's, compiled, one core; their ratio."""
    cell = field(game, name)[0]
    out = {}
    for label, agents in (("greedy", "greedy,greedy"), (f"greedy@{name}", f"greedy@{name},greedy@{name}")):
        simulate(game, 50, params=cell, agents=agents, seed=1, engine="fast", progress=False)  # compiled, warm
        best = 0.0
        for rep in range(3):
            start = time.perf_counter()
            simulate(game, games, params=cell, agents=agents, seed=10 + rep, engine="fast", progress=False)
            best = max(best, games / (time.perf_counter() - start))
        out[label] = best
    ratio = out[f"greedy@{name}"] / out["greedy"]
    print(f"{game:>8}  speed: greedy@{name} {out[f'greedy@{name}']:,.0f} games/s, greedy {out['greedy']:,.0f} "
          f"games/s; ratio {ratio:.2f} (bar 0.5; wall clock, best of 3 × {games:,} games)", flush=True)
    return {"part": "speed", "game": game, "games_per_s": out, "ratio": ratio}


def match(game: str, agent: str, opponent: str, games: int, seed: int, part: str) -> dict:
    """``agent`` vs ``opponent`` on benchmarks/search.py's setting, reference loop: every seed in both seats."""
    model = get_game(game)
    cells = settings(game)
    wins = draws = n = 0
    start = time.process_time()
    for i, s in enumerate(game_seeds(seed, 0, max(1, games // 2))):
        params = model.resolve_params(cells[i % len(cells)])
        config = model.make_config(params)
        for seat in (0, 1):
            specs = [model.resolve_spec(opponent, params)] * 2
            specs[seat] = model.resolve_spec(agent, params)
            final = play_game(model, config, [model.make_agent(sp) for sp in specs], int(s),
                              max_steps=model.max_steps(params))
            winner = model.result_row(config, final)["winner"]
            wins += winner == f"p{seat + 1}"
            draws += winner == "draw"
            n += 1
    row = {"part": part, "game": game, "agent": agent, "opponent": opponent, **rate(wins, draws, n),
           "cpu_s_per_game": (time.process_time() - start) / n, "seed": seed}
    print(f"{game:>8}  {agent} vs {opponent}: {shown(row)} ({row['cpu_s_per_game']:.2f} CPU s a game)", flush=True)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game", choices=tuple(OLD))
    ap.add_argument("--set", default="raised", help="the raised weight set (default raised)")
    ap.add_argument("--parts", default=",".join(PARTS), help=f"comma list of {', '.join(PARTS)} (default all)")
    ap.add_argument("--fast-games", type=int, default=2000, help="games per fast comparison (default 2000)")
    ap.add_argument("--search-games", type=int, default=200, help="games per search match (default 200)")
    ap.add_argument("--new", default=None, help="the new search spec (default search:rollout=greedy@SET,"
                    "prior=greedy@SET; `search` plays the game's declared defaults)")
    ap.add_argument("--seed", type=int, default=2027)
    ap.add_argument("--json", default=None, help="also write the rows to this JSON file")
    args = ap.parse_args()
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        ap.error(f"unknown part(s) {', '.join(unknown)}; allowed: {', '.join(PARTS)}")
    game, name = args.game, args.set
    new = args.new or f"search:rollout=greedy@{name},prior=greedy@{name}"  # a game's own default prior aside
    rows: list = []
    if "curve" in parts:
        rows += curve(game, name)
    if "fast" in parts:
        rows += [fast(game, name, o, args.fast_games, args.seed) for o in ("greedy@tuned", "greedy")]
    if "speed" in parts:
        rows.append(speed(game, name))
    if "search" in parts:
        rows.append(match(game, new, OLD[game], args.search_games, args.seed, "search"))
    if "versus" in parts:
        rows.append(match(game, f"greedy@{name}", new, args.search_games, args.seed, "versus"))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
