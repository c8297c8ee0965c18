"""What a game measures and what a designer asks: metrics, targets, bands, and the rebalance's constants."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.model import GameModel, card_set_hash, get_game
from workbench.core.model.refs import resolve_ref

SEARCH_STREAM = 0x5EA2C4  # the search's master seed: this sub-stream of the rebalance seed


HOLDOUT_STREAM = 0x401D0  # the held-out master seed (verification): another sub-stream


SAMPLER_STREAM = 1 << 24  # trial t's sampler seed: sub-stream SAMPLER_STREAM + t


STUDY = "rebalance"


DB = "search.jsonl"  # the search's journal (Optuna's journal format: one JSON line per storage operation)


LEGACY_DB = "search.db"  # an earlier version's SQLite store: refused, never written beside


SETTINGS = "settings.json"


INFEASIBLE = 1e6  # the distance told for a candidate the game's loader refuses (two edits that clash)


# -- targets: what a game measures --------------------------------------------------------------------------
@dataclass(frozen=True)
class Metric:
    """A named balance rate: ``counts(frame)`` → one row per item with ``item``, ``n``, ``wins``, ``draws``.

    The score of an item is ``(wins + draws / 2) / n``.  Counts must be sums over the frame's rows
    (so counts of disjoint games add up: the search plays more games for a candidate and adds them).
    ``label(item)`` names an item for a reader (default: the item).
    """

    name: str
    title: str
    counts: Callable[[pl.DataFrame], pl.DataFrame]
    help: str = ""
    label: Callable[[str], str] | None = None

    def item_label(self, item: str) -> str:
        """How a reader sees the item."""
        return self.label(item) if self.label is not None else item


def score_counts(frame: pl.DataFrame, item: pl.Expr, won: pl.Expr, draw: pl.Expr | None = None) -> pl.DataFrame:
    """``item, n, wins, draws`` per item of ``frame`` (the building block of a :class:`Metric`)."""
    draw = pl.col("winner") == "draw" if draw is None else draw
    return (frame.group_by(item.cast(pl.String).alias("item"), maintain_order=True)
            .agg(pl.len().cast(pl.Int64).alias("n"), won.sum().cast(pl.Int64).alias("wins"),
                 draw.sum().cast(pl.Int64).alias("draws")))


def first_seat_metric(by: str | None = None, name: str = "first_seat", title: str = "First seat's score",
                      label: Callable[[str], str] | None = None) -> Metric:
    """The first seat's balance score (every game where a seat moves first), pooled or per value of ``by``."""

    def counts(frame: pl.DataFrame) -> pl.DataFrame:
        moved = frame.filter(pl.col("first_seat").is_not_null())
        item = pl.col(by) if by else pl.lit("all games")
        return score_counts(moved, item, pl.col("winner") == pl.col("first_seat"))

    what = f" per {by.replace('_', ' ')}" if by else ""
    return Metric(name, title, counts, f"the seat that moves first: its wins and half its draws{what}", label)


@dataclass(frozen=True)
class Targets:
    """A game's rebalancing declaration (``targets = "module:NAME"`` on its model).

    Attributes:
        metrics: the metrics a target may name (a game's own; core adds ``first_seat`` when missing).
        cells: the parameter cells every candidate plays (common seeds in each; e.g. every deck pairing).
        params: fixed parameters of every cell (the base a parameter edit starts from).
        target: the default target, e.g. ``"first_seat=49..51"``.
        edit: the default edit spec (``""``: every whole-number editable card column, ±1).
        cards: the default card patterns (``"*"``: every card).
        aliases: spec words that stand for several columns, e.g. ``{"cost": ("power_cost", "tp_cost")}``.
        games: games per cell of the search's first stage.
        max_edits: most edits a candidate holds (the sparse search's slots).
        stages: racing stages (each ``factor`` times the games of the one before).
        margin: the held-out check's games give every targeted item ± this at 50 % (0.01: ±1 point).
        budget: the games a full search may play (the command's default for this game).
        search_tiers: the search plays every verification tier, each tier's items kept apart (``"3/5 ·
            greedy@tuned"``), so the proposal it picks holds at every tier and not at the first alone; it plays
            that many times the games.  For a game whose tiers disagree by a good part of the band (the duel,
            Babel).  A metric's items (raw keys) must then not contain ``" · "``.
        uses_card: ``uses_card(cell_params, card_key)``: whether a cell's games can ever use the card (None: every
            cell may use every card).  A card edit is then played only in the cells that use the card; every other
            cell is the unedited game's, read from the cells' memo at no cost (Babylon: a card outside both decks
            of a pairing).  Declare it only where an unused card's values change nothing in a cell's games, and
            show that with a test of frames (``tests/games/babylon/test_babylon_targets.py``).
        verify_share: the fraction of a run's budget kept for the held-out check (the search plays the rest).
        retune: games each re-tune of a weighted tier's set for a verified proposal plays (0: the sets as shipped).
        slow_games: held-out games a cell at a search tier (an agent that searches at every decision: a Babylon
            game there takes ~6 s on one core, ~1,700 greedy games): a floor, so its status may read undecided.
    """

    metrics: tuple[Metric, ...] = ()
    cells: tuple[dict[str, Any], ...] = ({},)
    params: dict[str, Any] = field(default_factory=dict)
    target: str = "first_seat=49..51"
    edit: str = ""
    cards: str = "*"
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    games: int = 64
    max_edits: int = 6
    stages: int = 3
    margin: float = 0.01
    budget: int = 100_000
    search_tiers: bool = False
    uses_card: Callable[[dict[str, Any], str], bool] | None = None
    verify_share: float = 0.25
    retune: int = 0
    slow_games: int = 4

    def all_metrics(self) -> dict[str, Metric]:
        """The metrics by name, core's ``first_seat`` added when the game declares none of that name."""
        found = {m.name: m for m in self.metrics}
        found.setdefault("first_seat", first_seat_metric())
        return found


