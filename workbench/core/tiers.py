"""Balance verdicts at several skill tiers, and whether each holds at every tier.

A verdict computed from games between two copies of one bot ("the first seat is favoured",
"Siege of Ur beats the field") may be an artefact of that bot.  A *tier* is a skill level: an
agent spec every seat plays (``greedy``, ``greedy@tuned``, ``search:budget=64``).  A study that
gives verdicts runs once per tier on the same seeds (:func:`by_tier`), and :func:`holds_at_every_tier`
lines the verdicts up: one row per item (a battlefield, a deck, a hand pair), the verdict and its
rate at each tier, and ``holds`` — true when every tier reached the same verdict.  :func:`flips`
says in plain words which verdicts change with skill, so a report can print it.

A verdict is a short word computed from a rate and its interval (:func:`side_of`): ``favoured``
when the interval lies above the fair value, ``disfavoured`` when below, ``fair`` when it holds
it.  An item's verdict must not be decided by noise: a study uses enough games per tier that its
intervals are narrow, and says n beside every rate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from workbench.core.cardstats import OVER, UNDER, cost_flags, empirical_values, flag_alpha
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import AgentSpec, GameModel, Param, _split_agents, weight_set_names
from workbench.core.partial import PartialFeed
from workbench.core.stats import wilson

__all__ = ["DEFAULT_TIERS", "Tier", "by_tier", "cost_flags_by_tier", "cost_flags_section", "first_seat_by_tier",
           "first_seat_scores", "first_seat_table", "flips", "holds_at_every_tier", "parse_tiers", "play_by_tier",
           "side_of"]

DEFAULT_TIERS = "greedy,greedy@tuned"  # the default skill levels: the hand-tuned bot and its self-tuned weights
FAVOURED, FAIR, DISFAVOURED = "favoured", "fair", "disfavoured"


@dataclass(frozen=True)
class Tier:
    """A skill level: its label (shown in tables) and the agent spec every seat plays."""

    label: str
    agent: str

    def lineup(self, seats: int) -> str:
        """The agents argument for ``simulate``: this tier's agent in every seat."""
        return ",".join([self.agent] * seats)


def default_tiers(model: GameModel) -> str:
    """The game's default skill tiers: ``greedy`` and, where a tuned weight set exists, ``greedy@tuned``.

    A game without a ``greedy`` agent gets its first two declared agents (e.g. ``random,highest``).
    """
    if "greedy" in model.agents:
        return "greedy,greedy@tuned" if "tuned" in weight_set_names(model) else "greedy"
    return ",".join(model.agents[:2])


def parse_tiers(model: GameModel, text: str | Sequence[str] = DEFAULT_TIERS) -> tuple[Tier, ...]:
    """Tiers from ``"greedy,greedy@tuned"`` (or a list); each spec is checked against the game's agents.

    A tier's label is its spec (``greedy@tuned`` reads as is).  Two tiers with the same spec, or
    fewer than one tier, are errors.
    """
    specs = _split_agents(text) if isinstance(text, str) else [str(t).strip() for t in text]
    specs = [s for s in specs if s]
    if not specs:
        raise InputError(f"{model.name}: give at least one tier, e.g. {DEFAULT_TIERS!r}")
    if len(set(specs)) != len(specs):
        raise InputError(f"{model.name}: tiers {specs} name one agent twice; give each skill level once")
    for spec in specs:
        model.make_agent(AgentSpec.parse(spec))  # unknown agents, options and weight sets are refused here
    return tuple(Tier(spec, spec) for spec in specs)


def by_tier(tiers: Sequence[Tier], run: Callable[[Tier], pl.DataFrame]) -> pl.DataFrame:
    """``run(tier)`` for every tier (the caller keeps the seeds the same), stacked with a ``tier`` column first."""
    frames = []
    for tier in tiers:
        frame = run(tier)
        frames.append(frame.select(pl.lit(tier.label).alias("tier"), pl.all()))
    return pl.concat(frames, how="vertical_relaxed")


def side_of(low: pl.Expr, high: pl.Expr, fair: float = 0.5) -> pl.Expr:
    """``favoured`` / ``fair`` / ``disfavoured``: where the interval ``[low, high]`` lies against ``fair``."""
    return (pl.when(low > fair).then(pl.lit(FAVOURED))
            .when(high < fair).then(pl.lit(DISFAVOURED))
            .otherwise(pl.lit(FAIR)))


