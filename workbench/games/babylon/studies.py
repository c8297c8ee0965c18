"""Towers of Babylon's declared studies (``MODEL.studies`` names ``STUDIES``): the questions designers ask.

Every study plays the grid ``deck_p1 × deck_p2 × first`` (every deck against every deck, in both
seats, moving first and second; :func:`play`), every cell on the same master seed (common random
numbers), on core's grid runner — the compiled engine when the agents allow it.

* ``matchups``: the precon matchup matrix — the row deck's win rate against the column deck with
  its 95 % interval and n, the draws, its rate moving first and moving second, and each deck
  against the field (:mod:`.analysis`);
* ``compensation``: the first seat's win rate with and without the second player's +1 card and
  +1 Transformed Power (every arm paired with the rules' on the same seeds), and the search for the
  TP bonus that makes the first seat 50 % (core's :func:`~workbench.core.design.balance.search`);
* ``cards``: card cost-efficiency two ways — the static least-squares value model
  (:mod:`.valuation`) and the empirical drawn/played rates (:mod:`.cardstats`) — side by side with
  the most over- and under-costed cards by each;
* ``endings``: how games end (a tower at the win height or the count after the last turn, and who
  won it), game length, what each deck does, and tower trajectories per deck;
* ``whatif``: card edits (``F9.power_cost=2; E4.might=4``) against the unchanged cards on the same
  seeds — the matrix's change cell by cell with the exact paired test, and the edited cards' rates;
* ``metagame``: core's (:func:`~workbench.core.studies.metagame.metagame_study`) — the equilibrium mix of
  precons from the matrix at the strongest fast tier, with intervals over resamples.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.design.balance import BalanceResult, search
from workbench.core.design.cardtable import ProgressTotal, paired_runs
from workbench.core.design.edits import cache_dir, edit_csv
from workbench.core.errors import InputError
from workbench.core.model import GameModel, Param
from workbench.core.present import charts
from workbench.core.stats import metrics
from workbench.core.stats.cardstats import compare_card_rates, costed_lists, empirical_values
from workbench.core.stats.compare import first_seat_won
from workbench.core.stats.rates import wilson_exprs
from workbench.core.studies.metagame import metagame_study
from workbench.core.studies.study import Partial, Study, play_grid
from workbench.games.babylon import analysis
from workbench.games.babylon.cards import CARD_COLUMNS, CARDS_CSV, load_cards, load_decks
from workbench.games.babylon.cardvalue import cardstats, valuation
from workbench.games.babylon.rules import TALLIES

Progress = Callable[[int, int], None] | None
Stop = Callable[[], bool] | None
Tables = dict[str, pl.DataFrame]

GAMES = Param("games", 1000, int, "games per deck pairing (deck_p1 × deck_p2) and first seat: a matchup of two "
              "decks pools 4 × this, a mirror match 2 ×", 1, 10**8)
DECKS = Param("decks", "all", str, "'all' or a comma list of the decks to play (data/babylon/decks.toml)")
AGENTS = Param("agents", "greedy,greedy", str, "one agent per seat (e.g. greedy,greedy or greedy,random)")


# -- playing the grid --------------------------------------------------------------------------------
def deck_choice(model: GameModel, text: str, params: dict[str, Any] | None = None) -> list[str]:
    """``"all"`` or a comma list of deck keys, each checked against the decks in force."""
    allowed = next(p for p in model.params_for(params or {}) if p.name == "deck_p1").choices or ()
    items = list(allowed) if text.strip() == "all" else list(dict.fromkeys(t.strip() for t in text.split(",")
                                                                            if t.strip()))
    bad = [t for t in items if t not in allowed]
    if not items or bad:
        raise InputError(f"setting 'decks': {', '.join(bad) or 'nothing'} given; allowed: all, {', '.join(allowed)}")
    return items


def _agents(text: str) -> list[str]:
    return [a.strip() for a in text.split(",") if a.strip()]


def play(model: GameModel, decks: list[str], games: int, agents: Any, params: dict[str, Any], *, seed: int,
         workers: int, grid: dict[str, list[Any]] | None = None, on_progress: Progress = None,
         should_stop: Stop = None, on_partial: Partial | None = None,
         tables: Callable[[pl.DataFrame], Tables] | None = None) -> pl.DataFrame:
    """Every deck against every deck (``deck_p1 × deck_p2``), first seat p1 and p2 (× ``grid``), ``games`` each.

    ``on_partial`` streams ``tables(frame of the finished cells)``: the cells of one pair of decks (A vs B
    and B vs A, both first seats) finish together, the first deck's mirror first (core's ``play_grid``).
    """
    extra = dict(grid or {})
    fixed = {k: v for k, v in params.items()
             if k not in (*analysis.GRID_KEYS, *extra) and v != model.param(k).default}
    if fixed.get("decks") is not None:  # the decks file fixes which deck keys exist: validate the grid against it
        extra.setdefault("decks", [fixed.pop("decks")])
    full = {"deck_p1": decks, "deck_p2": decks, "first": ["p1", "p2"], **extra}
    return play_grid(model, full, games, params=fixed, agents=agents, seed=seed, workers=workers,
                     on_progress=on_progress, should_stop=should_stop, on_partial=on_partial, tables=tables,
                     group=lambda cell, _lineup: frozenset((cell["deck_p1"], cell["deck_p2"])))


def _settings_play(model: GameModel, settings: dict[str, Any], params: dict[str, Any], seed: int, workers: int,
                   on_progress: Progress, should_stop: Stop, on_partial: Partial | None = None,
                   tables: Callable[[pl.DataFrame, list[str]], Tables] | None = None) -> tuple[pl.DataFrame, list[str]]:
    decks = deck_choice(model, settings["decks"], params)
    frame = play(model, decks, settings["games"], _agents(settings["agents"]), params, seed=seed, workers=workers,
                 on_progress=on_progress, should_stop=should_stop, on_partial=on_partial,
                 tables=(lambda part: tables(part, decks)) if tables is not None else None)
    return frame, decks


# -- matchups --------------------------------------------------------------------------------------------
def matchup_tables(frame: pl.DataFrame, decks: list[str] | None = None) -> Tables:
    """The matrix, each deck against the field, and the matrix per seat (moved first / second)."""
    return {"matrix": analysis.matrix_table(frame, decks), "decks": analysis.deck_table(frame, decks),
            "seats": analysis.seat_table(frame, decks), "games": frame}


def _matchups(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
              on_progress: Progress, should_stop: Stop, on_partial: Partial | None = None) -> Tables:
    frame, decks = _settings_play(model, settings, params, seed, workers, on_progress, should_stop, on_partial,
                                  lambda part, decks: matchup_tables(part, _played(part, decks)))
    return matchup_tables(frame, decks)


def _played(frame: pl.DataFrame, decks: list[str]) -> list[str]:
    """The decks (in the asked order) that have played a game in ``frame``: a partial matrix's rows."""
    seen = set(frame.get_column("deck_p1").to_list()) | set(frame.get_column("deck_p2").to_list())
    return [d for d in decks if d in seen]


