"""Every balance verdict a game gives, at its declared skill tiers, each settled, moving with skill or undecided.

A game's verdicts come from *sources* (:class:`Source`): the first seat per cell (every game
with a first seat; core's default), and what the game declares through ``GameModel.verdicts``
("module:function(model, params) -> list[Source]"): Babylon's pairings and each deck against the
field, the duel's battlefields, Babel's start-hand variants, the cards' cost flags.  Core adds
the dead cards of every game whose card table says which card an action plays.  Each source
names the cells it plays (a cell is a dict of game parameters; a cell two sources share is
played once) and measures one tier's frames of its cells into rows: ``key`` (raw), ``verdict``
(display name), ``rate`` with ``n``, ``low``/``high`` (95 %), ``label`` (favoured, fair, ...) and,
for a value that is not a score, its standard error ``se``.

The ``verdicts`` study plays every cell at every declared tier on the same seeds (a search tier
plays ``games / cost`` games, at least ``core.skill.tiers.MIN_TIER_GAMES``: :meth:`core.skill.tiers.Tier.games`)
and lines the rows up with :func:`core.skill.tiers.tier_verdicts`: each verdict's value at each tier with
n and interval, and its status (``core.stats.rates.settle``).  It streams the sources whose cells are
finished and obeys Stop like the ``skill`` study; ``--csv PATH`` (or ``--out DIR``) writes
``verdicts.csv``, one row per verdict with its raw key.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import GameModel, Param
from workbench.core.model.refs import resolve_ref
from workbench.core.sim.partial import PartialFeed
from workbench.core.skill.tiers import (
    MIN_TIER_GAMES,
    SEARCH_COST,
    STATUS_TEXT,
    Tier,
    default_tiers,
    first_seat_scores,
    flips,
    gain_spread,
    parse_tiers,
    play_cell,
    tier_verdicts,
)
from workbench.core.stats.cardstats import OVER, UNDER, cost_flags, empirical_values, flag_alpha
from workbench.core.stats.rates import z_value

__all__ = ["ROW_COLUMNS", "Source", "cost_flag_source", "dead_card_source", "first_seat_source", "verdict_sources",
           "verdicts_study", "write_csv"]

ROW_COLUMNS = ("key", "verdict", "rate", "n", "low", "high", "label")  # what a source's measure returns
SPREAD = ("se_below", "se_above")  # and, for a value that is not a score, its standard error below and above it
Player = Callable[..., pl.DataFrame]  # (model, cell, tier, games, *, seed, workers, on_progress, should_stop)


@dataclass(frozen=True)
class Source:
    """One family of verdicts: the cells it plays at every tier and how one tier's frames become rows.

    ``measure({cell label: frame})`` returns :data:`ROW_COLUMNS` (where the value is not a score, its standard
    error too: ``se``, or :data:`SPREAD`, the pair below and above it for a lopsided interval). ``games`` names
    the study setting giving its games per cell (``games``, or ``card_games`` for the slow reference loop of
    dead cards); ``player`` plays a cell (default: ``core.skill.tiers.play_cell``; a list value pools every
    value); ``shown`` keeps only the rows whose label is one of these at some tier (the cards flagged, not every
    card in line); ``value`` is ``"score"`` (shown as a percentage) or ``"points"``; ``alpha`` the level of the
    tests that say whether a verdict settled or moved (5 %; a family flagged at a corrected level is tested at
    it).
    """

    name: str
    cells: tuple[tuple[str, dict[str, Any]], ...]
    measure: Callable[[dict[str, pl.DataFrame]], pl.DataFrame]
    games: str = "games"
    player: Player | None = None
    shown: tuple[str, ...] = ()
    value: str = "score"
    alpha: float = 0.05


def first_seat_source(cells: Sequence[tuple[str, dict[str, Any]]], name: str = "first seat",
                      shown: dict[str, str] | None = None) -> Source:
    """The first seat's score per cell (a draw counts half), its verdict against 50 %: ``<name> · <cell>``.

    A cell's label is its raw key (``crystal_garden``); ``shown`` maps it to the name a person reads.
    """
    names = shown or {}

    def measure(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
        rows = [first_seat_scores(frame).select(pl.lit(cell).alias("key"),
                                                pl.lit(f"{name} · {names.get(cell, cell)}").alias("name"),
                                                "rate", "n", "low", "high", pl.col("verdict").alias("label"))
                for cell, frame in frames.items()]
        return pl.concat(rows).rename({"name": "verdict"})

    return Source(name, tuple(cells), measure)


def cost_flag_source(cells: Sequence[tuple[str, dict[str, Any]]], rates: Callable[[pl.DataFrame, float], pl.DataFrame],
                     cards: int, key: str = "card", cost: str = "cost", name: str | None = None) -> Source:
    """Each card's cost flag from the cells' games pooled (``core.skill.tiers.cost_flags_by_tier``'s measure).

    The value is the card's improvement beyond its cost (win-rate points) with its Bonferroni
    interval over ``cards`` cards and the standard errors below and above it read from the two sides of
    that interval (a card drawn in a few games has a lopsided one); only the cards flagged
    under- or over-costed at some tier are shown.  ``key`` is the rates' card key column (written to
    the CSV), ``name`` the column a person reads (default the key).
    """
    alpha = flag_alpha(cards)
    z = z_value(1 - alpha)

    def measure(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
        pooled = pl.concat(list(frames.values()), how="vertical_relaxed")
        flags = cost_flags(empirical_values(rates(pooled, alpha), cost), cost)
        return flags.select(pl.col(key).cast(pl.String).alias("key"),
                            (pl.lit("cost flag · ") + pl.col(name or key).cast(pl.String)).alias("verdict"),
                            (pl.col("iwd") - pl.col("expected")).alias("rate"), pl.col("wr_drawn_n").alias("n"),
                            (pl.col("iwd_low") - pl.col("expected")).alias("low"),
                            (pl.col("iwd_high") - pl.col("expected")).alias("high"), pl.col("verdict").alias("label"),
                            *gain_spread(z))

    return Source("card cost flags", tuple(cells), measure, shown=(UNDER, OVER), value="points", alpha=alpha)


def dead_card_source(model: GameModel, params: dict[str, Any]) -> Source:
    """Each card no tier plays above ``DEAD_SHARE`` of the games where it could: played when playable, per tier."""
    from workbench.core.design.cardplay import DEAD_SHARE, _with_names, card_play_counts

    def player(model: GameModel, cell: dict[str, Any], tier: Tier, games: int, *, seed: int, workers: int,
               on_progress: Callable[[int], None] | None, should_stop: Callable[[], bool] | None) -> pl.DataFrame:
        seats = model.players(model.make_config(model.resolve_params(cell)))
        return card_play_counts(model, games, params=cell, agents=tier.lineup(seats), seed=seed,
                                on_progress=on_progress, should_stop=should_stop)

    def measure(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
        counts = _with_names(model, frames["cards"].filter(pl.col("playable") > 0), params)
        shown = pl.col("name") if "name" in counts.columns else pl.col("card")
        label = pl.when(pl.col("played_when_playable") <= DEAD_SHARE).then(pl.lit("dead")).otherwise(pl.lit("played"))
        return counts.select(pl.col("card").cast(pl.String).alias("key"),
                             (pl.lit("dead card · ") + shown.cast(pl.String)).alias("verdict"),
                             pl.col("played_when_playable").alias("rate"), pl.col("playable").alias("n"), "low", "high",
                             label.alias("label"))

    return Source("dead cards", (("cards", dict(params)),), measure, games="card_games", player=player,
                  shown=("dead",))


def verdict_sources(model: GameModel, params: dict[str, Any]) -> list[Source]:
    """The game's declared sources (``GameModel.verdicts``), or the first seat as set; then its dead cards."""
    from workbench.core.design.cardtable import card_table

    hook = resolve_ref(model.verdicts) if model.verdicts else None
    if hook is not None:
        found = list(hook(model, params))
    else:
        found = [] if model.simultaneous else [first_seat_source([("as set", dict(params))])]
    table = card_table(model)
    if table is not None and getattr(table, "played_by", None) is not None:
        found.append(dead_card_source(model, params))
    if not found:
        raise InputError(f"{model.name}: no verdicts to give (no seat moves first and the game declares none)")
    return found