def targets_of(game: str | GameModel) -> Targets:
    """The game's declared :class:`Targets`, or core's generic one (the first seat, one cell)."""
    model = get_game(game)
    declared = resolve_ref(getattr(model, "targets", None))
    if declared is None:
        return Targets()
    if not isinstance(declared, Targets):
        raise InputError(f"{model.name}.targets must be a Targets (workbench.core.design.rebalance), "
                         f"got {type(declared).__name__}")
    return declared


def _title_of(game: str) -> str:
    """The game's title for a person (its name when it is not registered in this process)."""
    try:
        return get_game(game).title
    except InputError:
        return game


@dataclass(frozen=True)
class Band:
    """A target band of one metric: every item's score must lie in ``[low, high]`` (fractions)."""

    metric: str
    low: float
    high: float

    def text(self, title: str | None = None) -> str:
        """``first_seat 49–51 %`` (with ``title``: the metric as a person reads it, ``First seat's score 49–51 %``)."""
        return f"{title or self.metric} {_pct(self.low)}–{_pct(self.high)} %"


def _pct(x: float) -> str:
    return f"{100 * x:.2f}".rstrip("0").rstrip(".")


_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)"


_BAND = re.compile(rf"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*({_NUMBER})\s*\.\.\s*({_NUMBER})\s*%?\s*$")


def parse_target(text: str, targets: Targets) -> tuple[Band, ...]:
    """Bands from ``"deck_vs_field=48..52, first_seat=48.5..51.5"`` (percent); one :class:`InputError` per mistake."""
    known = targets.all_metrics()
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"give a target, e.g. 'first_seat=49..51'; metrics: {', '.join(known)}")
    bands: list[Band] = []
    for part in (p for p in text.split(",")):
        found = _BAND.match(part)
        if not found:
            raise InputError(f"target {part.strip()!r} is not METRIC=LOW..HIGH in percent (e.g. first_seat=49..51); "
                             f"metrics: {', '.join(known)}")
        name, low, high = found[1], float(found[2]), float(found[3])
        if name not in known:
            raise InputError(f"target {part.strip()!r}: unknown metric {name!r}; metrics: {', '.join(known)}")
        if not (0 <= low <= 100 and 0 <= high <= 100):
            raise InputError(f"target {part.strip()!r}: a band is in percent, within 0..100")
        if low > high:
            raise InputError(f"target {part.strip()!r}: the band is reversed; write the low end first "
                             f"({name}={found[3]}..{found[2]})")
        if low == high:
            raise InputError(f"target {part.strip()!r}: the band is empty; give a width, e.g. {name}={low - 1:g}.."
                             f"{high + 1:g}")
        if any(b.metric == name for b in bands):
            raise InputError(f"target {text.strip()!r}: metric {name!r} is given twice; give each metric one band")
        bands.append(Band(name, low / 100, high / 100))
    return tuple(bands)


def one_card_set(model: GameModel, targets: Targets) -> bool:
    """True when every target cell plays one card set (what a re-tune of a weight set needs: ``core/skill/tune.py``)."""
    return len({card_set_hash(model, dict(cell)) for cell in targets.cells or ({},)}) == 1


MEASURABLE_GAMES = 16  # games of the unchanged game that must count towards every targeted metric


def check_measurable(model: GameModel, targets: Targets, bands: tuple[Band, ...], seed: int = 0) -> None:
    """Every targeted metric measures something in this game: a few games of the unchanged game, n > 0 each.

    A metric no game of this game can count (the first seat's score where no seat moves first, or a
    parameter edit that takes the game where the metric is never decided) would end a rebalance with
    every score NaN (n = 0); it is refused before the search, with the metrics that do count here.
    """
    from workbench.core.sim.runner import simulate

    metrics = targets.all_metrics()
    frame = simulate(model, MEASURABLE_GAMES, params={**targets.params, **targets.cells[0]}, seed=seed,
                     progress=False)
    counted = {name: int(metric.counts(frame)["n"].sum()) for name, metric in metrics.items()}
    empty = [b.metric for b in bands if not counted.get(b.metric)]
    if empty:
        usable = [name for name, n in counted.items() if n]
        raise InputError(f"target {', '.join(dict.fromkeys(empty))}: no game of {model.name} counts towards it "
                         f"(n = 0 in {MEASURABLE_GAMES} games of the unchanged game), so no edit can move it; "
                         f"metrics that count here: "
                         f"{', '.join(usable) or 'none (this game declares no balance metric it can measure)'}")