def matchup_charts(tables: Tables) -> dict[str, Any]:
    """The matrix heat map, each deck against the field, and the matrix moving first / second."""
    seats = tables["seats"].with_columns(pl.format("{} vs {}", "deck", "opponent").alias("matchup"))
    return {"matrix": analysis.matchup_heatmap(tables["matrix"]),
            "decks": charts.rate_chart(tables["decks"], "deck", rate="win", low="win_low", high="win_high",
                                       reference=0.5, title="Each deck against the field (mirror matches left out)",
                                       y_title="win rate"),
            "seats": charts.rate_chart(seats.filter(pl.col("deck") != pl.col("opponent")), "matchup", color="moved",
                                       reference=0.5, title="Row deck's win rate moving first and second",
                                       y_title="win rate")}


# -- second-player compensation -------------------------------------------------------------------------
ARMS = {"second_cards": [1, 0], "second_tp": [1, 0]}


def compensation_tables(frame: pl.DataFrame) -> Tables:
    """Per arm: the first seat's win rate; each arm against the rules' (+1 card, +1 TP) on the same seeds."""
    return {"arms": analysis.arm_table(frame), "comparison": analysis.arm_comparison(frame),
            "pairs": analysis.pair_table(frame)}


def balance_tp(model: GameModel, decks: list[str], games: int, agents: Any, params: dict[str, Any], *, low: int,
               high: int, evaluations: int, seed: int, workers: int, on_progress: Progress = None,
               should_stop: Stop = None) -> BalanceResult:
    """Search ``second_tp`` in ``[low, high]`` for a first seat score of 50 % over the whole deck grid.

    Every value plays the same games (common random numbers); the second player's extra cards stay
    as ``params`` say.
    """
    def response(value: int) -> tuple[int, int, int]:  # a draw counts half to the score (core.design.balance.search)
        frame = play(model, decks, games, agents, {**params, "second_tp": value}, seed=seed, workers=workers,
                     on_progress=on_progress, should_stop=should_stop)
        return (int(frame.select(first_seat_won().sum()).item()), frame.height,
                int((frame["winner"] == "draw").sum()))

    return search(response, low, high, target=0.5, integer=True, max_evals=evaluations, param="second_tp",
                  measure="first seat score", should_stop=should_stop)


