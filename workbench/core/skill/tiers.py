"""Balance verdicts at several skill tiers, and whether each is settled across skill.

A verdict computed from games between two copies of one bot ("the first seat is favoured",
"Siege of Ur beats the field") may be an artefact of that bot.  A *tier* is a skill level: an
agent spec every seat plays (``greedy``, ``greedy@tuned``, ``search``).  Each game declares its
tiers, weakest first (``GameModel.tiers``; :func:`declared_tiers`), and every study, report and
page that gives verdicts plays them by default.  A search tier costs far more per game than a
fast one (:attr:`Tier.cost`): a study asked for ``games`` per tier plays ``games / cost`` there
(at least :data:`MIN_TIER_GAMES`), so its verdicts at search may honestly read *undecided*.

A study that gives verdicts runs once per tier on the same seeds (:func:`by_tier`), and
:func:`tier_verdicts` lines the verdicts up: one row per item (a battlefield, a deck, a hand
pair), the verdict and its value at each tier, and its ``status`` across skill — *settled* when
the values at the two strongest tiers agree within ±2 points (two one-sided tests, each at 5 %),
*moves with skill* when they differ (two-sided test at 5 %), else *undecided: play more* with
the games needed (``core.stats.rates.settle``; each tier's spread is the side of its own interval that
faces the other tier, so a tier whose interval holds the other's value never reads as moving).  Labels
are not compared: a wide interval reads "fair"
at both tiers while the value moves.  :func:`flips` says in plain words which verdicts are not
settled, so a report can print it.

A verdict is a short word computed from a rate and its interval (:func:`side_of`): ``favoured``
when the interval lies above the fair value, ``disfavoured`` when below, ``fair`` when it holds
it.  An item's verdict must not be decided by noise: a study uses enough games per tier that its
intervals are narrow, and says n beside every rate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import AgentSpec, GameModel, Param, _split_agents, weight_set_names
from workbench.core.sim.partial import PartialFeed
from workbench.core.stats.cardstats import OVER, UNDER, cost_flags, empirical_values, flag_alpha
from workbench.core.stats.rates import MOVES, SETTLE_MARGIN, SETTLED, UNDECIDED, settle, wilson, z_value

__all__ = ["DEFAULT_TIERS", "STATUS_TEXT", "Tier", "best_fast_policy", "by_tier", "cost_flags_by_tier",
           "cost_flags_section", "declared_tiers", "default_tiers", "fast_tiers", "first_seat_by_tier",
           "first_seat_scores", "first_seat_table", "flips", "parse_tiers", "play_by_tier", "report_tiers", "side_of",
           "status_columns",
           "tier_verdicts"]

DEFAULT_TIERS = "greedy,greedy@tuned"  # the default skill levels: the hand-tuned bot and its self-tuned weights
FAVOURED, FAIR, DISFAVOURED = "favoured", "fair", "disfavoured"


SLOW_AGENTS = ("search", "ismcts")  # agents that search at every decision: a tier of them is a slow tier
# a slow tier's game costs about this many fast games unless the game declares tier_costs: measured (1 worker, the
# compiled engine, 2 shared cores) a search game cost ~18,000 greedy@tuned games in the duel, ~1,500 in Babel and
# ~1,700 in Babylon, so in practice a search tier plays the floor MIN_TIER_GAMES per cell
SEARCH_COST = 1000.0
MIN_TIER_GAMES = 20  # a slow tier plays at least this many games per cell


@dataclass(frozen=True)
class Tier:
    """A skill level: its label (shown in tables), the agent spec every seat plays, and its cost per game.

    ``cost`` is a game's time at this tier relative to a fast tier (1); a study asked for ``games``
    plays :meth:`games` of them here, so a search tier plays a small sample and its verdicts may
    honestly read *undecided: play more*.
    """

    label: str
    agent: str
    cost: float = 1.0

    def lineup(self, seats: int) -> str:
        """The agents argument for ``simulate``: this tier's agent in every seat."""
        return ",".join([self.agent] * seats)

    @property
    def slow(self) -> bool:
        """True for a search tier (its agent searches at every decision)."""
        return AgentSpec.parse(self.agent).name in SLOW_AGENTS

    def games(self, games: int) -> int:
        """The games this tier plays when a study asks for ``games`` per tier: ``games / cost``, at least a few."""
        if self.cost <= 1:
            return games
        return min(games, max(MIN_TIER_GAMES, math.ceil(games / self.cost)))