# -- the study --------------------------------------------------------------------------------------------
def _cells(sources: Sequence[Source]) -> list[tuple[tuple[int, str], Source, dict[str, Any]]]:
    """Every distinct cell once (a cell shared by sources, same player and games, is played once), in order."""
    seen: dict[tuple[int, str], tuple[tuple[int, str], Source, dict[str, Any]]] = {}
    for source in sources:
        for label, cell in source.cells:
            seen.setdefault(_cell_id(source, label), (_cell_id(source, label), source, cell))
    return list(seen.values())


def _cell_id(source: Source, label: str) -> tuple[int, str]:
    return (id(source.player), f"{source.games}:{label}")


def _rows(tiers: Sequence[Tier], sources: Sequence[Source], played: dict[str, dict[tuple[int, str], pl.DataFrame]],
          finished: set[tuple[int, str]], stopped: bool = False) -> pl.DataFrame | None:
    """The long rows (``source``, ``tier``, ...) of every source whose cells are all finished.

    ``stopped``: a stopped run's rows — every source and tier over its cells with games finished (a
    cell cut short with the games it finished), so what finished is shown.
    """
    frames = []
    for source in sources:
        ids = [_cell_id(source, label) for label, _ in source.cells]
        if not stopped and not all(i in finished for i in ids):
            continue
        for tier in tiers:
            have = {label: played[tier.label][i] for (label, _), i in zip(source.cells, ids, strict=True)
                    if i in played[tier.label] and played[tier.label][i].height}
            if not have or (not stopped and len(have) < len(ids)):
                continue  # a stopped run measures the cells with games; a finished one every cell
            got = source.measure(have)
            if "se" in got.columns and SPREAD[0] not in got.columns:  # one standard error: the same on both sides
                got = got.with_columns(*(pl.col("se").alias(c) for c in SPREAD))
            spread = [(got[c] if c in got.columns else pl.Series(c, [None] * got.height, dtype=pl.Float64)).alias(c)
                      for c in SPREAD]
            frames.append(got.select(pl.lit(source.name).alias("source"), pl.lit(tier.label).alias("tier"),
                                     *ROW_COLUMNS).with_columns(*spread, pl.lit(source.value).alias("kind")))
    return pl.concat(frames, how="vertical_relaxed") if frames else None