def balance_table(result: BalanceResult) -> pl.DataFrame:
    """One row: the estimate, the values compatible with 50 %, the best value tried with its interval."""
    return pl.DataFrame({"param": [result.param], "target": [result.target], "found": [result.found],
                         "value": [result.value], "value_low": [result.value_low], "value_high": [result.value_high],
                         "best": [result.best], "best_rate": [result.best_rate], "best_rate_low": [result.best_low],
                         "best_rate_high": [result.best_high], "summary": [result.summary()]},
                        schema_overrides={"value": pl.Float64, "value_low": pl.Float64, "value_high": pl.Float64})


def _compensation(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
                  on_progress: Progress, should_stop: Stop) -> Tables:
    decks = deck_choice(model, settings["decks"], params)
    if settings["low"] > settings["high"]:
        raise InputError(f"setting 'low' ({settings['low']}) is above 'high' ({settings['high']})")
    agents, cells = _agents(settings["agents"]), 2 * len(decks) ** 2
    evals = settings["evaluations"]
    tick = ProgressTotal(on_progress, cells * (4 * settings["games"] + evals * settings["balance_games"]))
    frame = play(model, decks, settings["games"], agents, params, seed=seed, workers=workers, grid=ARMS,
                 on_progress=tick, should_stop=should_stop)
    tables = compensation_tables(frame)
    if evals:
        fixed = {k: v for k, v in params.items() if k != "second_tp"} | {"second_cards": settings["balance_cards"]}
        result = balance_tp(model, decks, settings["balance_games"], agents, fixed, low=settings["low"],
                            high=settings["high"], evaluations=evals, seed=seed, workers=workers, on_progress=tick,
                            should_stop=should_stop)
        tables |= {"balance": balance_table(result), "balance_points": result.points}
    return tables | {"games": frame}