def holds_at_every_tier(frame: pl.DataFrame, key: Sequence[str], verdict: str = "verdict",
                        shown: Sequence[str] = ("rate", "low", "high", "n")) -> pl.DataFrame:
    """One row per ``key``: each tier's verdict (and ``shown`` columns), and ``holds`` at every tier.

    ``frame`` is :func:`by_tier`'s output with a ``verdict`` column.  Columns are named
    ``<tier> · <what>`` in tier order, a rate as ``<tier> · score`` with ``_low``/``_high`` (so a
    displayed table reads it with its interval); ``holds`` is true when every tier reached one
    verdict, and ``tiers`` counts the tiers the item was measured at (an item missing at a tier
    does not hold).
    """
    missing = [c for c in (*key, "tier", verdict) if c not in frame.columns]
    if missing:
        raise InputError(f"holds_at_every_tier: the frame has no column {missing[0]!r}")
    tiers = list(dict.fromkeys(frame["tier"].to_list()))
    names = {"rate": "score", "low": "score_low", "high": "score_high"}
    keep = [c for c in shown if c in frame.columns]
    out = frame.select(*key).unique(maintain_order=True)
    for tier in tiers:
        part = frame.filter(pl.col("tier") == tier).select(
            *key, pl.col(verdict).alias(f"{tier} · verdict"),
            *(pl.col(c).alias(f"{tier} · {names.get(c, c)}") for c in keep))
        out = out.join(part, on=list(key), how="left", coalesce=True)
    verdicts = pl.concat_list([f"{t} · verdict" for t in tiers]).list.drop_nulls()
    return out.with_columns(verdicts.list.len().alias("tiers"),
                            (verdicts.list.n_unique().eq(1) & verdicts.list.len().eq(len(tiers))).alias("holds"))


def flips(table: pl.DataFrame, key: Sequence[str], label: Callable[[dict[str, Any]], str] | None = None) -> list[str]:
    """Plain sentences for the items whose verdict changes with skill (none when every verdict holds).

    ``label(row)`` names an item for a reader (default: its key values joined by " / ").
    """
    tiers = [c.rsplit(" · ", 1)[0] for c in table.columns if c.endswith(" · verdict")]
    out = []
    for row in table.filter(~pl.col("holds")).iter_rows(named=True):
        name = label(row) if label else " / ".join(str(row[k]) for k in key)
        steps = ", ".join(f"{row[f'{t} · verdict'] or 'not measured'} at {t}" for t in tiers)
        out.append(f"{name}: the verdict changes with skill — {steps}.")
    return out


def first_seat_scores(frame: pl.DataFrame, key: Sequence[str] = ()) -> pl.DataFrame:
    """The first seat's balance score per ``key``: wins and half the draws over the games with a first seat.

    Columns ``key``, ``n``, ``wins``, ``draws``, ``rate`` (the score), ``low``/``high`` (95 % Wilson on
    the score's count, a draw counting ½), and ``verdict`` (:func:`side_of` against ½).  Games whose
    ``first_seat`` is null (simultaneous play) are not counted.
    """
    counted = frame.filter(pl.col("first_seat").is_not_null())
    exprs = [pl.len().alias("n"), (pl.col("winner") == pl.col("first_seat")).sum().alias("wins"),
             (pl.col("winner") == "draw").sum().alias("draws")]
    out = (counted.group_by(list(key), maintain_order=True).agg(exprs) if key
           else counted.select(exprs))
    score = (out["wins"] + out["draws"] / 2).to_numpy()
    low, high = wilson(score, out["n"].to_numpy())
    out = out.with_columns(pl.Series("rate", score / out["n"].to_numpy()), pl.Series("low", low),
                           pl.Series("high", high))
    return out.with_columns(side_of(pl.col("low"), pl.col("high")).alias("verdict"))