def tier_cost(model: GameModel, spec: str) -> float:
    """The declared cost of a game at tier ``spec`` (``GameModel.tier_costs``; a search tier: SEARCH_COST)."""
    if spec in model.tier_costs:
        return float(model.tier_costs[spec])
    return SEARCH_COST if AgentSpec.parse(spec).name in SLOW_AGENTS else 1.0


def _exists(model: GameModel, spec: str) -> bool:
    """True when ``spec``'s weight set (if it names one) is held by the game."""
    weight_set = AgentSpec.parse(spec).weight_set
    return weight_set is None or weight_set in weight_set_names(model)


def declared_tiers(model: GameModel) -> tuple[Tier, ...]:
    """The game's declared tiers (``GameModel.tiers``, weakest first) whose weight sets exist, as :class:`Tier`.

    A tier naming a weight set the game does not hold yet (``greedy@raised`` before it is tuned) is
    skipped, not an error; an unknown agent is.  A game that declares none gets ``greedy`` and,
    where the weight set exists, ``greedy@tuned``; a game without ``greedy`` its first two agents.
    """
    if model.tiers:
        specs = [s for s in model.tiers if _exists(model, s)]
    elif "greedy" in model.agents:
        specs = ["greedy", "greedy@tuned"] if _exists(model, "greedy@tuned") else ["greedy"]
    else:
        specs = list(model.agents[:2])
    if not specs:
        raise InputError(f"{model.name}: none of the declared tiers {list(model.tiers)} exists; declare a tier "
                         "without a weight set (e.g. greedy)")
    return parse_tiers(model, specs)


def fast_tiers(model: GameModel) -> tuple[Tier, ...]:
    """The declared tiers that are not search tiers, weakest first."""
    return tuple(t for t in declared_tiers(model) if not t.slow)


def best_fast_policy(model: GameModel) -> str:
    """The strongest fast tier's agent spec (e.g. ``"greedy@tuned"``): what a search rolls out or a study plays."""
    fast = fast_tiers(model)
    if not fast:
        raise InputError(f"{model.name}: every declared tier searches; declare a fast tier (e.g. greedy)")
    return fast[-1].agent


def report_tiers(model: GameModel, search: bool = True) -> tuple[Tier, ...]:
    """The tiers a report plays: the declared ones, or only the fast ones (``search=False``: a quick report)."""
    return declared_tiers(model) if search else (fast_tiers(model) or declared_tiers(model))


def default_tiers(model: GameModel, slow: bool = False) -> str:
    """The game's declared tiers as a ``tiers`` setting (``"greedy,greedy@tuned"``); ``slow``: search tiers too.

    Without ``slow`` only the fast tiers: what a long verification (rebalance) plays at full games.
    """
    tiers = declared_tiers(model) if slow else (fast_tiers(model) or declared_tiers(model))
    return ",".join(t.agent for t in tiers)


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
    return tuple(Tier(spec, spec, tier_cost(model, spec)) for spec in specs)


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


STATUS_SCHEMA = {"status": pl.String, "skill_change": pl.Float64, "skill_change_low": pl.Float64,
                 "skill_change_high": pl.Float64, "games needed": pl.String}


def _spread_of(row: dict[str, Any], spread: list[str]) -> float | tuple[float, float] | None:
    """A row's standard error (one column), its pair below and above the value (two), or None (a score's own)."""
    if not spread:
        return None
    values = [row[c] for c in spread]
    if any(v is None for v in values):
        return None
    return values[0] if len(values) == 1 else (values[0], values[1])


def _status(measured: list[tuple[str, float, int, Any]], margin: float,
            alpha: float = 0.05) -> dict[str, Any]:
    """:func:`~workbench.core.stats.rates.settle` at ``alpha`` between the two strongest tiers measured.

    Each measure is ``(tier, value, n, se)``.

    An item measured at fewer than two tiers is undecided: it needs games at the tiers it misses.
    """
    if len(measured) < 2:
        where = f"at {measured[0][0]} only" if measured else "at no tier"
        return {"status": UNDECIDED, "skill_change": None, "skill_change_low": None, "skill_change_high": None,
                "games needed": f"measured {where}: play it at every tier"}
    (ta, va, na, sa), (tb, vb, nb, sb) = measured[-2:]
    said = settle(va, int(na), vb, int(nb), margin, se_a=sa, se_b=sb, alpha=alpha)
    if said["needed_a"] is not None:
        needed = f"{said['needed_a']:,} games at {ta}, {said['needed_b']:,} at {tb}"
    else:
        fewer = ta if na < nb else tb  # the tier with the wider interval: its games decide it
        needed = (f"{abs(said['diff']) * 100:.1f} points apart so far, the margin or more: "
                  f"more games at {fewer} tell whether it moves") if said["status"] == UNDECIDED else None
    return {"status": said["status"], "skill_change": said["diff"], "skill_change_low": said["low"],
            "skill_change_high": said["high"], "games needed": needed}