def _table(tiers: Sequence[Tier], sources: Sequence[Source], long: pl.DataFrame | None) -> dict:
    """The verdicts table (one row per verdict, raw key and display name) and the unsettled ones in words."""
    if long is None:
        return {"verdicts": pl.DataFrame({"source": [], "key": [], "verdict": []},
                                         schema={"source": pl.String, "key": pl.String, "verdict": pl.String})}
    parts, said = [], []
    for source in sources:
        mine = long.filter(pl.col("source") == source.name)
        if mine.is_empty():
            continue
        mine = mine.with_columns(pl.col(c).fill_nan(None) for c in SPREAD)
        se = None if mine["se_below"].is_null().all() else SPREAD  # a score's own spread is read off its Wilson one
        wide = tier_verdicts(mine, ["source", "key", "verdict"], verdict="label", shown=("rate", "low", "high", "n"),
                             se=se, named="value", alpha=source.alpha)
        if source.shown:
            labels = [f"{t.label} · verdict" for t in tiers if f"{t.label} · verdict" in wide.columns]
            wide = wide.filter(pl.any_horizontal(pl.col(c).is_in(list(source.shown)) for c in labels))
        parts.append(wide)
        said += flips(wide, ["verdict"], value="value", points=source.value != "score")
    table = pl.concat(parts, how="diagonal_relaxed") if parts else _table(tiers, sources, None)["verdicts"]
    return {"verdicts": table, "unsettled": pl.DataFrame({"finding": said or ["Every verdict is settled."]})}


