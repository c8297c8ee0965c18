"""The Mercenary studies (``MODEL.studies`` names ``STUDIES``; Dragon and trophy studies are added elsewhere).

* ``auction``: the exact outcome of chosen agents (Fractions) beside a simulation of the protocol
  game with 99.9 % Wilson intervals, and whether each exact value lies inside;
* ``equilibrium``: equilibrium first bids per budget, P(nobody gets the Mercenary) under the
  equilibrium and under naive agents, and the equilibrium's exploitability;
* ``control``: the owner's rational answer to an offer over a grid, and the acceptance region.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import polars as pl

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.lazy import lazy
from workbench.core.model import GameModel, Param, seat_names
from workbench.core.stats.rates import wilson
from workbench.core.studies.study import Partial, Study, play_games
from workbench.games.rescue import board_studies, control, equilibrium, events
from workbench.games.rescue.agents import plan_of
from workbench.games.rescue.rules import PAYOFFS, Config, outcome

alt = lazy("altair")  # imported when the first chart is drawn: a page that draws none never loads it

CONFIDENCE = 0.999
NAIVE = ("random", "truthful", "allin", "shade")


def _text(x: Any) -> str:
    return str(x) if isinstance(x, (int, Fraction)) else f"{x:.6f}"


def exact_table(config: Config, agents: list[str]) -> pl.DataFrame:
    """Exact P(each seat wins), P(nobody), P(second auction), P(double tie), E[price], E[surplus] per seat."""
    out = outcome(config, [plan_of(a, config, s) for s, a in enumerate(agents)])
    seats = seat_names(config.players)
    rows = [(f"{s} wins", out.win[i]) for i, s in enumerate(seats)]
    rows += [("nobody", out.nobody), ("second_auction", out.second_auction), ("double_tie", out.double_tie)]
    rows += [(f"{s} price", out.price[i]) for i, s in enumerate(seats)]
    rows += [(f"{s} surplus", out.surplus[i]) for i, s in enumerate(seats)]
    return pl.DataFrame({"event": [e for e, _ in rows], "exact": [float(v) for _, v in rows],
                         "exact_text": [_text(v) for _, v in rows]})


def simulated_rates(frame: pl.DataFrame, players: int, confidence: float = CONFIDENCE) -> pl.DataFrame:
    """The simulated rate of every probability event of :func:`exact_table`, with its Wilson interval."""
    n = frame.height
    events = {f"{s} wins": frame["winner"] == s for s in seat_names(players)}
    events |= {"nobody": frame["winner"] == "draw", "second_auction": frame["length"] == 2,
               "double_tie": frame["reason"] == "double_tie"}
    rows = []
    for name, hit in events.items():
        k = int(hit.sum())
        low, high = wilson(k, n, confidence)
        rows.append({"event": name, "simulated": k / n if n else None, "low": low, "high": high, "n": n})
    return pl.DataFrame(rows)


def auction_table(players: int, budget: int, value: int, agents: list[str], games: int, seed: int = 0,
                  workers: int = 1, *, on_progress: Callable[[int, int], None] | None = None,
                  should_stop: Callable[[], bool] | None = None,
                  on_partial: Callable[[pl.DataFrame, int, int], None] | None = None) -> pl.DataFrame:
    """Exact odds beside the simulated rates (99.9 % intervals) and whether each exact value lies inside.

    ``on_progress(done, games)`` follows the simulation chunk by chunk; once ``should_stop()`` turns
    true the simulation ends after its current chunk and :class:`RunInterrupted` carries the table
    of the auctions that finished (``partial``), never a table that pretends to be complete.
    ``on_partial(table, done, games)`` gets the exact odds at once (``done`` 0), then the table of the
    auctions finished so far while the simulation runs (core's ``play_games``).
    """
    config = Config(players, (budget,) * players, (value,) * players)
    table = exact_table(config, agents)
    if games == 0:
        return table
    if on_partial is not None:
        on_partial(table, 0, games)  # the exact part needs no game: shown before the first auction
    try:
        frame = play_games("rescue", games, params={"players": players, "budget": budget, "value": value},
                           agents=",".join(agents), seed=seed, workers=workers, on_progress=on_progress,
                           should_stop=should_stop,
                           on_partial=(lambda t, done, total: on_partial(t["odds"], done, total))
                           if on_partial is not None else None,
                           tables=lambda part: {"odds": _with_simulation(table, part, players)})
    except RunInterrupted as exc:
        if exc.partial is None or exc.done == 0:
            raise
        raise RunInterrupted(_with_simulation(table, exc.partial, players), exc.done, exc.total) from None
    return _with_simulation(table, frame, players)


def _with_simulation(table: pl.DataFrame, frame: pl.DataFrame, players: int) -> pl.DataFrame:
    sim = simulated_rates(frame, players)
    return table.join(sim, on="event", how="left").with_columns(
        inside=pl.when(pl.col("n").is_null()).then(None)
        .otherwise((pl.col("exact") >= pl.col("low") - 1e-12) & (pl.col("exact") <= pl.col("high") + 1e-12)))


def equilibrium_table(players: int, value: int, budgets: range, iterations: int = equilibrium.FP_ITERATIONS,
                      naive: tuple[str, ...] = NAIVE) -> pl.DataFrame:
    """One row per budget: the equilibrium's first-round mix (seat p1), P(nobody) under it and under naive agents."""
    rows = []
    for budget in budgets:
        config = Config(players, (budget,) * players, (value,) * players)
        eq = equilibrium.solve(config, iterations)
        mix = [float(p) for p in eq.plans[0].first]
        row = {"players": players, "value": value, "budget": budget,
               "first_bid_mix": " ".join(f"{b}:{_text(p)}" for b, p in enumerate(eq.plans[0].first)
                                         if float(p) > 5e-4),
               "mean_bid": sum(b * p for b, p in enumerate(mix)), "surplus_p1": eq.values[0],
               "p_nobody_equilibrium": float(outcome(config, eq.plans).nobody)}
        for name in naive:
            row[f"p_nobody_{name}"] = float(outcome(config, [plan_of(name, config, s) for s in range(players)]).nobody)
        row |= {"exploitability": eq.exploitability, "exact": eq.exact, "method": eq.method}
        rows.append(row)
    return pl.DataFrame(rows)


SELECTION = ("the largest total payoff, then the lowest expected bids; a symmetric one when both seats have the "
             "same crystals and value")
RANGE_ROWS = ("the selected equilibrium", "every equilibrium, the second auction as selected",
              "every equilibrium, any extreme second auction")


def range_table(config: Config) -> pl.DataFrame:
    """The selected equilibrium beside the range over every equilibrium, one row each (two seats).

    Columns: P(nobody gets the Mercenary) and each seat's payoff, lowest and highest (equal for the
    selected row), the seats' extreme first-round mixes and extreme equilibria counted, the
    exact values as text, and how the selected one is chosen.
    """
    found = equilibrium.equilibrium_range(config)
    sel = [(found.selected_nobody, found.selected_nobody),
           *((Fraction(v).limit_denominator(10**6),) * 2 for v in found.selected_values)]
    rows = []
    for label, span in zip(RANGE_ROWS, (None, found.given_second, found.every), strict=True):
        ranges = sel if span is None else [span.nobody, *span.values]
        row = {"equilibria": label, "nobody_gets_it_lowest": float(ranges[0][0]),
               "nobody_gets_it_highest": float(ranges[0][1])}
        for seat, (low, high) in zip(seat_names(2), ranges[1:], strict=True):
            row |= {f"payoff_{seat}_lowest": float(low), f"payoff_{seat}_highest": float(high)}
        row |= {f"extreme_mixes_{seat}": None if span is None else span.first_mixes[i]
                for i, seat in enumerate(seat_names(2))}
        row |= {"extreme_equilibria": None if span is None else span.equilibria,
                "exact": "; ".join(f"{name} {_text(low)}..{_text(high)}" for name, (low, high)
                                   in zip(("P(nobody)", "p1", "p2"), ranges, strict=True)),
                "how_chosen": SELECTION if span is None else "all of them (vertex enumeration)"}
        rows.append(row)
    return pl.DataFrame(rows, schema_overrides={"extreme_mixes_p1": pl.Int64, "extreme_mixes_p2": pl.Int64,
                                                "extreme_equilibria": pl.Int64})


def _agents(text: str, players: int) -> list[str]:
    agents = [a.strip() for a in text.split(",") if a.strip()] or ["random"]
    if len(agents) == 1:
        agents *= players
    if len(agents) != players:
        raise InputError(f"give one agent or {players} agents, got {len(agents)}: {text!r}")
    return agents


def _auction(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
             on_progress: Callable[[int, int], None] | None,
             should_stop: Callable[[], bool] | None,
             on_partial: Partial | None = None) -> dict[str, pl.DataFrame]:
    agents = _agents(settings["agents"], settings["players"])
    try:
        odds = auction_table(settings["players"], settings["budget"], settings["value"], agents, settings["games"],
                             seed, workers, on_progress=on_progress, should_stop=should_stop,
                             on_partial=(lambda table, done, total: on_partial({"odds": table}, done, total))
                             if on_partial is not None else None)
    except RunInterrupted as exc:  # stopped: the odds of the auctions that finished, as a stopped run's tables
        raise RunInterrupted({"odds": exc.partial}, exc.done, exc.total) from None
    return {"odds": odds}


def _equilibrium(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
                 on_progress: Callable[[int, int], None] | None,
                 should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    budgets = range(1, settings["largest_budget"] + 1)
    return {"equilibrium": equilibrium_table(settings["players"], settings["value"], budgets)}


def _equilibria(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
                on_progress: Callable[[int, int], None] | None,
                should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    config = Config(2, (settings["budget_p1"], settings["budget_p2"]), (settings["value_p1"], settings["value_p2"]),
                    settings["payoff"])
    return {"equilibria": range_table(config)}


def _control(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
             on_progress: Callable[[int, int], None] | None,
             should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    top = settings["largest"]
    values, crystals = range(0, 2 * top + 2), range(0, top + 1, max(1, top // 3))
    return {"control": control.control_table(values, crystals, range(1, top + 1), settings["challenger_value"],
                                             settings["offers"]),
            "repeated": control.repeated_table(values, crystals, (1, 2, 3, control.UNLIMITED))}


def _odds_chart(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    odds = tables["odds"].filter(~pl.col("event").str.contains("price|surplus"))
    base = alt.Chart(odds).encode(x=alt.X("event:N", sort=None))
    layers = [base.mark_bar(opacity=0.5).encode(y=alt.Y("exact:Q", title="probability"))]
    if "simulated" in odds.columns:
        layers += [base.mark_rule(color="black").encode(y="low:Q", y2="high:Q"),
                   base.mark_point(color="black", filled=True).encode(y="simulated:Q")]
    return {"odds": alt.layer(*layers).properties(title="exact (bars) vs simulated (99.9 % intervals)")}


def _equilibrium_chart(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    long = tables["equilibrium"].unpivot(index="budget", on=[c for c in tables["equilibrium"].columns
                                                             if c.startswith("p_nobody_")],
                                         variable_name="strategies", value_name="p_nobody")
    return {"nobody": alt.Chart(long).mark_line(point=True).encode(
        x="budget:O", y=alt.Y("p_nobody:Q", title="P(nobody gets the Mercenary)"), color="strategies:N")}


def _control_chart(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    return {"acceptance": control.acceptance_chart(tables["control"])}


_PLAYERS = Param("players", 2, int, "players bidding", 2, 6)
_VALUE = Param("value", 6, int, "the Mercenary's worth to every player", 0, 50)
AUCTION_STUDIES = (
    Study("auction", "Exact auction odds beside a simulation", _auction, (
        _PLAYERS, Param("budget", 3, int, "crystals of every player", 0, 8), _VALUE,
        Param("agents", "random", str, "one agent for every seat, or one per seat (random, truthful, allin, "
              "shade:factor=0.5 or equilibrium)"),
        Param("games", 20_000, int, "simulated auctions (0: exact only)", 0, 10**7),
    ), _odds_chart, "Exact probabilities (Fractions where the strategies are rational) and simulated rates with "
       "99.9 % Wilson intervals.", game_params=False, size=lambda settings, _params: settings["games"]),
    Study("equilibrium", "Equilibrium bids per budget and how often nobody gets the Mercenary", _equilibrium, (
        Param("players", 2, int, "players bidding (3+: fictitious play, slower)", 2, 4), _VALUE,
        Param("largest_budget", 6, int, "budgets 1..this", 1, 12),
    ), _equilibrium_chart, "Subgame-perfect: second auctions first, then the first round.", game_params=False,
          long_run={"players": 4, "largest_budget": 12}),
    Study("equilibria", "Every equilibrium of the two-player auction beside the selected one", _equilibria, (
        Param("budget_p1", 5, int, "crystals of p1", 0, 8), Param("budget_p2", 3, int, "crystals of p2", 0, 8),
        Param("value_p1", 6, int, "the Mercenary's worth to p1", 0, 50),
        Param("value_p2", 6, int, "the Mercenary's worth to p2", 0, 50),
        Param("payoff", "surplus", str, "what a seat plays for: its surplus, or its surplus minus the rival's",
              choices=PAYOFFS),
    ), None, "Exact: every extreme equilibrium of each stage by vertex enumeration; P(nobody) and the payoffs are "
       f"bilinear, so their range over all equilibria is read at the extreme ones.  Selected: {SELECTION}.",
          game_params=False, long_run={"budget_p1": 8, "budget_p2": 8}),
    Study("control", "Taking control of a Mercenary: when the owner accepts", _control, (
        Param("largest", 6, int, "largest offer (owner values 0..2·largest+1, crystals 0..largest)", 1, 15),
        Param("challenger_value", 6, int, "the Mercenary's worth to the challenger", 0, 50),
        Param("offers", "one", str, "one offer per attempt, or the same offer repeated without limit (a refused "
              "offer costs the challenger nothing)", choices=control.OFFERS),
    ), _control_chart, "One offer: the owner refuses iff it can pay k+1 and values the Mercenary above 2k+1.  "
       "Offered r times: iff it can pay r(k+1) and values it above (r+1)k+r; without limit it accepts any offer "
       "(the 'repeated' table: the smallest successful offer by offers allowed).",
          game_params=False),
)

# the Dragon and tower-trophy studies (``events.py``), then the board's (``board_studies.py``), after the auction's
STUDIES = (*AUCTION_STUDIES, *events.STUDIES, *board_studies.STUDIES)