def tier_verdicts(frame: pl.DataFrame, key: Sequence[str], verdict: str = "verdict",
                  shown: Sequence[str] = ("rate", "low", "high", "n"), value: str = "rate", n: str = "n",
                  se: str | tuple[str, str] | None = None, margin: float = SETTLE_MARGIN, named: str = "score",
                  alpha: float = 0.05) -> pl.DataFrame:
    """One row per ``key``: each tier's verdict and ``shown`` columns, and its ``status`` across tiers.

    ``frame`` is :func:`by_tier`'s output with a ``verdict`` column.  Columns are named
    ``<tier> · <what>`` in tier order, a rate as ``<tier> · score`` with ``_low``/``_high`` (so a
    displayed table reads it with its interval; ``named`` renames ``score``).  ``status`` compares
    ``value`` (with its ``n``, and its standard error ``se`` where the value is not a score: a column, or the
    pair of columns below and above the value where its interval is not symmetric) at the
    two strongest tiers measured by
    :func:`~workbench.core.stats.rates.settle`: *settled* (they agree within ``margin``, two one-sided
    tests at 5 %), *moves with skill* (they differ, two-sided test at 5 %) or *undecided: play more*
    (``games needed`` says how many at each tier).  ``skill_change`` is the strongest tier's value minus
    the next one's with its 95 % interval; ``tiers`` counts the tiers the item was measured at.  ``alpha``
    (5 %) is the tests' level: a family of items flagged at a corrected level (the cards' cost flags) is
    compared across tiers at that same level, so a change with skill is no more luck than a flag, and
    ``skill_change``'s interval is then at ``1 - alpha``.
    """
    spread = [se] if isinstance(se, str) else list(se or ())  # the se column, or its pair (below, above)
    missing = [c for c in (*key, "tier", verdict, value, n, *spread) if c not in frame.columns]
    if missing:
        raise InputError(f"tier_verdicts: the frame has no column {missing[0]!r}")
    tiers = list(dict.fromkeys(frame["tier"].to_list()))
    names = {"rate": named, "low": f"{named}_low", "high": f"{named}_high"}
    keep = [c for c in shown if c in frame.columns]
    out = frame.select(*key).unique(maintain_order=True)
    for tier in tiers:
        part = frame.filter(pl.col("tier") == tier).select(
            *key, pl.col(verdict).alias(f"{tier} · verdict"),
            *(pl.col(c).alias(f"{tier} · {names.get(c, c)}") for c in keep))
        out = out.join(part, on=list(key), how="left", coalesce=True)
    order = {t: i for i, t in enumerate(tiers)}
    measured: dict[tuple, list[tuple[str, float, int, float | None]]] = {}
    rows = frame.select(*key, "tier", value, n, *spread)
    for row in rows.sort(pl.col("tier").replace_strict(order, return_dtype=pl.Int64), maintain_order=True).iter_rows(
            named=True):
        if row[value] is not None and row[n]:
            measured.setdefault(tuple(row[k] for k in key), []).append(
                (row["tier"], row[value], row[n], _spread_of(row, spread)))
    said = [_status(measured.get(tuple(r), []), margin, alpha) for r in out.select(*key).iter_rows()]
    status = pl.DataFrame(said, schema=STATUS_SCHEMA)
    counted = pl.concat_list([f"{t} · verdict" for t in tiers]).list.drop_nulls().list.len().alias("tiers")
    return pl.concat([out, status], how="horizontal").with_columns(counted)


