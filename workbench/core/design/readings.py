"""``readings``: a game's balance verdicts under every reading of its open texts, paired on the same seeds.

Where a rules text is open, the game declares the reading it plays as a parameter with choices and
lists it in ``GameModel.readings`` (``docs/rules/<game>.md`` says what is open and why the default
was chosen).  This study answers the designer's question "does the verdict depend on how we read the
text?": it plays the game's balance targets (``targets.py``, :mod:`workbench.core.design.rebalance`) once
with every reading at its default and once for every other value of each reading — one reading
changed at a time, every arm on the **same game seeds** in every cell (common random numbers), with
one lineup (``GameModel.readings_agents``: one agent for every seat, or one per seat) — and reports,
per metric item:

* each arm's balance score (a draw counts half; draws shown beside it) with its 95 % Wilson interval;
* the paired difference from the default reading with its interval and p-value, both Bonferroni-
  corrected over the items of one reading value so that "significant" and "the interval excludes 0"
  always agree (a jackknife over ``batches`` blocks of consecutive games, with Student's t: every
  block holds the same games in both arms, so the interval is the paired one);
* the verdict of each arm against the target band (``above``/``inside``/``below`` the band when its
  95 % interval lies wholly there, else ``undecided``), and whether the verdict **changes**: the two
  verdicts differ and the paired change is significant (a verdict that moves from "undecided" by a
  change smaller than the noise is not a change).

The metrics are the game's default target (:attr:`Targets.target`), the first seat's score, and —
when the seats play different agents — seat 1's score (band 48..52 % for both).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import polars as pl

from workbench.core.design.rebalance import Band, Metric, metric_counts, parse_target, score_counts, targets_of
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.lazy import lazy
from workbench.core.model import GameModel, Param, get_game, model_ref
from workbench.core.sim.partial import PartialFeed
from workbench.core.sim.runner import drain, execute, plan_chunks, watched_chunk
from workbench.core.stats.rates import wilson

__all__ = ["ABOVE", "BELOW", "INSIDE", "UNDECIDED", "reading_values", "readings_study", "readings_table",
           "report_section", "verdict_changes"]

ABOVE, INSIDE, BELOW, UNDECIDED = "above the band", "inside the band", "below the band", "undecided"
FIRST_SEAT_BAND = 0.48, 0.52  # the band of the first seat's and seat 1's scores when the target names none
stats = lazy("scipy.stats")
BATCHES = 20  # blocks of consecutive games: the jackknife's units


def reading_values(model: GameModel, name: str) -> tuple[Any, ...]:
    """The values a reading may take, its default first (a choice parameter's choices, or a flag's two values)."""
    if name not in {p.name for p in model.params}:
        raise InputError(f"{model.name}: reading {name!r} is not a parameter; its parameters: "
                         f"{', '.join(p.name for p in model.params)}")
    param = model.param(name)
    if param.choices:
        values: tuple[Any, ...] = tuple(param.choices)
    elif param.kind is bool:
        values = (False, True)
    else:
        raise InputError(f"{model.name}: reading {name!r} must be a parameter with choices or a flag "
                         f"(it is a {param.kind.__name__} without choices)")
    return (param.default, *[v for v in values if v != param.default])


def _arms(model: GameModel, readings: Sequence[str]) -> list[tuple[str | None, Any]]:
    """``(None, None)`` — every reading at its default — then ``(reading, value)`` for each other value."""
    arms: list[tuple[str | None, Any]] = [(None, None)]
    for name in readings:
        arms += [(name, value) for value in reading_values(model, name)[1:]]
    return arms


def _seat_metric(lineup: Sequence[str]) -> Metric:
    def counts(frame: pl.DataFrame) -> pl.DataFrame:
        return score_counts(frame, pl.lit("p1"), pl.col("winner") == "p1")

    return Metric("seat_p1", "Seat 1's score", counts, "seat 1's wins and half its draws",
                  lambda _item: f"seat 1 ({lineup[0]}) against {', '.join(lineup[1:])}")


def _bands(model: GameModel, lineup: Sequence[str]) -> tuple[tuple[Band, ...], dict[str, Metric]]:
    targets = targets_of(model)
    metrics = dict(targets.all_metrics())
    bands = parse_target(targets.target, targets)
    low, high = FIRST_SEAT_BAND
    if "first_seat" not in {b.metric for b in bands} and not model.simultaneous:
        bands = (*bands, Band("first_seat", low, high))
    if len(set(lineup)) > 1:
        metrics["seat_p1"] = _seat_metric(lineup)
        bands = (*bands, Band("seat_p1", low, high))
    return bands, metrics


def _lineup(model: GameModel, agents: str, base: dict[str, Any]) -> tuple[str, ...]:
    """The agent of every seat (``agents``: one per seat; the last named plays every seat left), each checked."""
    params = model.resolve_params({**targets_of(model).params, **base})
    seats = model.players(model.make_config(params))
    names = tuple(a.strip() for a in agents.split(",")) if agents else ()
    if not names or len(names) > seats:
        raise InputError(f"{model.name}: agents {agents!r} must name one agent, or one per seat ({seats} seats)")
    names = names + (names[-1],) * (seats - len(names))  # the last one plays every seat left
    model.resolve_agents(",".join(names), params)
    return names


Counts = dict[tuple[str, str], np.ndarray]  # (metric, item) → [batches, 3]: n, wins, draws per block


def _play(model: GameModel, arms: Sequence[tuple[str | None, Any]], games: int, lineup: Sequence[str], seed: int,
          batches: int, base: dict[str, Any], metrics: dict[str, Metric], names: Sequence[str], workers: int,
          tick: Callable[[int], None], should_stop: Callable[[], bool] | None,
          on_arm: Callable[[list[Counts], set[int]], None] | None = None,
          per_arm: list[int] | None = None) -> list[Counts]:
    """Every arm's counts per block, from one run of every arm's chunks (one pool for all: no start-up per arm).

    ``on_arm(counts, complete)`` is called each time an arm's last chunk is counted (``complete``: the
    indices of the arms whose counts are final).
    """
    targets = targets_of(model)
    size = math.ceil(games / batches)  # games of one jackknife block (blocks are consecutive game indices)
    jobs, owner = [], []
    for a, (name, value) in enumerate(arms):
        for cell in targets.cells:
            params = {**targets.params, **base, **cell}
            if name is not None:
                params[name] = value
            resolved = model.resolve_params(params)
            specs = model.resolve_agents(",".join(lineup), resolved)
            engine = model.resolve_engine(None, specs, resolved)
            # chunks of whole blocks, as large as the engine likes: a compiled game pays per chunk, not per game;
            # never above that (blocks are counted by game index, so a big block spans chunks), or Stop would
            # wait for a chunk of a whole block of a big run
            hint = watched_chunk(model.chunk_hint(engine))  # shorter when someone may press Stop
            chunk = size * max(1, min(batches, hint // size)) if size <= hint else hint
            for lo, hi in plan_chunks(games, chunk):
                jobs.append((model_ref(model), resolved, tuple(map(str, specs)), seed, lo, hi, engine))
                owner.append(a)
    counts: list[Counts] = [{} for _ in arms]
    remaining = [owner.count(a) for a in range(len(arms))]
    frames: list[list[pl.DataFrame]] = [[] for _ in arms]
    complete: set[int] = set()
    for i, frame in drain(execute(model, jobs, workers), len(jobs), should_stop):
        arm = owner[i]
        frames[arm].append(frame)
        if per_arm is not None:
            per_arm[arm] += frame.height
        tick(frame.height)
        remaining[arm] -= 1
        if remaining[arm] == 0:
            # an arm is counted once, when its last chunk is in: block by block over all its cells' games (a
            # metric is a sum over games, so this is the sum of the chunks' counts; counting each chunk's
            # blocks apart cost a metric call per chunk and block, most of a quick run's time)
            counts[arm] = _block_counts(pl.concat(frames[arm], how="vertical_relaxed"), size, batches, metrics,
                                        names)
            frames[arm] = []
            complete.add(arm)
            if on_arm is not None:
                on_arm(counts, complete)
    return counts


def _block_counts(frame: pl.DataFrame, size: int, batches: int, metrics: dict[str, Metric],
                  names: Sequence[str]) -> Counts:
    """``frame``'s counts per metric item and block of ``size`` consecutive game indices."""
    counts: Counts = {}
    blocks = frame.with_columns((pl.col("game_index") // size).alias("_block"))
    for part in blocks.partition_by("_block", maintain_order=True):
        block = int(part["_block"][0])
        for name, items in metric_counts(part, metrics, names).items():
            for item, found in items.items():
                counts.setdefault((name, item), np.zeros((batches, 3), dtype=np.int64))[block] += found
    return counts


def _score(block: np.ndarray) -> float:
    n = block[..., 0].sum()
    return float((block[..., 1].sum() + block[..., 2].sum() / 2) / n) if n else float("nan")


def _paired(base: np.ndarray, other: np.ndarray, alpha: float) -> tuple[float, float, float, float]:
    """Difference of scores (other − base), its jackknife interval over blocks and a two-sided p-value."""
    diff = _score(other) - _score(base)
    used = [k for k in range(base.shape[0]) if base[k, 0] or other[k, 0]]
    if len(used) < 2:
        return diff, float("nan"), float("nan"), float("nan")
    leave = np.array([_score(np.delete(other, k, axis=0)) - _score(np.delete(base, k, axis=0)) for k in used])
    g = len(used)
    se = math.sqrt((g - 1) / g * float(((leave - leave.mean()) ** 2).sum()))
    t = float(stats.t.ppf(1 - alpha / 2, g - 1))
    if se == 0:
        return diff, diff, diff, 1.0 if diff == 0 else 0.0
    p = float(2 * stats.t.sf(abs(diff) / se, g - 1))
    return diff, diff - t * se, diff + t * se, p


def _title(name: str) -> str:
    text = name.replace("_", " ")
    return text[:1].upper() + text[1:]


def _verdict(low: float, high: float, band: Band) -> str:
    if low > band.high:
        return ABOVE
    if high < band.low:
        return BELOW
    if band.low <= low and high <= band.high:
        return INSIDE
    return UNDECIDED


SCHEMA = {"reading": pl.String, "reading_title": pl.String, "value": pl.String, "value_title": pl.String,
          "default_value": pl.String, "metric": pl.String, "metric_title": pl.String, "item": pl.String,
          "item_title": pl.String, "n": pl.Int64, "default_score": pl.Float64, "default_score_low": pl.Float64,
          "default_score_high": pl.Float64, "default_draws": pl.Int64, "score": pl.Float64, "score_low": pl.Float64,
          "score_high": pl.Float64, "draws": pl.Int64, "diff": pl.Float64, "diff_low": pl.Float64,
          "diff_high": pl.Float64, "p_value": pl.Float64, "p_adjusted": pl.Float64, "significant": pl.Boolean,
          "band_low": pl.Float64, "band_high": pl.Float64, "default_verdict": pl.String, "verdict": pl.String,
          "verdict_changes": pl.Boolean, "agents": pl.String, "games": pl.Int64, "seed": pl.Int64,
          "rules_version": pl.String}


def readings_table(game: str | GameModel, *, games: int = 2000, agents: str | None = None, seed: int = 0,
                   params: dict[str, Any] | None = None, readings: Sequence[str] | None = None,
                   alpha: float = 0.05, batches: int = BATCHES,
                   workers: int = 1, on_progress: Callable[[int, int], None] | None = None,
                   should_stop: Callable[[], bool] | None = None,
                   on_partial: Callable[[pl.DataFrame, int, int], None] | None = None) -> pl.DataFrame:
    """Every reading's effect on the game's balance verdicts (see the module docstring), one row per item.

    Args:
        game: the game (name or model); it must declare ``readings``.
        games: games per target cell and arm (every arm plays the same seeds).
        agents: one agent for every seat, or one per seat (default: the model's ``readings_agents``).
        seed: master seed of the games.
        params: game parameters every arm plays (a target cell's own and the readings' values win over them).
        readings: which readings (default: every declared one).
        alpha: 1 − the confidence of the intervals and the tests' level (the changes: after Bonferroni over the items).
        batches: blocks of consecutive games for the paired jackknife.
        workers: local workers.
        on_progress: ``(games done, games in all)``.
        should_stop: the studio's Stop; the run then ends with :class:`RunInterrupted` carrying the rows of
            the reading values finished (None when none was; ``Study.execute`` adds the count).
        on_partial: ``(table, games done, games in all)`` each time a reading value's games are all played:
            the rows of the values finished so far (each row is final: its arm and the default arm are complete).

    Returns:
        One row per reading value (other than the default), metric and item, with seed and rules version.
    """
    model = get_game(game)
    declared = tuple(model.readings)
    chosen = tuple(readings) if readings else declared
    if not declared:
        raise InputError(f"{model.name} declares no readings: its text leaves nothing open that a parameter switches")
    unknown = [r for r in chosen if r not in declared]
    if unknown:
        raise InputError(f"{model.name}: {unknown[0]!r} is not a reading; its readings: {', '.join(declared)}")
    base = {k: v for k, v in model.resolve_params(params).items()
            if k not in model.readings and v != model.param(k).default}
    lineup = _lineup(model, agents or model.readings_agents, base)
    if not 2 <= batches <= games:
        raise InputError(f"batches must be from 2 to the games per cell ({games}), got {batches}")
    bands, metrics = _bands(model, lineup)
    names = list(dict.fromkeys(b.metric for b in bands))
    arms = _arms(model, chosen)
    cells = len(targets_of(model).cells)
    total, done = games * cells * len(arms), [0]

    def tick(n: int) -> None:
        done[0] += n
        if on_progress is not None:
            on_progress(done[0], total)

    def arm_done(counts: list[Counts], complete: set[int]) -> None:
        if on_partial is not None and 0 in complete and len(complete) > 1 and len(complete) < len(arms):
            on_partial(_rows(model, arms, counts, sorted(complete - {0}), bands, metrics, lineup, games, seed,
                             alpha), done[0], total)

    finished: list[pl.DataFrame] = []  # the rows of the values whose games are all played, for a stop

    def kept(counts: list[Counts], complete: set[int]) -> None:
        if 0 in complete and len(complete) > 1:
            finished[:] = [_rows(model, arms, counts, sorted(complete - {0}), bands, metrics, lineup, games, seed,
                                 alpha)]
        arm_done(counts, complete)

    per_arm = [0] * len(arms)
    try:
        played = _play(model, arms, games, lineup, seed, batches, base, metrics, names, workers, tick, should_stop,
                       kept, per_arm)
    except (KeyboardInterrupt, RunInterrupted) as exc:
        if isinstance(exc, KeyboardInterrupt) and not (should_stop is not None and should_stop()):
            raise  # Ctrl-C outside a run's checks
        # the rows of the values finished; before any, the games each reading value finished (a comparison
        # needs all of a value's games and the default's: it is never read from part of them)
        kept_rows = finished[0] if finished else pl.DataFrame({
            "reading": [name or "every reading as the rules read it" for name, _ in arms],
            "value": ["" if name is None else str(value) for name, value in arms],
            "games finished": per_arm, "games asked": [games * cells] * len(arms)})
        raise RunInterrupted(kept_rows if done[0] else None, done[0], total) from None
    return _rows(model, arms, played, range(1, len(arms)), bands, metrics, lineup, games, seed, alpha)


def _rows(model: GameModel, arms: Sequence[tuple[str | None, Any]], played: list[Counts], which: Iterable[int],
          bands: Sequence[Band], metrics: dict[str, Metric], lineup: Sequence[str], games: int, seed: int,
          alpha: float) -> pl.DataFrame:
    """The table's rows of the arms ``which`` (indices into ``arms``; 0 is the default arm they are paired with)."""
    base = played[0]
    rows: list[dict[str, Any]] = []
    for (name, value), counts in ((arms[a], played[a]) for a in which):
        param: Param = model.param(str(name))
        pairs = [(band, metric, item, base[(metric, item)], other) for band in bands
                 for (metric, item), other in sorted(counts.items())
                 if metric == band.metric and (metric, item) in base
                 and base[(metric, item)][:, 0].sum() and other[:, 0].sum()]  # items no game had are left out
        family = max(1, len(pairs))  # Bonferroni over the items of one reading value: interval and test agree
        for band, metric, item, b, other in pairs:
            n_b, n_o = int(b[:, 0].sum()), int(other[:, 0].sum())
            s_b, s_o = _score(b), _score(other)
            lo_b, hi_b = wilson(s_b * n_b, n_b, 1 - alpha)
            lo_o, hi_o = wilson(s_o * n_o, n_o, 1 - alpha)
            diff, d_lo, d_hi, p = _paired(b, other, alpha / family)
            adjusted = min(1.0, family * p) if not math.isnan(p) else p
            significant = bool(adjusted < alpha) if not math.isnan(adjusted) else False
            before, after = _verdict(lo_b, hi_b, band), _verdict(lo_o, hi_o, band)
            rows.append({
                "reading": name, "reading_title": _title(str(name)), "value": str(value),
                "value_title": (("yes" if value else "no") if isinstance(value, bool)
                                else model.choice_label(str(name), value)), "default_value": str(param.default),
                "metric": metric, "metric_title": metrics[metric].title, "item": item,
                "item_title": metrics[metric].item_label(item), "n": n_o, "default_score": s_b,
                "default_score_low": lo_b, "default_score_high": hi_b, "default_draws": int(b[:, 2].sum()),
                "score": s_o, "score_low": lo_o, "score_high": hi_o, "draws": int(other[:, 2].sum()),
                "diff": diff, "diff_low": d_lo, "diff_high": d_hi, "p_value": p, "p_adjusted": adjusted,
                "significant": significant, "band_low": band.low, "band_high": band.high,
                "default_verdict": before, "verdict": after, "verdict_changes": before != after and significant,
                "agents": ",".join(lineup), "games": games, "seed": seed, "rules_version": model.rules_version})
    return pl.DataFrame(rows, schema=SCHEMA)


def verdict_changes(table: pl.DataFrame) -> list[str]:
    """The verdicts that change with a reading, in words (empty: every verdict holds under every reading)."""
    out = []
    for r in table.filter(pl.col("verdict_changes")).iter_rows(named=True):
        out.append(f"{r['reading_title']} = {r['value_title']} (default {r['default_value']}): "
                   f"{r['metric_title']}, {r['item_title']} goes from {r['default_verdict']} "
                   f"({100 * r['default_score']:.1f} %) to {r['verdict']} ({100 * r['score']:.1f} %)")
    return out


def shown(table: pl.DataFrame) -> pl.DataFrame:
    """The table a person reads: display names, each score with its interval and draws, the change, the verdicts."""
    return table.select(
        pl.col("reading_title").alias("reading"), pl.col("value_title").alias("value"),
        pl.format("{}: {}", "metric_title", "item_title").alias("score of"), "n",
        "default_score", "default_score_low", "default_score_high", "default_draws", "score", "score_low",
        "score_high", "draws", pl.col("diff").alias("change"), pl.col("diff_low").alias("change_low"),
        pl.col("diff_high").alias("change_high"), "significant", "default_verdict", "verdict", "verdict_changes")


# -- the study every game with readings has -------------------------------------------------------------------
def _run(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
         on_progress: Callable[[int, int], None] | None, should_stop: Callable[[], bool] | None,
         on_partial: Callable[[dict, int, int], None] | None = None) -> dict:
    """The study: ``on_partial`` streams the rows of each reading value as soon as its games are played."""
    feed = PartialFeed(on_partial, _size(model)(settings, params))
    try:
        table = _readings_of(model, settings, params, seed, workers, on_progress, should_stop, feed)
    except RunInterrupted as exc:  # the rows of the reading values finished (or each value's games so far)
        partial = exc.partial
        if partial is not None:
            partial = _tables(partial) if "verdict" in partial.columns else {"played": partial}
        raise RunInterrupted(partial, exc.done, exc.total) from None
    return _tables(table)


def _readings_of(model: GameModel, settings: dict[str, Any], params: dict[str, Any], seed: int, workers: int,
                 on_progress: Callable[[int, int], None] | None, should_stop: Callable[[], bool] | None,
                 feed: PartialFeed) -> pl.DataFrame:
    return readings_table(model, games=settings["games"], agents=settings["agents"], seed=seed, params=params,
                          readings=[settings["reading"]] if settings["reading"] else None, workers=workers,
                          on_progress=on_progress, should_stop=should_stop,
                          on_partial=lambda rows, done, _total: feed.offer(lambda: _tables(rows), done))


def _tables(table: pl.DataFrame) -> dict:
    said = verdict_changes(table) or ["Every verdict holds under every reading."]
    return {"readings": shown(table), "changes": pl.DataFrame({"finding": said})}


def _charts(tables: dict) -> dict:
    from workbench.core.present import charts

    table = tables.get("readings")
    if table is None or table.is_empty():  # a run stopped before any value finished: no change to chart
        return {}
    data = table.select(pl.format("{} = {}", "reading", "value").alias("reading"), pl.col("score of").alias("item"),
                        pl.col("change").alias("rate"), pl.col("change_low").alias("low"),
                        pl.col("change_high").alias("high"))
    return {"differences": charts.rate_chart(data, "item", n=None, color="reading", reference=0.0,
                                             title="Change of each score from the default reading "
                                                   "(paired, 95 % interval; a draw counts ½)",
                                             y_title="change of score")}


def _size(model: GameModel) -> Callable[[dict[str, Any], dict[str, Any]], int]:
    def size(settings: dict[str, Any], _params: dict[str, Any]) -> int:
        chosen = [settings["reading"]] if settings["reading"] else list(model.readings)
        return settings["games"] * len(targets_of(model).cells) * len(_arms(model, chosen))
    return size


def readings_study(model: GameModel) -> dict[str, Any] | None:
    """The keyword arguments of core's ``readings`` study for ``model`` (None where it declares no readings)."""
    if not model.readings:
        return None
    return {"name": "readings", "title": "Readings: do the balance verdicts depend on how the text is read?",
            "run": _run, "charts": _charts, "size": _size(model), "replaces": tuple(model.readings),
            "settings": (Param("reading", None, str, "one reading (none: every one)", choices=tuple(model.readings),
                               optional=True),
                         Param("agents", model.readings_agents, str, "one agent for every seat, or one per seat, "
                               f"comma-separated; allowed: {', '.join(model.agents)}"),
                         Param("games", 1000, int, "games per target cell and reading (the same seeds in each)",
                               BATCHES, 10**8)),
            "help": "Plays the game's balance targets with every reading at its default, then with each other "
                    "reading in turn, on the same seeds; per item the score (a draw counts half) with its 95 % "
                    "interval, the paired change with its interval (Bonferroni over the items), and whether the "
                    "verdict against the target band changes."}


def report_section(rep: Any, table: pl.DataFrame, name: str = "readings", title: str | None = None) -> None:
    """A report section of a :func:`readings_table`: what was played, the changed verdicts in words, the table."""
    if table.is_empty():
        return
    first = table.row(0, named=True)
    said = verdict_changes(table)
    summary = ("**Every verdict holds under every reading.**" if not said else
               "**Verdicts that change with the reading:**\n\n" + "\n".join(f"- {line}" for line in said))
    readings = ", ".join(dict.fromkeys(table["reading_title"].to_list()))  # "Thief rounding", not the key
    rep.section(title or "Readings of the open texts: do the verdicts depend on them?",
                f"Each open reading ({readings}; see docs/rules) played in turn against the defaults, "
                f"{first['games']:,} games per target cell on the same seeds (seed {first['seed']}), agents "
                f"{first['agents']} (one per seat, or every seat). A score counts a draw as half (draws shown "
                "beside it); the change is paired, its interval and test Bonferroni-corrected over the items of "
                "one reading; a verdict reads the "
                "95 % interval against the target band.\n\n" + summary)
    rep.table(name, shown(table))
    charts = _charts({"readings": shown(table)})
    if "differences" in charts:
        rep.chart(f"{name}_chart", charts["differences"])


REPORT_GAMES = {"full": 1000, "quick": 40}  # games per target cell and reading in a report (quick: 2 a jackknife block)


def add_report_section(rep: Any, game: str | GameModel, *, quick: bool = False, seed: int = 0, workers: int = 2,
                       params: dict[str, Any] | None = None, label: str | None = None) -> None:
    """Play the readings study at the report's size and add its section (nothing when the game has no readings)."""
    from workbench.core.sim.progress import step

    model = get_game(game)
    if not model.readings:
        return
    games = REPORT_GAMES["quick" if quick else "full"]
    with step(label or f"{model.name} report: readings, {games:,} games per target cell and reading"):
        table = readings_table(model, games=games, seed=seed, workers=workers, params=params)
    report_section(rep, table)