def first_seat_by_tier(model: GameModel, tiers: Sequence[Tier], cells: Sequence[dict[str, Any]], games: int, *,
                       seed: int = 0, workers: int = 1, label: Callable[[dict[str, Any]], str] | None = None,
                       on_progress: Callable[[int], None] | None = None,
                       should_stop: Callable[[], bool] | None = None) -> pl.DataFrame:
    """Is the first seat favoured? Per cell (a dict of game parameters) and tier, on the same seeds at every tier.

    Returns :func:`holds_at_every_tier` over the cells, keyed by ``cell`` (``label(params)``, default
    ``k=v`` pairs).  Every tier plays ``games`` games per cell from master seed ``seed``: common
    random numbers, so a verdict that changes between tiers changes with skill, not with luck.  A
    cell whose value is a list pools the games of every value (e.g. every deck pairing of an arm).
    """
    played = play_by_tier(model, tiers, cells, games, seed=seed, workers=workers, label=label,
                          on_progress=on_progress, should_stop=should_stop)
    return first_seat_table(tiers, played)


def play_by_tier(model: GameModel, tiers: Sequence[Tier], cells: Sequence[dict[str, Any]], games: int, *,
                 seed: int = 0, workers: int = 1, label: Callable[[dict[str, Any]], str] | None = None,
                 on_progress: Callable[[int], None] | None = None, should_stop: Callable[[], bool] | None = None,
                 keep: Sequence[str] | None = None) -> dict[str, dict[str, pl.DataFrame]]:
    """``{tier label: {cell label: frame}}``: ``games`` games per cell and tier, the same seeds at every tier.

    The frames of one run serve several verdicts (the first seat, the cards' cost flags) without
    playing the games twice.  ``label(params)`` names a cell (default ``k=v`` pairs); ``keep`` the
    columns kept of each frame (default all; ``winner`` and ``first_seat`` are always kept).
    """
    name = label or (lambda p: ", ".join(f"{k}={v}" for k, v in p.items()) or "defaults")
    columns = None if keep is None else list(dict.fromkeys(("winner", "first_seat", *keep)))

    def play(cell: dict[str, Any], tier: Tier) -> pl.DataFrame:
        frame = play_cell(model, cell, tier, games, seed=seed, workers=workers, on_progress=on_progress,
                          should_stop=should_stop)
        return frame if columns is None else frame.select(columns)

    return {tier.label: {name(cell): play(cell, tier) for cell in cells} for tier in tiers}


def first_seat_table(tiers: Sequence[Tier], played: dict[str, dict[str, pl.DataFrame]]) -> pl.DataFrame:
    """:func:`holds_at_every_tier` of the first seat's score per cell, from :func:`play_by_tier`'s frames."""
    def run(tier: Tier) -> pl.DataFrame:
        return pl.concat([first_seat_scores(frame).select(pl.lit(cell).alias("cell"), pl.all())
                          for cell, frame in played[tier.label].items()], how="vertical")

    return holds_at_every_tier(by_tier(tiers, run), ["cell"], shown=("rate", "low", "high", "n", "draws"))


def play_cell(model: GameModel, cell: dict[str, Any], tier: Tier, games: int, *, seed: int = 0, workers: int = 1,
              on_progress: Callable[[int], None] | None = None,
              should_stop: Callable[[], bool] | None = None) -> pl.DataFrame:
    """``games`` games of ``tier`` in every seat for the parameters ``cell`` (list values: each value, pooled)."""
    from workbench.core.runner import simulate  # imported here: the runner sits above this module's layer
    from workbench.core.sweep import run_grid

    fixed = {k: v for k, v in cell.items() if not isinstance(v, list)}
    grid = {k: v for k, v in cell.items() if isinstance(v, list)}
    seats = model.players(model.make_config(model.resolve_params(
        {**fixed, **{k: v[0] for k, v in grid.items()}})))
    if not grid:
        return simulate(model, games, params=fixed, agents=tier.lineup(seats), seed=seed, workers=workers,
                        progress=False, on_progress=on_progress, should_stop=should_stop)
    seen = [0]

    def tick(done: int, total: int) -> None:
        if on_progress is not None:
            on_progress(done - seen[0])
        seen[0] = done

    return run_grid(model, grid, games, params=fixed, agents=tier.lineup(seats), seed=seed, workers=workers,
                    progress=False, on_progress=tick, should_stop=should_stop)


# -- the generic study: is the first seat's verdict the same at every tier? -------------------------------
def _skill_cells(model: GameModel, by: str | None, params: dict[str, Any]) -> list[dict[str, Any]]:
    if by is None:
        return [dict(params)]
    choices = model.param(by).choices
    if not choices:
        allowed = ", ".join(p.name for p in model.params if p.choices) or "none"
        raise InputError(f"setting 'by': {by!r} has no choices; allowed: {allowed}")
    return [{**params, by: value} for value in choices]


