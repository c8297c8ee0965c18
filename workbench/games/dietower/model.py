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

import polars as pl

from workbench.core.model import TERMINAL, CompiledEngine, GameModel, Param, seat_name, seat_names
from workbench.games.dietower import agents as ag
from workbench.games.dietower import rules as R
from workbench.games.dietower.rules import NONBUILDER_TIES, Config, State

TITLE = "Tower of Babel (die streak)"


class DieTowerModel(GameModel):
    """Tower of Babel (die streak): simultaneous card play with a die streak (``docs/rules/dietower.md``)."""

    name = "dietower"
    title = TITLE
    rules_version = "dietower-1"
    readings = ("nonbuilder_tie", "six_win_scores")  # docs/rules/dietower.md, open readings
    readings_agents = "mixed,joker"  # a close matchup: does a reading decide it?
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
    limit_reasons = ()
    agent_stream_base = 0  # seat i's agent draws from sub-stream i (the game draws nothing itself)
    reference_chunk = 2_000
    long_games = 40_000_000  # the compiled engine plays 4-10 million random games a second: 2,000,000 take 0.2-0.5 s
    simultaneous = True
    studies = "workbench.games.dietower.studies:STUDIES"
    report = "workbench.games.dietower.report:build_report"
    # capabilities
    engine = CompiledEngine(ag.AGENTS, "workbench.games.dietower.engine.fast:play", chunk=1_000_000,
                            variants="workbench.games.dietower.engine.fast:VARIANTS")
    lessons = "workbench.games.dietower.lessons:LESSONS"  # the teaching page (core/studies/lessons.py)
    text = "workbench.games.dietower.text"

    def players(self, config: Config) -> int:
        """Seats: the ``players`` parameter."""
        return config.players

    def max_length(self, params: dict[str, Any]) -> int:
        """At most ``suit_size + 1`` rounds."""
        return int(params["suit_size"]) + 1

    def result_columns(self, params: dict[str, Any]) -> dict[str, pl.DataType]:
        """The columns listed in the module docstring, for ``players`` seats."""
        seats = seat_names(int(params["players"]))
        return {**{f"score_{s}": pl.Int64 for s in seats}, "winners": pl.String, "six_win": pl.Boolean,
                "six_win_round": pl.Int64, **{f"longest_streak_{s}": pl.Int64 for s in seats},
                "builder_changes": pl.Int64}

    def catalogue(self) -> dict[str, Any]:
        """Result vocabulary for ``workbench games``."""
        return {
            "reasons": {"six_win": "a Builder won on the die's top face", "score": "highest score after the "
                        "last round", "draw": "several players share the highest score"},
        }

    # -- the protocol ---------------------------------------------------------------------------
    def make_config(self, params: dict[str, Any]) -> Config:
        """The rules of one game."""
        return Config.from_params(params)

    def initial_state(self, config: Config, seed: int) -> State:
        """Full hands, the die in the centre (the game draws no random numbers of its own)."""
        return R.initial_state(config)

    def current_player(self, config: Config, state: State) -> int | tuple[int, ...]:
        """Every seat at once each round; TERMINAL after a six-win or the last round."""
        return TERMINAL if R.is_over(config, state) else tuple(range(config.players))

    def legal_actions(self, config: Config, state: State, seat: int) -> tuple[int, ...]:
        """The cards in the seat's hand, ascending, the Joker last."""
        return R.legal_cards(config, state.hands[seat])

    def apply(self, config: Config, state: State, action: tuple[int, ...]) -> State:
        """Every seat reveals its card; the round resolves."""
        return R.apply(config, state, action)

    def observation(self, config: Config, state: State, seat: int) -> ag.View:
        """The seat's own hand and the public state (everyone's hand is public knowledge anyway)."""
        return ag.View(seat, R.legal_cards(config, state.hands[seat]), config.joker, state.builder, state.die,
                       state.scores, state.round)

    def returns(self, config: Config, state: State) -> tuple[float, ...]:
        """A sole winner +1 and the others −1; in a draw the tied leaders 0 and the others −1."""
        res = R.result(config, state)
        top = 1.0 if len(res.winners) == 1 else 0.0
        return tuple(top if s in res.winners else -1.0 for s in range(config.players))

    def result_row(self, config: Config, state: State) -> dict[str, Any]:
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

    def invariants(self, config: Config, state: State) -> list[str]:
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

    # -- declarations for search and solvers ------------------------------------------------------
    def max_legal_actions(self, config: Config) -> int:
        """The ranks and the Joker."""
        return config.suit_size + 1

    def max_chance_outcomes(self, config: Config) -> int:
        """No chance nodes: the only randomness is the agents'."""
        return 0



MODEL = DieTowerModel()