def status_columns(table: pl.DataFrame, tiers: Sequence[str], value: str, n: str,
                   margin: float = SETTLE_MARGIN) -> pl.DataFrame:
    """``table`` with :func:`tier_verdicts`'s status columns, over the tiers in order.

    ``table`` has one row per item and ``<tier> · <value>`` and ``<tier> · <n>`` columns; the
    columns added are ``status``, ``skill_change`` (with ``_low``/``_high``) and ``games needed``.
    """
    said = []
    for row in table.iter_rows(named=True):
        measured = [(t, row[f"{t} · {value}"], row[f"{t} · {n}"], None) for t in tiers
                    if row.get(f"{t} · {value}") is not None and row.get(f"{t} · {n}")]
        said.append(_status(measured, margin))
    return pl.concat([table, pl.DataFrame(said, schema=STATUS_SCHEMA)], how="horizontal")


def _shown(x: float | None, points: bool) -> str:
    """A score as ``46.9 %``; a gain in win-rate points (``points``) as ``+2.0 points``."""
    if x is None:
        return "not measured"
    shown = round(x * 100, 1) + 0.0  # + 0.0: a value that rounds to zero reads +0.0, never -0.0
    return f"{shown:+.1f} points" if points else f"{shown:.1f} %"


def _step(row: dict[str, Any], tier: str, value: str, points: bool) -> str:
    """``fair (46.9 %, n=2,000) at greedy``: one tier's verdict and value in a sentence."""
    n = row.get(f"{tier} · n")
    return (f"{row[f'{tier} · verdict'] or 'not measured'} ({_shown(row.get(f'{tier} · {value}'), points)}"
            f"{'' if n is None else f', n={n:,}'}) at {tier}")


def flips(table: pl.DataFrame, key: Sequence[str], label: Callable[[dict[str, Any]], str] | None = None,
          value: str = "score", points: bool | None = None) -> list[str]:
    """Plain sentences for the items whose verdict is not settled across tiers (none when every one is).

    ``label(row)`` names an item for a reader (default: its key values joined by " / "); ``value`` is
    the per-tier column read (``<tier> · <value>``): a percentage, or win-rate points when ``points``
    (default: for any value but ``score``).
    """
    points = value != "score" if points is None else points
    tiers = [c.rsplit(" · ", 1)[0] for c in table.columns if c.endswith(" · verdict")]
    out = []
    for row in table.filter(pl.col("status") != SETTLED).iter_rows(named=True):
        name = label(row) if label else " / ".join(str(row[k]) for k in key)
        steps = ", ".join(_step(row, t, value, points) for t in tiers)
        more = f"; play more: {row['games needed']}" if row["status"] == UNDECIDED and row["games needed"] else ""
        out.append(f"{name}: {row['status']} — {steps}{more}.")
    return out


STATUS_TEXT = ("*settled* when its values at the two strongest tiers agree within ±2 points (two one-sided tests, "
               "each at 5 %), *moves with skill* when they differ (two-sided test at 5 %), else *undecided: play "
               "more* with the games needed at each tier")


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

    Returns :func:`tier_verdicts` over the cells, keyed by ``cell`` (``label(params)``, default
    ``k=v`` pairs).  Every tier plays ``tier.games(games)`` games per cell from master seed ``seed``: common
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
    """``{tier label: {cell label: frame}}``: ``tier.games(games)`` per cell and tier, the same seeds at every tier.

    The frames of one run serve several verdicts (the first seat, the cards' cost flags) without
    playing the games twice.  ``label(params)`` names a cell (default ``k=v`` pairs); ``keep`` the
    columns kept of each frame (default all; ``winner`` and ``first_seat`` are always kept).
    """
    name = label or (lambda p: ", ".join(f"{k}={v}" for k, v in p.items()) or "defaults")
    columns = None if keep is None else list(dict.fromkeys(("winner", "first_seat", *keep)))

    def play(cell: dict[str, Any], tier: Tier) -> pl.DataFrame:
        frame = play_cell(model, cell, tier, tier.games(games), seed=seed, workers=workers, on_progress=on_progress,
                          should_stop=should_stop)
        return frame if columns is None else frame.select(columns)

    return {tier.label: {name(cell): play(cell, tier) for cell in cells} for tier in tiers}


def first_seat_table(tiers: Sequence[Tier], played: dict[str, dict[str, pl.DataFrame]]) -> pl.DataFrame:
    """:func:`tier_verdicts` of the first seat's score per cell, from :func:`play_by_tier`'s frames."""
    def run(tier: Tier) -> pl.DataFrame:
        return pl.concat([first_seat_scores(frame).select(pl.lit(cell).alias("cell"), pl.all())
                          for cell, frame in played[tier.label].items()], how="vertical")

    return tier_verdicts(by_tier(tiers, run), ["cell"], shown=("rate", "low", "high", "n", "draws"))