def compensation_charts(tables: Tables) -> dict[str, Any]:
    """First-seat win rate per arm; the auto-balance curve when searched."""
    arms = tables["arms"].rename({"first_mover_all": "rate", "first_mover_all_low": "low",
                                  "first_mover_all_high": "high", "first_mover_all_n": "n"})
    out = {"arms": charts.rate_chart(arms, "arm", reference=0.5, zoom=True, y_title="first seat wins",
                                     title="First seat's win rate with and without the second player's bonus"),
           "comparison": charts.delta_chart(tables["comparison"], "arm", x_title="arm − rules (+1 card, +1 TP)",
                                            title="Change of the first seat's win rate (paired, same seeds)")}
    if "balance_points" in tables:
        points = tables["balance_points"].with_columns(pl.col("value").alias("second_tp"))
        out["balance"] = charts.rate_chart(points, "second_tp", reference=0.5, y_title="first seat wins",
                                           title="Auto-balance of the second player's Transformed Power")
    return out


# -- cards ------------------------------------------------------------------------------------------------
def card_tables(frame: pl.DataFrame, cards: str | None = None, decks_file: str | None = None, lists: int = 8) -> Tables:
    """Static value model and empirical rates of the cards of ``frame``'s decks, side by side."""
    pool = load_cards(cards)
    model = valuation.fit_value_model(valuation.feature_frame(pool))
    costing = valuation.costing_table(pool, model)
    rates = empirical_values(cardstats.card_rates(frame, pool, load_decks(decks_file, pool)))
    views = cardstats.cost_value_frame(costing.filter(pl.col("id").is_in(rates.get_column("id").implode())), rates,
                                       outliers=lists)
    return {"value_model": model.rates_frame().with_columns(pl.lit(model.r2).alias("r2"),
                                                             pl.lit(model.rmse).alias("rmse"),
                                                             pl.lit(model.n).alias("cards")),
            "costed": costed_lists(views, lists), "static": costing, "rates": rates, "views": views}


def _cards(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
           on_progress: Progress, should_stop: Stop) -> Tables:
    frame, _ = _settings_play(model, settings, params, seed, workers, on_progress, should_stop)
    return card_tables(frame, params.get("cards"), params.get("decks"), settings["lists"]) | {"games": frame}


def iwd_chart(rates: pl.DataFrame, title: str = "Improvement when drawn, per card (95 % interval)") -> Any:
    """Each card's improvement when drawn (win rate drawn − not drawn) with its interval; significant in red."""
    data = rates.filter(pl.col("iwd").is_not_null()).select(
        pl.format("{} {}", "id", "name").alias("card"), pl.col("iwd").alias("diff"), pl.col("iwd_low").alias("low"),
        pl.col("iwd_high").alias("high"), pl.col("iwd_p").alias("p_value"),
        (pl.col("iwd_p") < 0.05).alias("significant"), pl.col("wr_drawn_n").alias("n"))
    return charts.delta_chart(data, "card", title=title, x_title="win rate when drawn − when not drawn")


def card_charts(tables: Tables) -> dict[str, Any]:
    """Cost against value in both views, and the improvement when drawn per card."""
    return {"cost_vs_value": cardstats.cost_value_chart(tables["views"]), "iwd": iwd_chart(tables["rates"])}


# -- endings ----------------------------------------------------------------------------------------------
def deck_tallies(frame: pl.DataFrame) -> pl.DataFrame:
    """Per deck: seat-games, win rate with interval, and the mean of each tally per seat-game."""
    parts = [frame.select(pl.col(f"deck_{s}").alias("deck"), (pl.col("winner") == s).alias("won"),
                          *(pl.col(f"{t}_{s}").alias(t) for t in TALLIES)) for s in ("p1", "p2")]
    rows = pl.concat(parts, how="vertical")
    out = rows.group_by("deck").agg(pl.len().cast(pl.Int64).alias("seat_games"),
                                    pl.col("won").sum().cast(pl.Int64).alias("wins"),
                                    *(pl.col(t).mean() for t in TALLIES))
    out = analysis.rate_columns(out, "win", "wins", "seat_games")
    return out.select("deck", "seat_games", "win", "win_low", "win_high", *TALLIES).sort("deck")