def _verdicts(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
              on_progress: Callable[[int, int], None] | None, should_stop: Callable[[], bool] | None,
              on_partial: Callable[[dict, int, int], None] | None = None) -> dict:
    """Every source's cells at every tier, cell by cell; streams and stops with whole cells only."""
    tiers = parse_tiers(model, settings["tiers"] or default_tiers(model, slow=True))
    sources = verdict_sources(model, params)
    cells = _cells(sources)

    def games_of(source: Source, tier: Tier) -> int:
        return tier.games(settings[source.games])

    per = {cid: sum(games_of(source, t) for t in tiers) for cid, source, _ in cells}
    total, done = sum(per.values()), [0]

    def tick(n: int) -> None:
        done[0] += n
        if on_progress is not None:
            on_progress(done[0], total)

    played: dict[str, dict[tuple[int, str], pl.DataFrame]] = {t.label: {} for t in tiers}
    finished: set[tuple[int, str]] = set()

    def tables() -> dict:
        return _table(tiers, sources, _rows(tiers, sources, played, finished))

    feed = PartialFeed(on_partial, total)
    for c, (cid, source, cell) in enumerate(cells):
        play = source.player or play_cell
        for tier in tiers:
            try:
                played[tier.label][cid] = play(model, cell, tier, games_of(source, tier), seed=seed, workers=workers,
                                               on_progress=tick, should_stop=should_stop)
            except RunInterrupted as exc:  # stopped: every finished game is shown, the cell cut short too
                if exc.partial is not None and exc.partial.height:
                    played[tier.label][cid] = exc.partial
                long = _rows(tiers, sources, played, finished, stopped=True)
                raise RunInterrupted(_table(tiers, sources, long) if long is not None else None, done[0],
                                     total) from None
        finished.add(cid)
        kept = sum(per[i] for i in finished)
        if c + 1 < len(cells) and should_stop is not None and should_stop():
            raise RunInterrupted(tables(), done[0], total)
        feed.offer(tables, kept)
    out = tables()
    if settings.get("csv"):
        write_csv(out["verdicts"], Path(settings["csv"]))
    return out


def write_csv(table: pl.DataFrame, path: Path) -> Path:
    """``verdicts.csv``: one row per verdict with its raw key (no display name), written whole or not at all."""
    from workbench.core.present.report import csv_safe

    if path.suffix != ".csv":
        path = path / "verdicts.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    csv_safe(table.drop("verdict")).write_csv(tmp)
    tmp.replace(path)
    return path


def _size(model: GameModel) -> Callable[[dict[str, Any], dict[str, Any]], int]:
    def size(settings: dict[str, Any], params: dict[str, Any]) -> int:
        tiers = parse_tiers(model, settings["tiers"] or default_tiers(model, slow=True))
        return sum(t.games(settings[source.games]) for _cid, source, _cell in _cells(verdict_sources(model, params))
                   for t in tiers)

    return size


def _charts(tables: dict) -> dict:
    from workbench.core.present import charts

    table = tables["verdicts"]
    if "status" not in table.columns or table.is_empty():
        return {}
    tiers = [c.rsplit(" · ", 1)[0] for c in table.columns if c.endswith(" · verdict")]
    long = pl.concat([table.select("verdict", pl.lit(t).alias("tier"), pl.col(f"{t} · value").alias("rate"),
                                   pl.col(f"{t} · value_low").alias("low"), pl.col(f"{t} · value_high").alias("high"))
                      for t in tiers]).drop_nulls("rate")
    return {"verdicts": charts.rate_chart(long, "verdict", color="tier",
                                          title="Each verdict's value per tier (95 % interval)", y_title="value")}


def verdicts_study(model: GameModel) -> dict[str, Any] | None:
    """The keyword arguments of core's ``verdicts`` study for ``model`` (None for a game that gives no verdict)."""
    from workbench.core.design.cardtable import card_table

    table = card_table(model)
    if model.simultaneous and not model.verdicts and (table is None or getattr(table, "played_by", None) is None):
        return None
    return {"name": "verdicts", "title": "Verdicts: is each balance verdict settled across skill?",
            "run": _verdicts, "charts": _charts, "size": _size(model),
            "settings": (Param("tiers", None, str, "skill tiers, weakest first, one agent spec each (every seat plays "
                               f"it); none: the declared {default_tiers(model, slow=True)}", optional=True),
                         Param("games", 1000, int, "games per cell at each fast tier (the same seeds at every tier; a "
                               f"search tier plays 1/{SEARCH_COST:g} of them, at least {MIN_TIER_GAMES})", 10, 10**8),
                         Param("card_games", 100, int, "games per tier for the dead cards (the reference loop, a few "
                               "per second)", 1, 10**6),
                         Param("csv", None, str, "write verdicts.csv here (a file or a folder; none: not written)",
                               optional=True)),
            "help": "Every balance verdict the game gives (first seat, pairings, decks against the field, "
                    "battlefields, start hands, card cost flags, dead cards) at each declared tier, with n and "
                    f"interval, and its status: {STATUS_TEXT} (a card's cost flag at the flags' Bonferroni-corrected "
                    "level over the cards, as the flags themselves)."}
