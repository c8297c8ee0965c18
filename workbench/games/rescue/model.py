"""The ``rescue`` game model: one Mercenary blind auction as a protocol game (``docs/rules/rescue.md``).

One game is one auction.  The first node is simultaneous: ``current_player`` is the tuple of every
seat, each choosing a bid 0..its crystals; when a highest bid of ≥ 1 crystal is shared, a second
simultaneous node has exactly the tied seats bid again (see ``rules.py`` for every tie rule,
including the workbench's decision for a tie at 0: nobody, reason ``no_bids``).  The game draws no
random numbers of its own; seat ``i``'s agent draws from sub-stream ``i`` of the game seed.

Parameters: ``players`` 2..6; ``budget`` (every seat's crystals) and ``value`` (what the Mercenary
is worth to every seat, in crystals), each with optional per-seat overrides ``budget_p1``..
``budget_p6`` / ``value_p1``.. (an override for a seat beyond ``players`` is an error).  The
readings of the text (``readings``): ``payoff`` (``surplus``, or ``relative``: own surplus minus the
rival's, the game's ``returns``), ``offers`` (taking control, ``control.py``) and ``shortening``
(road shortening, ``board.py``); the last two do not touch the auction, they are the game's
switches for its other sub-systems and their studies.  The
issue's player-count setup facts (12 towers and upgrades of each type at 5 players, 14 at 6) do
not touch the auction: nothing here depends on them.

Result columns besides the runner's common ones:

* ``winner``: the seat that gets the Mercenary, or ``draw`` when nobody does;
* ``reason``: ``won`` (a single highest first bid), ``second_auction`` (won in the second auction),
  ``double_tie`` (the second auction tied too: nobody), ``no_bids`` (everyone bid 0: nobody);
* ``length``: auctions held (1 or 2); ``first_seat``: null (bids are simultaneous);
* ``price``: crystals the winner paid (0 when nobody won); ``tied``: seats sharing the highest
  first bid (1 when it was a single bid);
* ``bid_p1``..: first bids; ``second_bid_p1``..: second bids (null for a seat not in it);
* ``surplus_p1``..: value − price for the winner, 0 for the others (negative when a winner overpaid:
  with the defaults, value 6 > budget 5, it never is); ``crystals_p1``..: crystals left.

``returns`` are the payoffs of the ``payoff`` reading (the surpluses by default; the payoff the
equilibrium uses).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.model import TERMINAL, GameModel, Param, seat_name, seat_names
from workbench.games.rescue import agents as ag
from workbench.games.rescue import board, control
from workbench.games.rescue import rules as A
from workbench.games.rescue.rules import Config, State

TITLE = "Age of Towers: To The Rescue — Mercenary auction"
MAX_BUDGET, MAX_VALUE = 20, 50
SEATS = seat_names(6)


class RescueModel(GameModel):
    """One Mercenary blind auction among 2–6 players (``docs/rules/rescue.md``, "Mercenaries")."""

    name = "rescue"
    title = TITLE
    rules_version = "rescue-auction-2"  # 2: the readings payoff, offers, shortening (issue 21)
    min_players = 2
    max_players = 6
    params = (
        Param("players", 2, int, "players bidding", low=2, high=6),
        Param("budget", 5, int, "crystals of every player (its largest bid)", low=0, high=MAX_BUDGET),
        Param("value", 6, int, "what the Mercenary is worth to every player, in crystals", low=0, high=MAX_VALUE),
        *(Param(f"budget_{s}", None, int, f"crystals of {s} (none: budget)", low=0, high=MAX_BUDGET, optional=True)
          for s in SEATS),
        *(Param(f"value_{s}", None, int, f"the Mercenary's worth to {s} (none: value)", low=0, high=MAX_VALUE,
                optional=True) for s in SEATS),
        # readings of the text (docs/rules/rescue.md, "Parameters and readings"); the default is the one played
        Param("payoff", "surplus", str, "what a player bids for: its own surplus (value − price), or its surplus "
              "minus the rival's (losing to a rival counts)", choices=A.PAYOFFS),
        Param("offers", "one", str, "taking control: one offer per attempt, or the same offer repeated without "
              "limit (a refused offer costs the challenger nothing)", choices=control.OFFERS),
        Param("shortening", "rejoin", str, "road shortening: the road re-joined to the city, a removal that would "
              "cut a spawn off refused, or the space left empty (the road may be cut)", choices=board.SHORTENING),
    )
    readings = ("payoff", "offers", "shortening")
    readings_agents = "equilibrium,random"  # the readings study: p1 bids the equilibrium of the reading, p2 at random
    agent_types = ag.DECLS
    limit_reasons = ()
    simultaneous = True
    studies = "workbench.games.rescue.studies:STUDIES"
    report = "workbench.games.rescue.report:build_report"
    agent_stream_base = 0  # seat i's agent draws from sub-stream i (the auction draws nothing itself)
    # capabilities
    lessons = "workbench.games.rescue.lessons:LESSONS"  # the auction, Dragon, trophies: the teaching page
    text = "workbench.games.rescue.text"

    def check_params(self, params: dict[str, Any]) -> None:
        """A per-seat override must name a seat that plays."""
        for s in SEATS[params["players"]:]:
            for kind in ("budget", "value"):
                if params.get(f"{kind}_{s}") is not None:
                    raise InputError(f"parameter '{kind}_{s}' is given but only {params['players']} players bid; "
                                     f"drop it or raise players")

    def players(self, config: Config) -> int:
        """Seats: the ``players`` parameter."""
        return config.players

    def max_length(self, params: dict[str, Any]) -> int:
        """At most two auctions."""
        return 2

    def result_columns(self, params: dict[str, Any]) -> dict[str, pl.DataType]:
        """The columns listed in the module docstring."""
        seats = seat_names(int(params["players"]))
        return {"price": pl.Int64, "tied": pl.Int64, **{f"bid_{s}": pl.Int64 for s in seats},
                **{f"second_bid_{s}": pl.Int64 for s in seats}, **{f"surplus_{s}": pl.Int64 for s in seats},
                **{f"crystals_{s}": pl.Int64 for s in seats}}

    def catalogue(self) -> dict[str, Any]:
        """Result vocabulary for ``workbench games``."""
        return {"reasons": {"won": "a single highest first bid", "second_auction": "won in the second auction",
                            "double_tie": "the second auction tied too: nobody gets the Mercenary",
                            "no_bids": "everyone bid 0: nobody gets the Mercenary"}}

    # -- the protocol ---------------------------------------------------------------------------
    def make_config(self, params: dict[str, Any]) -> Config:
        """Every seat's crystals and value (overrides over the common ones)."""
        seats = seat_names(params["players"])
        budgets = tuple(params["budget"] if params.get(f"budget_{s}") is None else params[f"budget_{s}"]
                        for s in seats)
        values = tuple(params["value"] if params.get(f"value_{s}") is None else params[f"value_{s}"] for s in seats)
        return Config(len(seats), budgets, values, params.get("payoff", "surplus"))

    def initial_state(self, config: Config, seed: int) -> State:
        """Nobody has bid yet (the auction draws no random numbers)."""
        return A.initial_state(config, seed)

    def current_player(self, config: Config, state: State) -> int | tuple[int, ...]:
        """Every seat in the first auction, the tied seats in the second, then TERMINAL."""
        if state.stage == A.FIRST:
            return tuple(range(config.players))
        return state.tied if state.stage == A.SECOND else TERMINAL

    def legal_actions(self, config: Config, state: State, seat: int) -> tuple[int, ...]:
        """Bids 0..the seat's crystals."""
        return A.legal_actions(config, state, seat)

    def apply(self, config: Config, state: State, action: tuple[int, ...]) -> State:
        """The bids of the acting seats are revealed at once."""
        return A.apply(config, state, action)

    def observation(self, config: Config, state: State, seat: int) -> ag.View:
        """Own crystals and value, the stage and the seats of a second auction."""
        return ag.View(seat, config.budgets[seat], config.values[seat], state.stage, state.tied)

    def returns(self, config: Config, state: State) -> tuple[float, ...]:
        """Each seat's payoff under the ``payoff`` reading (its surplus by default)."""
        return tuple(float(x) for x in A.payoffs(config, state))

    def returns_bounds(self, config: Config) -> tuple[float, float, float | None]:
        """A winner's surplus lies in ``value − budget .. value``; the others get 0 (or minus it: ``relative``)."""
        low = min(0, *(v - b for v, b in zip(config.values, config.budgets, strict=True)))
        high = max(0, *config.values)
        if config.payoff == "relative":
            low, high = min(low, -high), max(high, -low)
            return (float(low), float(high), 0.0 if config.players == 2 else None)
        return (float(low), float(high), None)

    def result_row(self, config: Config, state: State) -> dict[str, Any]:
        """The columns of the module docstring."""
        seats = seat_names(config.players)
        second = dict(zip(state.tied, state.second, strict=False))
        gain, left = A.surplus(config, state), A.crystals_left(config, state)
        return {"winner": "draw" if state.winner == A.NOBODY else seats[state.winner], "reason": state.reason,
                "length": 2 if state.tied else 1, "first_seat": None, "price": state.price,
                "tied": len(state.tied) or 1, **{f"bid_{s}": state.bids[i] for i, s in enumerate(seats)},
                **{f"second_bid_{s}": second.get(i) for i, s in enumerate(seats)},
                **{f"surplus_{s}": gain[i] for i, s in enumerate(seats)},
                **{f"crystals_{s}": left[i] for i, s in enumerate(seats)}}

    def invariants(self, config: Config, state: State) -> list[str]:
        """Bids within the crystals; only a winner pays, and what it bid."""
        broken = [f"{seat_name(s)} bid {b} with {config.budgets[s]} crystals"
                  for s, b in enumerate(state.bids) if not 0 <= b <= config.budgets[s]]
        broken += [f"{seat_name(s)} bid {b} again with {config.budgets[s]} crystals"
                   for s, b in zip(state.tied, state.second, strict=False) if not 0 <= b <= config.budgets[s]]
        if state.winner == A.NOBODY and state.price:
            broken.append(f"nobody won but {state.price} crystals were paid")
        return broken

    # -- declarations for search and solvers ------------------------------------------------------
    def max_legal_actions(self, config: Config) -> int:
        """Bids 0..the most crystals."""
        return max(config.budgets) + 1

    def max_chance_outcomes(self, config: Config) -> int:
        """No chance nodes."""
        return 0


MODEL = RescueModel()