def ending_tables(frame: pl.DataFrame) -> Tables:
    """How games end (overall and per matchup), length, the tower margin, deck tallies, tower trajectories."""
    labelled = analysis.ending_labels(frame).with_columns(
        (pl.col("tower_p1") - pl.col("tower_p2")).abs().alias("margin"))
    margin = labelled.group_by("reason").agg(
        pl.len().alias("n"), pl.col("margin").mean().alias("margin_mean"),
        pl.col("margin").median().alias("margin_median"), (pl.col("margin") <= 2).mean().alias("within_2"))
    return {"endings": analysis.ending_table(frame, ()), "endings_by_matchup": analysis.ending_table(frame),
            "draws": metrics.draws(labelled, ["pair"]), "length": metrics.duration(labelled, ["reason"]),
            "margin": margin.sort("reason"), "tallies": deck_tallies(frame),
            "trajectories": analysis.trajectory_table(frame)}


def _endings(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
             on_progress: Progress, should_stop: Stop) -> Tables:
    frame, _ = _settings_play(model, settings, params, seed, workers, on_progress, should_stop)
    return ending_tables(frame) | {"games": frame}


def ending_charts(tables: Tables) -> dict[str, Any]:
    """Endings per matchup, the final tower margin, tower trajectories."""
    frame = analysis.ending_labels(tables["games"]).with_columns(
        (pl.col("tower_p1") - pl.col("tower_p2")).abs().alias("tower margin"))
    return {"endings": charts.share_bars(frame, "pair", "ending", title="How games end, per matchup"),
            "margin": charts.histogram(frame, "tower margin", color="reason", normalize=True,
                                       title="Final tower margin by how the game ended"),
            "trajectories": analysis.trajectory_chart(tables["trajectories"])}


# -- what-if -----------------------------------------------------------------------------------------------
_SPLIT = re.compile(r";\s*(?=[^;=]+\.[a-z_]+\s*=)")  # a ";" that starts the next edit (texts may hold ";")


def parse_edits(text: str) -> dict[str, dict[str, str]]:
    """``"F9.power_cost=2; Fireball.text=play: damage minion 5"`` → ``{"F9": {"power_cost": "2"}, ...}``."""
    edits: dict[str, dict[str, str]] = {}
    for piece in filter(str.strip, _SPLIT.split(text or "")):
        head, eq, value = piece.partition("=")
        card, dot, column = head.strip().rpartition(".")
        if not (eq and dot and card.strip() and column.strip()):
            raise InputError(f"setting 'edits': {piece.strip()!r} is not CARD.column=value (e.g. F9.power_cost=2; "
                             f"columns: {', '.join(CARD_COLUMNS[1:])})")
        edits.setdefault(card.strip(), {})[column.strip()] = value.strip()
    if not edits:
        raise InputError("setting 'edits': the what-if changes nothing; give CARD.column=value, e.g. F9.power_cost=2")
    return edits


def edited_cards_csv(edits: dict[str, dict[str, Any]], base: str | Path | None = None,
                     decks_file: str | None = None) -> Path:
    """A cards CSV with ``edits`` applied (rows by id or name), validated with the decks; content-addressed."""
    return edit_csv(base or CARDS_CSV, edits, key=("id", "name"), directory=cache_dir("babylon"), stem="cards",
                    validate=lambda path: load_decks(decks_file, load_cards(path)))


def edit_table(edits: dict[str, dict[str, Any]], base: str | None, edited: Path) -> pl.DataFrame:
    """One row per edited field: id, name, column, before, after (as the CSV reads)."""
    before, after = load_cards(base), load_cards(edited)

    def cell(card: Any, column: str) -> str:
        value = getattr(card, column)
        return ";".join(value) if column == "keywords" else "" if value is None else str(value)

    rows = []
    for key, change in edits.items():
        card = next(c for c in before if key in (c.id, c.name))
        rows += [{"id": card.id, "name": card.name, "column": column, "before": cell(card, column),
                  "after": cell(after[card.id], column)} for column in change]
    return pl.DataFrame(rows)


