"""Golden playthroughs for every game: one seeded game written as readable text, by one writer.

The text comes only from the protocol: a header (game, rules version, seed, agents, the
parameters set), ``model.describe_config`` and ``model.describe`` of the initial state, then
``model.describe_step`` for every step the reference loop takes (actions and chance outcomes),
then ``model.describe_end``.  The tests keep such texts under ``tests/golden/playthroughs/`` and
diff them; a change in rules, agents, random streams or data shows up as a readable diff.
Regenerate them on purpose (one variable for every golden file, frames included) with::

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_playthroughs.py tests/test_golden_frames.py

or print one game with ``python -m workbench.core.present.playthrough duel --seed 7 --agents greedy,greedy``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from workbench.core.model import GameModel, get_game, seat_names
from workbench.core.sim.play import play_game

UPDATE_ENV = "UPDATE_GOLDEN"


def render(game: str | GameModel, params: dict[str, Any] | None = None, agents: Sequence[str] | str | None = None,
           seed: int = 7) -> str:
    """One seeded game of ``game`` with the reference loop, as text (defaults filled in)."""
    model = get_game(game)
    given = dict(params or {})
    resolved = model.resolve_params(given)
    specs = model.resolve_agents(agents, resolved)
    config = model.make_config(resolved)
    set_params = {k: v for k, v in sorted(resolved.items()) if given.get(k) is not None}
    lines = [f"# {model.title} playthrough ({model.rules_version}, reference engine)",
             f"seed {seed}; agents " + ", ".join(f"{s} {a}" for s, a in zip(seat_names(len(specs)), specs,
                                                                          strict=True)),
             "parameters: " + (", ".join(f"{k}={v}" for k, v in set_params.items()) or "defaults"),
             *model.describe_config(config)]
    players = [model.make_agent(s) for s in specs]
    first = model.initial_state(config, seed)
    lines += model.describe(config, first)

    def observe(before: Any, who: Any, action: Any, after: Any) -> None:
        lines.extend(model.describe_step(config, before, who, action, after))

    final = play_game(model, config, players, seed, max_steps=model.max_steps(resolved), observer=observe)
    lines += model.describe_end(config, final)
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    """Print one playthrough: ``GAME --seed N --agents a,b --param key=value`` (repeatable)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--agents", default=None)
    parser.add_argument("--param", action="append", default=[], help="key=value, e.g. battlefield=free_steppe")
    args = parser.parse_args(argv)
    params = dict(p.split("=", 1) for p in args.param)
    print(render(args.game, params, args.agents, args.seed), end="")


__all__ = ["UPDATE_ENV", "main", "render"]

if __name__ == "__main__":
    main()