def _skill(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
           on_progress: Callable[[int, int], None] | None, should_stop: Callable[[], bool] | None,
           on_partial: Callable[[dict, int, int], None] | None = None) -> dict:
    """Every tier × cell on the same seeds; ``on_partial`` streams the verdicts of the cells finished so far.

    Stopped, the run raises :class:`RunInterrupted` carrying the tables of the cells finished at every
    tier (a cell cut short is left out: its verdict would read fewer games than the others).
    """
    tiers = parse_tiers(model, settings["tiers"] or default_tiers(model))
    cells = _skill_cells(model, settings["by"], params)
    games = settings["games"]
    total, done = games * len(cells) * len(tiers), [0]

    def tick(n: int) -> None:
        done[0] += n
        if on_progress is not None:
            on_progress(done[0], total)

    by = settings["by"]
    label = (lambda p: model.choice_label(by, p[by])) if by else (lambda p: "as set")
    played: dict[str, dict[str, pl.DataFrame]] = {t.label: {} for t in tiers}
    finished: list[str] = []  # cells played at every tier: a partial shows whole rows only

    def tables() -> dict:
        table = first_seat_table(tiers, {t: {c: cells_of[c] for c in finished} for t, cells_of in played.items()})
        said = flips(table, ["cell"]) or ["Every verdict holds at every tier."]
        return {"verdicts": table, "flips": pl.DataFrame({"finding": said})}

    feed = PartialFeed(on_partial, total)
    for c, cell in enumerate(cells):  # cell by cell, every tier in turn: the seeds do not depend on the order
        for tier in tiers:
            try:
                played[tier.label][label(cell)] = play_cell(model, cell, tier, games, seed=seed, workers=workers,
                                                            on_progress=tick, should_stop=should_stop)
            except RunInterrupted:
                kept = len(finished) * len(tiers) * games
                raise RunInterrupted(tables() if finished else None, kept, total) from None
        finished.append(label(cell))
        kept = len(finished) * len(tiers) * games
        if c + 1 < len(cells) and should_stop is not None and should_stop():
            raise RunInterrupted(tables(), kept, total)
        feed.offer(tables, kept)
    return tables()


def _skill_charts(tables: dict) -> dict:
    from workbench.core import charts

    table = tables["verdicts"]
    tiers = [c.rsplit(" · ", 1)[0] for c in table.columns if c.endswith(" · verdict")]
    long = pl.concat([table.select("cell", pl.lit(t).alias("tier"), pl.col(f"{t} · score").alias("rate"),
                                   pl.col(f"{t} · score_low").alias("low"), pl.col(f"{t} · score_high").alias("high"))
                      for t in tiers])
    return {"verdicts": charts.rate_chart(long, "cell", color="tier", reference=0.5,
                                          title="First seat's score per tier (a draw counts ½; 95 % interval)",
                                          y_title="first seat's score")}


def skill_study(model: GameModel) -> dict[str, Any] | None:
    """The keyword arguments of core's ``skill`` study for ``model`` (None where no seat moves first)."""
    if model.simultaneous:
        return None
    by = tuple(p.name for p in model.params if p.choices and p.name != "first")
    return {"name": "skill", "title": "Skill tiers: does the first seat's verdict hold at every tier?",
            "run": _skill, "charts": _skill_charts,
            "settings": (Param("tiers", None, str, "skill tiers, one agent spec each (every seat plays it); none: "
                               f"{default_tiers(model)}", optional=True),
                         Param("by", None, str, "a parameter whose every choice is a cell (none: one cell)",
                               choices=by or None, optional=True),
                         Param("games", 2000, int, "games per cell and tier (the same seeds at every tier)", 10,
                               10**8)),
            "help": "Plays every tier on the same seeds and says, per cell, whether the first seat is favoured, "
                    "fair or disfavoured at each tier (a draw counts half), and whether that verdict holds at "
                    "every tier."}