def what_if(model: GameModel, decks: list[str], games: int, agents: Any, params: dict[str, Any],
            edits: dict[str, dict[str, Any]], *, seed: int, workers: int, on_progress: Progress = None,
            should_stop: Stop = None, baseline: pl.DataFrame | None = None) -> Tables:
    """The matrix with ``edits`` against the unchanged cards on the same seeds, cell by cell.

    Both arms are core's :func:`~workbench.core.design.cardtable.paired_runs` over the deck grid (common
    random numbers); ``baseline``: the unchanged arm when already played (the same grid, games and
    seed), else it is played here first.
    """
    base_cards = params.get("cards")
    edited = edited_cards_csv(edits, base_cards, params.get("decks"))

    def arm(cards: dict[str, Any], progress: ProgressTotal) -> pl.DataFrame:
        return play(model, decks, games, agents, params, seed=seed, workers=workers, grid=cards, on_progress=progress,
                    should_stop=should_stop)

    total = (1 if baseline is not None else 2) * games * 2 * len(decks) ** 2
    baseline, variant, _ = paired_runs(arm, {"cards": [base_cards]}, {"cards": [str(edited)]}, total,
                                       on_progress=on_progress, baseline=baseline, keys=(*analysis.GRID_KEYS,
                                                                                          "game_index"))
    changes = edit_table(edits, base_cards, edited)
    delta = analysis.matrix_delta(baseline, variant, decks)
    held = cardstats.holders(load_decks(params.get("decks"), load_cards(edited)), decks)
    touched = {d for card_id in changes.get_column("id").unique() for d in held.get(card_id, "").split("+") if d}
    delta = delta.with_columns((pl.col("deck").is_in(list(touched)) | pl.col("opponent").is_in(list(touched)))
                               .alias("holds_edited_card"))
    rates = [cardstats.card_rates(arm, load_cards(path), load_decks(params.get("decks"), load_cards(path)))
             for arm, path in ((baseline, base_cards), (variant, edited))]
    card_delta = arm_intervals(compare_card_rates(*rates, changes.get_column("id").unique().to_list(), on="id"))
    games_frame = pl.concat([baseline.with_columns(pl.lit("baseline").alias("arm")),
                             variant.with_columns(pl.lit("variant").alias("arm"))], how="diagonal_relaxed")
    return {"edits": changes, "matrix_delta": delta, "cards": card_delta, "games": games_frame}


def arm_intervals(cards: pl.DataFrame) -> pl.DataFrame:
    """A card comparison with each arm's Wilson interval (``base_low`` .. ``variant_high``) beside its rate."""
    if cards.is_empty():
        return cards
    extra = []
    for arm in ("base", "variant"):
        low, high = wilson_exprs((pl.col(arm) * pl.col(f"n_{arm}")).round().cast(pl.Int64), pl.col(f"n_{arm}"))
        extra += [low.alias(f"{arm}_low"), high.alias(f"{arm}_high")]
    order = [c for name in cards.columns
             for c in ((name, f"{name}_low", f"{name}_high") if name in ("base", "variant") else (name,))]
    return cards.with_columns(extra).select(order)


def _whatif(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
            on_progress: Progress, should_stop: Stop) -> Tables:
    decks = deck_choice(model, settings["decks"], params)
    edits = parse_edits(settings["edits"])
    return what_if(model, decks, settings["games"], _agents(settings["agents"]), params, edits, seed=seed,
                   workers=workers, on_progress=on_progress, should_stop=should_stop)


def whatif_charts(tables: Tables) -> dict[str, Any]:
    """The matrix's change as a heat map, and every cell's change with its interval."""
    delta = tables["matrix_delta"].with_columns(pl.format("{} vs {}", "deck", "opponent").alias("matchup"))
    return {"matrix_delta": analysis.delta_heatmap(tables["matrix_delta"]),
            "cells": charts.delta_chart(delta, "matchup", x_title="variant − baseline (row deck's win rate)",
                                        title="What-if: each matchup's change with its 95 % interval (paired)")}