def play_cell(model: GameModel, cell: dict[str, Any], tier: Tier, games: int, *, seed: int = 0, workers: int = 1,
              on_progress: Callable[[int], None] | None = None,
              should_stop: Callable[[], bool] | None = None) -> pl.DataFrame:
    """``games`` games of ``tier`` in every seat for the parameters ``cell`` (list values: each value, pooled)."""
    from workbench.core.sim.runner import simulate  # imported here: the runner sits above this module's layer
    from workbench.core.sim.sweep import run_grid

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
SKILL_MEASURE = "first seat score"  # what the skill study measures, in its item labels and per-tier columns


def _skill_label(model: GameModel, by: str | None) -> Callable[[dict[str, Any]], str]:
    """Names a cell by what is measured on what: ``first seat score, Siege of Ur vs Citadel of the Rivers``.

    The content the cell is played with (the parameters that name content, ``GameModel.choice_names``:
    a battlefield, each seat's deck — seat decks joined by "vs") and, when ``by`` is another parameter,
    its value (``first seat score, board Small``); one cell of defaults reads ``as set``.
    """
    content = list(model.choice_names)

    def label(params: dict[str, Any]) -> str:
        named = [model.choice_label(c, params[c]) for c in content if params.get(c) is not None]
        seated = len(named) > 1 and all(re.search(r"_p[0-9]+$", c) for c in content)
        parts = [" vs ".join(named) if seated else ", ".join(named)] if named else []
        if by is not None and by not in content:
            parts.insert(0, f"{by.replace('_', ' ')} {model.choice_label(by, params[by])}")
        return f"{SKILL_MEASURE}, {'; '.join(parts) or 'as set'}"

    return label


def _skill_named(table: pl.DataFrame) -> pl.DataFrame:
    """The per-tier ``score`` columns named by their measure: ``greedy · first seat score`` (with _low/_high)."""
    return table.rename({c: c.replace(" · score", f" · {SKILL_MEASURE}") for c in table.columns
                         if " · score" in c})


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
    tiers = parse_tiers(model, settings["tiers"] or default_tiers(model, slow=True))
    cells = _skill_cells(model, settings["by"], params)
    games = settings["games"]
    per_cell = sum(t.games(games) for t in tiers)  # a search tier plays fewer (Tier.games)
    total, done = per_cell * len(cells), [0]

    def tick(n: int) -> None:
        done[0] += n
        if on_progress is not None:
            on_progress(done[0], total)

    label = _skill_label(model, settings["by"])
    played: dict[str, dict[str, pl.DataFrame]] = {t.label: {} for t in tiers}
    finished: list[str] = []  # cells played at every tier: a partial shows whole rows only

    def tables(cut: str | None = None) -> dict:  # ``cut``: a cell stopped part-way, with the games it finished
        shown = [*finished, *([cut] if cut is not None else [])]
        used = [t for t in tiers if any(c in played[t.label] for c in shown)]
        table = _skill_named(first_seat_table(used, {t.label: {c: played[t.label][c] for c in shown
                                                                if c in played[t.label]} for t in used}))
        said = (flips(table, ["cell"], value=SKILL_MEASURE, points=False)
                or ["Every verdict is settled across the tiers."])
        return {"verdicts": table, "flips": pl.DataFrame({"finding": said})}

    feed = PartialFeed(on_partial, total)
    for c, cell in enumerate(cells):  # cell by cell, every tier in turn: the seeds do not depend on the order
        for tier in tiers:
            try:
                played[tier.label][label(cell)] = play_cell(model, cell, tier, tier.games(games), seed=seed,
                                                            workers=workers, on_progress=tick, should_stop=should_stop)
            except RunInterrupted as exc:  # stopped: every finished game is shown, the cell cut short too
                if exc.partial is not None and exc.partial.height:
                    played[tier.label][label(cell)] = exc.partial
                cut = label(cell) if any(label(cell) in played[t.label] for t in tiers) else None
                raise RunInterrupted(tables(cut) if finished or cut else None, done[0], total) from None
        finished.append(label(cell))
        kept = len(finished) * per_cell
        if c + 1 < len(cells) and should_stop is not None and should_stop():
            raise RunInterrupted(tables(), done[0], total)
        feed.offer(tables, kept)
    return tables()