def report_section(rep: Any, name: str, table: pl.DataFrame, title: str, intro: str, games: int,
                   scored: str = "the first seat's score") -> None:
    """A report section of a :func:`holds_at_every_tier` table: what was played, the flips in words, table, chart.

    ``rep`` is a ``core.report.Report``; the table is written as ``name`` (Parquet/CSV too), the chart
    as ``<name>_chart``.
    """
    tiers = [c.rsplit(" · ", 1)[0] for c in table.columns if c.endswith(" · verdict")]
    said = flips(table, ["cell"])
    summary = ("**Every verdict holds at every tier.**" if not said else
               "**Verdicts that change with skill:**\n\n" + "\n".join(f"- {line}" for line in said))
    rep.section(title, f"{intro} Tiers: {', '.join(tiers)} (every seat plays the tier's agent), {games:,} games "
                       f"per cell and tier on the same seeds; a verdict reads the 95 % interval of {scored} (a draw "
                       "counts half) against 50 %.\n\n" + summary)
    rep.table(name, table)
    if "score" in "".join(table.columns):
        rep.chart(f"{name}_chart", _skill_charts({"verdicts": table})["verdicts"])


# -- the cards' cost flags at every tier ----------------------------------------------------------------
def cost_flags_by_tier(tiers: Sequence[Tier], played: dict[str, dict[str, pl.DataFrame]],
                       rates: Callable[[pl.DataFrame, float], pl.DataFrame], cards: int, key: str = "card",
                       cost: str = "cost") -> pl.DataFrame:
    """Each card's cost flag (``cardstats.cost_flags``) at every tier, and whether it holds at every tier.

    ``played`` is :func:`play_by_tier`'s output: each tier's cells are pooled.  ``rates(frame, alpha)``
    is the game's per-card rates (``cardstats.card_rates`` with its card table) with a ``key`` column
    naming the card; ``cards`` how many cards are flagged at once, so every interval is at the
    Bonferroni level ``0.05 / cards`` and a flag is not luck among many cards.  One row per card:
    ``<tier> · verdict``, ``<tier> · beyond_cost`` (improvement when drawn minus what cards of its cost
    do, win-rate points) with its interval, ``<tier> · wr_drawn_n`` (seat-games it was drawn in), ``holds``.
    """
    alpha = flag_alpha(cards)

    def run(tier: Tier) -> pl.DataFrame:
        pooled = pl.concat(list(played[tier.label].values()), how="vertical_relaxed")
        flags = cost_flags(empirical_values(rates(pooled, alpha), cost), cost)
        beyond = [(pl.col(c) - pl.col("expected")).alias(f"beyond_cost{end}") for c, end in
                  (("iwd", ""), ("iwd_low", "_low"), ("iwd_high", "_high"))]
        return flags.select(key, cost, "verdict", *beyond, "wr_drawn_n")

    return holds_at_every_tier(by_tier(tiers, run), [key, cost],
                               shown=("beyond_cost", "beyond_cost_low", "beyond_cost_high", "wr_drawn_n"))


def cost_flags_section(rep: Any, name: str, table: pl.DataFrame, title: str, intro: str, games: int,
                       key: str = "card") -> None:
    """A report section of :func:`cost_flags_by_tier`: the flips in words, then the cards flagged at some tier."""
    tiers = [c.rsplit(" · ", 1)[0] for c in table.columns if c.endswith(" · verdict")]
    verdicts = [f"{t} · verdict" for t in tiers]
    flagged = table.filter(pl.any_horizontal(pl.col(v).is_in([UNDER, OVER]) for v in verdicts))
    said = flips(flagged, [key])
    summary = ("**Every flag holds at every tier.**" if not said else
               "**Flags that change with skill:**\n\n" + "\n".join(f"- {line}" for line in said))
    rep.section(title, f"{intro} Tiers: {', '.join(tiers)} (every seat plays the tier's agent), {games:,} games per "
                       "tier on the same seeds, the seats pooled. A card is *under-costed* when its improvement when "
                       "drawn (win-rate points, drawn against not drawn) lies wholly above what cards of its cost do "
                       "(the least-squares line through every card): its *improvement beyond its cost* excludes 0; "
                       "*over-costed* when wholly below; the intervals "
                       f"are Bonferroni-corrected over the {table.height} cards, so a flag is not luck among many. "
                       f"{flagged.height} of {table.height} cards are flagged at some tier; the others are in line "
                       "at every tier and not listed.\n\n" + summary)
    rep.table(name, flagged.sort(["holds", key]))