LISTS = Param("lists", 8, int, "cards in each over- / under-costed list", 1, 60)


def _grid_size(arms: int = 1) -> Callable[[dict[str, Any], dict[str, Any]], int]:
    """Games of a run over every deck pairing (deck_p1 × deck_p2) and first seat, in ``arms`` arms."""
    def size(settings: dict[str, Any], params: dict[str, Any]) -> int:
        from workbench.core.model import get_game  # the registered model, looked up when a size is asked

        return arms * settings["games"] * 2 * len(deck_choice(get_game("babylon"), settings["decks"], params)) ** 2
    return size
STUDIES = (
    Study("matchups", "The precon matchup matrix: each deck against each, both seats", _matchups,
          (GAMES, DECKS, AGENTS), matchup_charts,
          "The row deck's win rate against the column deck over every game between them (both seats, moving first "
          "and second), with its 95 % interval, n, the draws and the exact test against an even matchup.",
          size=_grid_size()),
    Study("compensation", "Second-player compensation: the first seat with and without +1 card / +1 TP",
          _compensation, (
              Param("games", 500, int, "games per deck pairing, first seat and arm", 1, 10**8), DECKS, AGENTS,
              Param("balance_games", 250, int, "games per deck pairing and first seat for each TP value tried",
                    1, 10**8),
              Param("low", 0, int, "smallest Transformed Power bonus tried", 0, 20),
              Param("high", 6, int, "largest Transformed Power bonus tried", 0, 20),
              Param("evaluations", 6, int, "TP values to try at most (0: no search)", 0, 21),
              Param("balance_cards", 1, int, "the second player's extra cards while the TP bonus is searched", 0, 10)),
          compensation_charts,
          "Arms +1 card +1 TP (the rules), +1 card, +1 TP, no bonus — each paired with the rules' games on the same "
          "seeds (McNemar's exact test); then a bracketing search of the TP bonus for a 50 % first seat.",
          long_run={"games": 2000}),
    Study("cards", "Card cost-efficiency two ways: static value model and drawn/played win rates", _cards,
          (Param("games", 500, int, GAMES.help, 1, 10**8), DECKS, AGENTS, LISTS), card_charts,
          "Static: least-squares exchange rates from stats, keywords and text to cost. Empirical: win rate when "
          "drawn / played and improvement when drawn, over the seat-games of the decks holding the card.",
          size=_grid_size()),
    Study("endings", "How games end, game length and tower trajectories", _endings,
          (Param("games", 500, int, GAMES.help, 1, 10**8), DECKS, AGENTS), ending_charts,
          "A tower at the win height or the count after both players' last turn, who won it, the margin, what "
          "each deck does per game, and each deck's tower turn by turn.", size=_grid_size()),
    Study("whatif", "What-if: edited cards against the unchanged ones, the matrix cell by cell", _whatif,
          (Param("edits", "F10.power_cost=3", str, "card edits CARD.column=value separated by ';' (CARD: id or "
                 "name; columns of data/babylon/cards.csv), e.g. F9.power_cost=2; E4.might=4"),
           Param("games", 500, int, GAMES.help, 1, 10**8), DECKS, AGENTS), whatif_charts,
          "Both arms on the same seeds (common random numbers): every matchup's change with the exact paired test; "
          "the edited cards' own rates with the two-proportion test.", size=_grid_size(2)),
    Study(**metagame_study("babylon", grid={"first": ["p1", "p2"]})),  # core's: each deck moving first and second
)