def _skill_charts(tables: dict) -> dict:
    from workbench.core.present import charts

    table = tables["verdicts"]
    tiers = [c.rsplit(" · ", 1)[0] for c in table.columns if c.endswith(" · verdict")]
    named = SKILL_MEASURE if any(c.endswith(f" · {SKILL_MEASURE}") for c in table.columns) else "score"
    long = pl.concat([table.select("cell", pl.lit(t).alias("tier"), pl.col(f"{t} · {named}").alias("rate"),
                                   pl.col(f"{t} · {named}_low").alias("low"),
                                   pl.col(f"{t} · {named}_high").alias("high"))
                      for t in tiers])
    return {"verdicts": charts.rate_chart(long, "cell", color="tier", reference=0.5,
                                          title="First seat score per tier (a draw counts ½; 95 % interval)",
                                          y_title=SKILL_MEASURE)}


def skill_study(model: GameModel) -> dict[str, Any] | None:
    """The keyword arguments of core's ``skill`` study for ``model`` (None where no seat moves first)."""
    if model.simultaneous:
        return None
    by = tuple(p.name for p in model.params if p.choices and p.name != "first")
    return {"name": "skill", "title": "Skill tiers: is the first seat's verdict settled across skill?",
            "run": _skill, "charts": _skill_charts,
            "settings": (Param("tiers", None, str, "skill tiers, weakest first, one agent spec each (every seat "
                               f"plays it); none: the declared {default_tiers(model, slow=True)}", optional=True),
                         Param("by", None, str, "a parameter whose every choice is a cell (none: one cell)",
                               choices=by or None, optional=True),
                         Param("games", 2000, int, "games per cell and fast tier (the same seeds at every tier; a "
                               f"search tier plays 1/{SEARCH_COST:g} of them, at least {MIN_TIER_GAMES})", 10,
                               10**8)),
            "size": lambda settings, params: sum(t.games(settings["games"]) for t in parse_tiers(
                model, settings["tiers"] or default_tiers(model, slow=True))) * len(
                _skill_cells(model, settings["by"], params)),
            "help": "Plays every tier on the same seeds and says, per cell, whether the first seat is favoured, "
                    "fair or disfavoured at each tier (a draw counts half), and whether its score is "
                    f"{STATUS_TEXT}."}


def status_summary(table: pl.DataFrame, said: Sequence[str], what: str = "verdict") -> str:
    """``**3 settled, 1 moves with skill, 2 undecided: play more.**`` and the unsettled ones as a list."""
    counts = [f"{(table['status'] == s).sum()} {s}" for s in (SETTLED, MOVES, UNDECIDED)]
    head = f"**{what.capitalize()}s across skill: {', '.join(counts)}.**"
    return head if not said else head + "\n\n" + "\n".join(f"- {line}" for line in said)


def report_section(rep: Any, name: str, table: pl.DataFrame, title: str, intro: str, games: int,
                   scored: str = "the first seat's score") -> None:
    """A report section of a :func:`tier_verdicts` table: what was played, the unsettled in words, table, chart.

    ``rep`` is a ``core.present.report.Report``; the table is written as ``name`` (Parquet/CSV too), the chart
    as ``<name>_chart``.
    """
    tiers = [c.rsplit(" · ", 1)[0] for c in table.columns if c.endswith(" · verdict")]
    said = flips(table, ["cell"])
    rep.section(title, f"{intro} Tiers, weakest first: {', '.join(tiers)} (every seat plays the tier's agent), "
                       f"{games:,} games per cell at each fast tier on the same seeds (a search tier plays fewer: "
                       f"its n is in the table); a verdict reads the 95 % interval of {scored} (a draw counts half) "
                       f"against 50 %. Each verdict is {STATUS_TEXT}.\n\n" + status_summary(table, said))
    rep.table(name, table)
    if "score" in "".join(table.columns):
        rep.chart(f"{name}_chart", _skill_charts({"verdicts": table})["verdicts"])


