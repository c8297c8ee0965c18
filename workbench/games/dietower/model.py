"""The ``dietower`` game model: declared parameters, agents, the protocol over ``rules``, engines.

Result columns (one row per game, besides the runner's common columns):

* ``winner``: "p1".."p4", or "draw" when several players share the highest score;
* ``reason``: "six_win" (a Builder won with the die on its top face), "score" (highest score after
  the last round) or "draw";
* ``length``: rounds played; ``first_seat``: null (play is simultaneous);
* ``score_p1``..: points; ``winners``: the winning seats joined by "," (e.g. "p1,p3" for a draw);
* ``six_win`` / ``six_win_round``: whether and in which round (1-based) a six-win ended the game;
* ``longest_streak_p1``..: most rounds one player won in a row as Builder during one tenure;
* ``builder_changes``: rounds in which a player took the die (became Builder).

Every round is one simultaneous node: all seats choose a card at once (``current_player`` is the
tuple of every seat).  The game itself draws no random numbers; seat ``i``'s agent draws from
sub-stream ``i`` of the game seed (``agent_stream``), which the compiled engine reproduces.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from workbench.core.model import TERMINAL, AgentSpec, GameModel, Param, seat_name, seat_names
from workbench.games.dietower import agents as ag
from workbench.games.dietower import rules as R
from workbench.games.dietower.rules import NONBUILDER_TIES, Rules, State

TITLE = "Tower of Babel (die streak)"


class DieTowerModel(GameModel):
    """Tower of Babel (die streak): simultaneous card play with a die streak (rules file 004)."""

    name = "dietower"
    title = TITLE
    rules_version = "dietower-1"
    min_players = 2
    max_players = 4
    params = (
        Param("players", 2, int, "players (4 is the variant with a fourth Joker)", low=2, high=4),
        Param("suit_size", 13, int, "cards per suit (13 = 2..A); a game has suit_size + 1 rounds", low=2, high=13),
        Param("die_faces", 6, int, "faces of the die; winning on the top face ends the game", low=2, high=20),
        Param("nonbuilder_tie", "centre", str, "non-Builders tied for highest: die to the centre, or the "
              "Builder keeps it unscored", choices=NONBUILDER_TIES),
        Param("six_win_scores", False, bool, "a six-win also scores the top face"),
    )
    agent_types = ag.DECLS
    fast_agents = ag.AGENTS
    limit_reasons = ()
    simultaneous = True
    studies = "workbench.games.dietower.studies:STUDIES"
    report = "workbench.games.dietower.report:build_report"
    lessons = "workbench.games.dietower.lessons:LESSONS"  # the teaching page (core/lessons.py)

    def players(self, params: dict[str, Any]) -> int:
        """Seats: the ``players`` parameter."""
        return int(params["players"])

    def players_of(self, config: Rules) -> int:
        """Seats of a game with these rules."""
        return config.players

    def max_length(self, params: dict[str, Any]) -> int:
        """At most ``suit_size + 1`` rounds."""
        return int(params["suit_size"]) + 1

    def result_schema(self, params: dict[str, Any]) -> dict[str, pl.DataType]:
        """The columns listed in the module docstring, for ``players`` seats."""
        seats = seat_names(self.players(params))
        return {"winner": pl.String, "reason": pl.String, "length": pl.Int64, "first_seat": pl.String,
                **{f"score_{s}": pl.Int64 for s in seats}, "winners": pl.String, "six_win": pl.Boolean,
                "six_win_round": pl.Int64, **{f"longest_streak_{s}": pl.Int64 for s in seats},
                "builder_changes": pl.Int64}


    def chunk_hint(self, engine: str) -> int:
        """Large chunks for the compiled engine (per-chunk overhead dominates below ~10^5)."""
        return 1_000_000 if engine == "fast" else 2_000

    def catalogue(self) -> dict[str, Any]:
        """Result vocabulary for ``workbench games``."""
        return {
            "reasons": {"six_win": "a Builder won on the die's top face", "score": "highest score after the "
                        "last round", "draw": "several players share the highest score"},
        }

    # -- the protocol ---------------------------------------------------------------------------
    def make_config(self, params: dict[str, Any]) -> Rules:
        """The rules of one game."""
        return Rules.from_params(params)

    def initial_state(self, config: Rules, seed: int) -> State:
        """Full hands, the die in the centre (the game draws no random numbers of its own)."""
        return R.initial_state(config)

    def current_player(self, config: Rules, state: State) -> int | tuple[int, ...]:
        """Every seat at once each round; TERMINAL after a six-win or the last round."""
        return TERMINAL if R.is_over(config, state) else tuple(range(config.players))

    def legal_actions(self, config: Rules, state: State, seat: int) -> tuple[int, ...]:
        """The cards in the seat's hand, ascending, the Joker last."""
        return R.legal_cards(config, state.hands[seat])

    def apply(self, config: Rules, state: State, action: tuple[int, ...]) -> State:
        """Every seat reveals its card; the round resolves."""
        return R.step(config, state, action)

    def observation(self, config: Rules, state: State, seat: int) -> ag.View:
        """The seat's own hand and the public state (everyone's hand is public knowledge anyway)."""
        return ag.View(seat, R.legal_cards(config, state.hands[seat]), config.joker, state.builder, state.die,
                       state.scores, state.round)

    def agent_stream(self, seat: int) -> int:
        """Seat ``i`` draws from sub-stream ``i`` (as the compiled engine)."""
        return seat

    def returns(self, config: Rules, state: State) -> tuple[float, ...]:
        """A sole winner +1 and the others −1; in a draw the tied leaders 0 and the others −1."""
        res = R.result(config, state)
        top = 1.0 if len(res.winners) == 1 else 0.0
        return tuple(top if s in res.winners else -1.0 for s in range(config.players))

    def result_row(self, config: Rules, state: State) -> dict[str, Any]:
        """The columns of the module docstring."""
        res = R.result(config, state)
        seats = seat_names(config.players)
        row: dict[str, Any] = {
            "winner": seats[res.winners[0]] if len(res.winners) == 1 else "draw",
            "reason": res.reason, "length": res.length, "first_seat": None,
            **{f"score_{s}": res.scores[i] for i, s in enumerate(seats)},
            "winners": ",".join(seats[w] for w in res.winners),
            "six_win": res.six_win_round is not None, "six_win_round": res.six_win_round,
            **{f"longest_streak_{s}": res.longest[i] for i, s in enumerate(seats)},
            "builder_changes": res.builder_changes,
        }
        return row

    def invariants(self, config: Rules, state: State) -> list[str]:
        """Each seat has played one card a round; scores, die and Builder stay in range."""
        broken = []
        for seat, hand in enumerate(state.hands):
            if hand & ~config.full_hand or bin(hand).count("1") != config.rounds - state.round:
                broken.append(f"{seat_name(seat)} holds {bin(hand)} after {state.round} rounds")
        if min(state.scores) < 0 or not 0 <= state.die <= config.die_faces:
            broken.append(f"scores {state.scores}, die {state.die}")
        if (state.builder == R.NO_BUILDER) != (state.die == 0):
            broken.append(f"builder {state.builder} with die {state.die}")
        return broken

    def describe(self, config: Rules, state: State) -> list[str]:
        """The deal: every hand is the full suit and a Joker."""
        hand = " ".join(R.card_name(c, config) for c in R.legal_cards(config, config.full_hand))
        return [f"every player holds: {hand}; the die ({config.die_faces} faces) is in the centre"]

    def describe_step(self, config: Rules, before: State, who: Any, action: Any, after: State) -> list[str]:
        """The cards revealed and how the round resolved."""
        cards = ", ".join(f"{seat_name(s)} {R.card_name(c, config)}" for s, c in zip(who, action, strict=True))
        gained = [s for s in range(config.players) if after.scores[s] != before.scores[s]]
        if after.six_winner >= 0:
            what = f"{seat_name(after.six_winner)} wins on the top face {before.die}: six-win"
        elif gained:
            who = gained[0]
            what = f"{seat_name(who)} scores {after.scores[who] - before.scores[who]}, die to {after.die}"
        elif after.builder != before.builder and after.builder != R.NO_BUILDER:
            what = f"{seat_name(after.builder)} takes the die at 1"
        elif after.builder == R.NO_BUILDER and before.builder != R.NO_BUILDER:
            what = "the die goes to the centre"
        elif after.builder == R.NO_BUILDER:
            what = "the die stays in the centre"
        else:
            what = f"{seat_name(after.builder)} keeps the die at {after.die}, unscored"
        return [f"- round {after.round}: {cards} → {what}; scores "
                + ", ".join(f"{seat_name(s)} {v}" for s, v in enumerate(after.scores))]

    def describe_end(self, config: Rules, state: State) -> list[str]:
        """Winner(s), reason and rounds."""
        row = self.result_row(config, state)
        who = "draw between " + row["winners"] if row["winner"] == "draw" else f"{row['winner']} wins"
        return ["", f"end after {row['length']} rounds: {who} ({row['reason']})"]

    # -- declarations for search and solvers ------------------------------------------------------
    def max_legal_actions(self, config: Rules) -> int:
        """The ranks and the Joker."""
        return config.suit_size + 1

    def max_chance_outcomes(self, config: Rules) -> int:
        """No chance nodes: the only randomness is the agents'."""
        return 0

    # -- engines --------------------------------------------------------------------------------
    def play_fast(self, config: Rules, params: dict[str, Any], agents: tuple[AgentSpec, ...],
                  seeds: np.ndarray) -> pl.DataFrame:
        """The compiled batch engine."""
        from workbench.games.dietower.fast import to_frame
        from workbench.games.dietower.kernel import play_fast

        return to_frame(play_fast(config, [ag.config(a) for a in agents], seeds), config.players)


MODEL = DieTowerModel()