# -- the verdicts core's ``verdicts`` study gives (GameModel.verdicts) -------------------------------------------
def _scored(counts: pl.DataFrame) -> pl.DataFrame:
    """``key``, ``verdict``, ``n``, ``wins``, ``draws`` → a score (a draw counts half), its 95 % interval and label."""
    from workbench.core.skill.tiers import side_of
    from workbench.core.stats.rates import wilson

    score = (counts["wins"] + counts["draws"] / 2).to_numpy()
    low, high = wilson(score, counts["n"].to_numpy())
    out = counts.select("key", "verdict", "n").with_columns(pl.Series("rate", score / counts["n"].to_numpy()),
                                                           pl.Series("low", low), pl.Series("high", high))
    return out.with_columns(side_of(pl.col("low"), pl.col("high")).alias("label"))


def _tally(rows: pl.DataFrame, key: pl.Expr, won: pl.Expr, draw: pl.Expr, shown: Callable[[str], str]) -> pl.DataFrame:
    out = (rows.group_by(key.alias("key"), maintain_order=True)
           .agg(pl.len().alias("n"), won.sum().alias("wins"), draw.sum().alias("draws")).sort("key"))
    return _scored(out.with_columns(pl.col("key").map_elements(shown, return_dtype=pl.String).alias("verdict")))


def verdict_sources(model: GameModel, params: dict[str, Any]) -> list[Any]:
    """Every precon against every precon (one cell per p1 deck, both first seats), read as four kinds of verdict.

    The first seat (pooled, and per deck the first mover plays: "Night Raid as first seat"), each deck
    against the field (mirrors left out), each pairing (the deck listed first named first), and each
    card's cost flag — all from the same games at each tier.
    """
    from workbench.core.studies.verdicts import Source, cost_flag_source

    decks = deck_choice(model, "all", params)
    names = {d: model.choice_label("deck_p1", d) for d in decks}
    rank = {d: i for i, d in enumerate(decks)}
    cells = tuple((d, {**params, "deck_p1": d, "deck_p2": list(decks), "first": ["p1", "p2"]}) for d in decks)

    def pooled(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
        return pl.concat(list(frames.values()), how="vertical_relaxed")

    def first_seat(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
        games = pooled(frames).filter(pl.col("first_seat").is_not_null())
        mover = pl.when(pl.col("first_seat") == "p1").then(pl.col("deck_p1")).otherwise(pl.col("deck_p2"))
        won, draw = pl.col("winner") == pl.col("first_seat"), pl.col("winner") == "draw"
        every = _tally(games, pl.lit("all"), won, draw, lambda _k: "first seat · every pairing")
        per_deck = _tally(games, mover, won, draw, lambda k: f"first seat · {names.get(k, k)} moves first")
        return pl.concat([every, per_deck])

    def field(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
        rows = analysis.seat_rows(pooled(frames), "both").filter(pl.col("deck") != pl.col("opponent"))
        return _tally(rows, pl.col("deck"), pl.col("won"), pl.col("draw"), lambda k: f"{names.get(k, k)} vs the field")

    def pairings(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
        rows = analysis.seat_rows(pooled(frames), "both").filter(
            pl.col("deck").replace_strict(rank, default=None) < pl.col("opponent").replace_strict(rank, default=None))
        key = pl.concat_str("deck", pl.lit(" vs "), "opponent")

        def shown(k: str) -> str:
            a, _, b = k.partition(" vs ")
            return f"{names.get(a, a)} vs {names.get(b, b)}"

        return _tally(rows, key, pl.col("won"), pl.col("draw"), shown)

    pool, deck_lists = load_cards(), load_decks()
    cards = len({c for d in decks for c in deck_lists[d].card_ids})

    def rates(games: pl.DataFrame, alpha: float) -> pl.DataFrame:
        return cardstats.card_rates(games, pool, deck_lists, alpha)

    return [Source("first seat", cells, first_seat), Source("deck vs the field", cells, field),
            Source("pairing", cells, pairings), cost_flag_source(cells, rates, cards, key="id", name="name")]