# -- the cards' cost flags at every tier ----------------------------------------------------------------
def gain_spread(z: float) -> tuple[pl.Expr, pl.Expr]:
    """A card gain's standard error below and above it (``se_below``, ``se_above``), read off ``iwd``'s interval.

    Each side is read off its own side of the interval at ``z``: a card drawn in a few games has a lopsided
    one (-44.3 [-77.0, +16.4] points), and the test across tiers must agree with the interval shown.  The
    report's card flags and the ``verdicts`` study's both read it here.
    """
    return (((pl.col("iwd") - pl.col("iwd_low")) / z).alias("se_below"),
            ((pl.col("iwd_high") - pl.col("iwd")) / z).alias("se_above"))


def cost_flags_by_tier(tiers: Sequence[Tier], played: dict[str, dict[str, pl.DataFrame]],
                       rates: Callable[[pl.DataFrame, float], pl.DataFrame], cards: int, key: str = "card",
                       cost: str = "cost") -> pl.DataFrame:
    """Each card's cost flag (``cardstats.cost_flags``) at every tier, and its status across skill.

    ``played`` is :func:`play_by_tier`'s output: each tier's cells are pooled.  ``rates(frame, alpha)``
    is the game's per-card rates (``cardstats.card_rates`` with its card table) with a ``key`` column
    naming the card; ``cards`` how many cards are flagged at once, so every interval is at the
    Bonferroni level ``0.05 / cards`` and a flag is not luck among many cards.  One row per card:
    ``<tier> · verdict``, ``<tier> · beyond_cost`` (improvement when drawn minus what cards of its cost
    do, win-rate points) with its interval, ``<tier> · wr_drawn_n`` (seat-games it was drawn in), and
    ``status`` (:func:`tier_verdicts` on the improvement beyond cost, its standard errors below and above
    it read off the two sides of the Bonferroni interval, its tests at the same Bonferroni level: at 5 %
    each, about one card in twenty would read "moves with skill" by luck, while its own flags' intervals
    at each tier overlap).
    """
    alpha = flag_alpha(cards)
    z = z_value(1 - alpha)

    def run(tier: Tier) -> pl.DataFrame:
        pooled = pl.concat(list(played[tier.label].values()), how="vertical_relaxed")
        flags = cost_flags(empirical_values(rates(pooled, alpha), cost), cost)
        beyond = [(pl.col(c) - pl.col("expected")).alias(f"beyond_cost{end}") for c, end in
                  (("iwd", ""), ("iwd_low", "_low"), ("iwd_high", "_high"))]
        return flags.select(key, cost, "verdict", *beyond, "wr_drawn_n", *gain_spread(z))

    return tier_verdicts(by_tier(tiers, run), [key, cost], value="beyond_cost", n="wr_drawn_n",
                         se=("se_below", "se_above"), alpha=alpha,
                         shown=("beyond_cost", "beyond_cost_low", "beyond_cost_high", "wr_drawn_n"))


def cost_flags_section(rep: Any, name: str, table: pl.DataFrame, title: str, intro: str, games: int,
                       key: str = "card") -> None:
    """A report section of :func:`cost_flags_by_tier`: the flips in words, then the cards flagged at some tier."""
    tiers = [c.rsplit(" · ", 1)[0] for c in table.columns if c.endswith(" · verdict")]
    verdicts = [f"{t} · verdict" for t in tiers]
    flagged = table.filter(pl.any_horizontal(pl.col(v).is_in([UNDER, OVER]) for v in verdicts))
    said = flips(flagged, [key], value="beyond_cost")
    summary = status_summary(flagged, said, "flag")
    rep.section(title, f"{intro} Tiers: {', '.join(tiers)} (every seat plays the tier's agent), {games:,} games per "
                       "tier on the same seeds, the seats pooled. A card is *under-costed* when its improvement when "
                       "drawn (win-rate points, drawn against not drawn) lies wholly above what cards of its cost do "
                       "(the least-squares line through every card): its *improvement beyond its cost* excludes 0; "
                       "*over-costed* when wholly below; the intervals "
                       f"are Bonferroni-corrected over the {table.height} cards, so a flag is not luck among many. "
                       f"{flagged.height} of {table.height} cards are flagged at some tier; the others are in line "
                       "at every tier and not listed. Each flag's improvement beyond its cost is "
                       f"{STATUS_TEXT}; for the cards each test is at the flags' corrected level "
                       f"({100 * flag_alpha(table.height):.2g} % over {table.height} cards), not 5 %.\n\n" + summary)
    rep.table(name, flagged.sort(["status", key]))
