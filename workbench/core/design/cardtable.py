"""Editable card tables: a game's declared data table, a designer's edits of it, and what-ifs on common random numbers.

A card game declares ``card_table`` on its model — a :class:`CardTable`, or ``"module:NAME"`` naming
one — saying which game parameter takes the table's path, the shipped file, the key column(s), the
columns a designer may edit, the columns shown beside them, and the loader that validates a file.
Front ends (the studio) read only the declaration; the work is done here, for every game alike:

* :func:`read_cards` reads the rows (core's CSV reader: file, row and column in every error);
* :func:`edited_cards` writes an edited copy, content-addressed and validated by the game's loader
  (:func:`workbench.core.design.edits.edit_csv`); :func:`save_cards` saves one under a name the user
  gives, never over an existing file (so never over the shipped data);
* :func:`what_if` plays the same games — same master seed, so the same game seeds — with the
  unchanged and the edited table and compares them pair by pair
  (:func:`workbench.core.stats.compare.compare_outcomes`).  Stopped while the edited cards play, it
  compares the games both arms finished.  It stands on :func:`paired_runs`, the one what-if on
  common random numbers every game's own what-if uses too (the duel's edits battlefields and
  parameters as well, Babylon's plays its deck grid), and :class:`ProgressTotal`, one progress
  count over several runs.

**Re-tuning** (``what_if(..., retune=N)``): a weight set (``greedy@tuned``) was tuned for the cards
it was tuned on, and is refused on other cards (``core/model/agents.py``'s ``expand_weight_set``).  With
``retune`` the edited arm plays weights re-tuned for the edited cards — :func:`workbench.core.skill.tune.tune`
from the set (``start``), ``N`` games in all, on seeds derived from the what-if's seed by
:func:`retune_seed` (never the master seed of the games compared), nothing written — while the
unchanged arm plays the set as shipped.  A re-tune is **accepted** only when it does not play worse:
the re-tuned weights and the set as shipped each play the same held-out games on the edited cards
against the same opponent (common random numbers, both seat orders, a draw counting half), and the
shipped set is kept unless the re-tuned weights score at least as well (:func:`retune_plan` splits
the ``N`` games).  :class:`CardWhatIf` records the agents each arm played, in full, and each re-tune's
record (:class:`Retune`: both scores with n and 95 % intervals, the set kept and why).
"""

from __future__ import annotations

import math
import os
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from workbench.core.design.edits import cache_dir, edit_csv
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import AgentSpec, GameModel, get_game
from workbench.core.model.datafile import read_table
from workbench.core.model.refs import resolve_ref
from workbench.core.rng import stream_seed
from workbench.core.stats.compare import compare_outcomes

__all__ = ["CardTable", "CardWhatIf", "ProgressTotal", "Retune", "accept_retune", "card_table", "changed_cells",
           "check_retune", "column_kinds", "edited_cards", "paired_runs", "play_pair", "read_cards", "retune_plan",
           "retune_seed", "retune_sets", "retune_weights", "save_cards", "what_if"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_NUMBER = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")
Edits = Mapping[str, Mapping[str, Any]]
RETUNE_STREAM = 0x2E7C4E  # a re-tune's seed: sub-stream RETUNE_STREAM + i of the what-if's (or rebalance's) seed
RETUNE_HELD_OUT = 5  # a re-tune's held-out check plays 1/RETUNE_HELD_OUT of its games per set compared (two sets)
RETUNE_GENERATIONS = 3  # a small re-tune budget plays at least this many generations (fewer games a candidate)
RETUNE_GAMES = 200  # games a candidate at most (tune's default)


@dataclass(frozen=True)
class CardTable:
    """A game's editable card table, declared on its model as ``card_table``.

    Attributes:
        param: the game parameter that takes the table's path (the duel's ``cards``).
        default: the shipped file, played when the parameter is none.
        key: the column(s) naming a row (the first is the one edits use); never edited.
        editable: the columns a designer may edit (costs, amounts, stats).
        shown: read-only columns shown beside them (name, colour).
        validate: the game's loader, ``validate(path)`` raising a DataError for a bad row (or
            ``"module:function"``); None: only the CSV's shape is checked.
        title: what the rows are, in the game's words.
        played_by: ``"module:function(config, state, action) -> card key | None"``, the card an
            action plays (None: it plays none); lets ``core/design/cardplay.py`` count dead cards.
    """

    param: str
    default: str | Path
    key: tuple[str, ...] = ("key",)
    editable: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()
    validate: Callable[[Path], Any] | str | None = None
    title: str = "cards"
    played_by: Callable[[Any, Any, Any], Any] | str | None = None

    @property
    def row_key(self) -> str:
        """The key column edits are given by."""
        return self.key[0]

    def check(self, path: str | Path) -> None:
        """Validate a table file with the game's loader (a DataError names file, row and column)."""
        loader = resolve_ref(self.validate)
        if loader is not None:
            loader(Path(path))


def card_table(game: str | GameModel) -> CardTable | None:
    """The game's declared card table, or None when it declares none."""
    model = get_game(game)
    table = resolve_ref(getattr(model, "card_table", None))
    if table is None:
        return None
    if not isinstance(table, CardTable):
        raise InputError(f"{model.name}.card_table must be a CardTable (workbench.core.design.cardtable), "
                         f"got {type(table).__name__}")
    model.param(table.param)  # the parameter that takes the file must be declared
    if not table.key or not table.editable:
        raise InputError(f"{model.name}.card_table needs a key column and at least one editable column")
    return table


def read_cards(table: CardTable, path: str | Path | None = None) -> pl.DataFrame:
    """The table's rows as text, every column in file order (blank cells are empty strings)."""
    path = Path(path or table.default)
    read = read_table(path, (*table.key, *table.editable), optional=table.shown, keep_extra=True, what=table.title)
    keys = [row.cells[table.row_key] for row in read]
    doubled = sorted({k for k in keys if keys.count(k) > 1})
    if doubled:
        raise InputError(f"{path}: {table.row_key} {doubled[0]!r} names two rows; every row needs its own key")
    return pl.DataFrame({c: [row.cells.get(c, "") for row in read] for c in read.header},
                        schema={c: pl.String for c in read.header})


def column_kinds(cards: pl.DataFrame, columns: tuple[str, ...] | list[str]) -> dict[str, type]:
    """Per column: ``int`` when every filled cell is a whole number, ``float`` when a number, else ``str``."""
    kinds: dict[str, type] = {}
    for column in columns:
        cells = [c.strip() for c in cards.get_column(column).to_list() if c.strip()]
        if cells and all(_INTEGER.match(c) for c in cells):
            kinds[column] = int
        elif cells and all(_NUMBER.match(c) for c in cells):
            kinds[column] = float
        else:
            kinds[column] = str
    return kinds


def _same(old: str, new: Any) -> bool:
    old, text = old.strip(), str(new).strip()
    if old == text:
        return True
    if _NUMBER.match(old) and _NUMBER.match(text):
        return float(old) == float(text)
    return False


def changed_cells(table: CardTable, cards: pl.DataFrame, edits: Edits) -> dict[str, dict[str, str]]:
    """The edits that change something, as text: ``{row key: {column: new value}}``.

    An unknown row or a column that is not editable is an :class:`InputError` naming what exists.
    """
    rows = {r[table.row_key]: r for r in cards.iter_rows(named=True)}
    out: dict[str, dict[str, str]] = {}
    for key, change in (edits or {}).items():
        row = rows.get(str(key))
        if row is None:
            raise InputError(f"no {table.title} row with {table.row_key} {str(key)!r}")
        for column, value in change.items():
            if column not in table.editable:
                raise InputError(f"column {column!r} cannot be edited; editable: {', '.join(table.editable)}")
            if not _same(row[column], value):
                out.setdefault(str(key), {})[column] = str(value).strip()
    return out


def edited_cards(table: CardTable, edits: Edits, base: str | Path | None = None,
                 directory: str | Path | None = None, namespace: str = "") -> Path:
    """A validated copy of ``base`` (default: the shipped file) with ``edits`` applied (content-addressed)."""
    base = Path(base or table.default)
    return edit_csv(base, edits, key=table.key, directory=directory or cache_dir(namespace), stem=base.stem,
                    validate=table.check)


def save_cards(table: CardTable, edits: Edits, name: str, directory: str | Path,
               base: str | Path | None = None) -> Path:
    """Save the edited table as ``<directory>/<name>.csv``; never replaces a file (the shipped one included)."""
    name = (name or "").strip().removesuffix(".csv")
    if not _NAME.match(name):
        raise InputError(f"name {name!r}: use letters, digits, '_', '-' or '.', starting with a letter or digit "
                         "(at most 64), e.g. cheap-dragon")
    directory = Path(directory)
    target = directory / f"{name}.csv"
    if target.exists() or target.resolve() == Path(table.default).resolve():
        raise InputError(f"{target} already exists; choose another name (a saved set is never overwritten)")
    edited = edited_cards(table, edits, base, directory=cache_dir("saved"))
    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / f".tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}-{name}.csv"
    tmp.write_bytes(edited.read_bytes())
    try:
        os.link(tmp, target)  # fails if the name was taken meanwhile: no overwrite, ever
    except FileExistsError:
        raise InputError(f"{target} already exists; choose another name") from None
    finally:
        tmp.unlink(missing_ok=True)
    return target


class ProgressTotal:
    """One progress count over several runs, reported as ``on_progress(done, total)`` of the whole job.

    Give a run :meth:`add` when it reports each finished chunk's size (``simulate``), or the object
    itself when it reports its own running count (``run_grid``'s ``(done, total)``: a count that
    goes down means the next run started).
    """

    def __init__(self, on_progress: Callable[[int, int], None] | None, total: int) -> None:
        self.on_progress, self.total, self.done = on_progress, total, 0
        self._before = self._last = 0

    def add(self, n: int) -> None:
        """``n`` more games finished."""
        self.done += n
        self._report()

    def __call__(self, done: int, _total: int = 0) -> None:
        """A run's own count of finished games."""
        if done < self._last:  # a new run started
            self._before += self._last
        self._last = done
        self.done = self._before + done
        self._report()

    def _report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.done, self.total)


PlayArm = Callable[[dict[str, Any], ProgressTotal], pl.DataFrame]


def paired_runs(play: PlayArm, base: dict[str, Any], variant: dict[str, Any], total: int, *,
                on_progress: Callable[[int, int], None] | None = None, baseline: pl.DataFrame | None = None,
                keys: tuple[str, ...] = ("game_index",)) -> tuple[pl.DataFrame, pl.DataFrame, bool]:
    """Play the unchanged arm (``base`` parameters) and the edited one (``variant``) on the same seeds.

    ``play(params, progress)`` plays one arm with the same master seed as the other (common random
    numbers) and reports to ``progress``; ``total`` is the games of both arms.  ``baseline``: the
    unchanged arm when already played (only the variant is played).  Stopped while the baseline plays,
    :class:`RunInterrupted` carries its games; stopped later, the baseline keeps only the games the
    variant finished (matched on ``keys``: a cell's parameters and ``game_index``).  Returns
    ``(baseline, variant, stopped)``.
    """
    tally = ProgressTotal(on_progress, total)
    if baseline is None:
        try:
            baseline = play(base, tally)
        except RunInterrupted as exc:
            raise RunInterrupted(exc.partial, exc.done, total) from None
    try:
        return baseline, play(variant, tally), False
    except RunInterrupted as exc:
        if exc.partial is None or exc.partial.height == 0:
            raise RunInterrupted(baseline, baseline.height, total) from None
        kept = baseline.join(exc.partial.select(keys), on=list(keys), how="semi", maintain_order="left")
        return kept, exc.partial, True


# -- re-tuning a weight set for edited cards ----------------------------------------------------------------
@dataclass(frozen=True)
class Retune:
    """A weight set re-tuned for edited cards: what was named, what was found, which was kept, and why.

    ``spec`` is the agent played from now on, in full (every option written out), so a row replays
    without any file: the re-tuned weights (``tuned``) when they were accepted, else the set as
    shipped (``shipped``).  ``validation`` is the re-tuned weights' held-out result against the
    agent's default options (``core/skill/tune.py``), ``shipped_validation`` the shipped set's on the
    same held-out games (common random numbers): each a score (a draw half) with ``n``, ``low`` and
    ``high`` (95 % Wilson).  ``kept`` is ``"re-tuned"`` when the re-tuned weights scored at least as
    well as the shipped set there, else ``"shipped"``; ``why`` says so in words.  ``master_seeds`` are
    every master seed the re-tune played (its generations', then its held-out check's, which both
    sets play).
    """

    agent: str  # as named, e.g. greedy@tuned
    spec: str  # played: the kept set in full, e.g. greedy:tower=1.31,wall=0.52,...
    seed: int
    budget: int
    games: int  # games the re-tune played (its generations and its held-out check)
    generations: int
    games_per_candidate: int
    cards: str
    master_seeds: tuple[int, ...]
    validation: dict[str, Any] | None = None
    indices: tuple[int, int] = (0, 0)  # game indices 0..n-1 played of each generation's seed, and of the held-out one
    tuned: str = ""  # the re-tuned weights in full (what the search found), played only when kept
    shipped: str = ""  # the set as shipped in full (where the search started)
    shipped_validation: dict[str, Any] | None = None  # the shipped set on the same held-out games
    kept: str = "re-tuned"  # "re-tuned" or "shipped": which set ``spec`` plays
    why: str = ""  # the acceptance, in words: both scores and which was kept

    @property
    def accepted(self) -> bool:
        """Whether the re-tuned weights are played (else the set as shipped)."""
        return self.kept == "re-tuned"

    def game_seeds(self) -> np.ndarray:
        """Every game seed the re-tune played: its generations', its held-out check's and the shipped set's on them.

        Each seat order replays the same seeds; the shipped set's comparison replays the held-out check's.
        """
        from workbench.core.sim.seeding import game_seeds

        *generations, held = self.master_seeds if self.validation else (*self.master_seeds, None)
        parts = [game_seeds(m, 0, self.indices[0]) for m in generations]
        if held is not None:
            parts.append(game_seeds(held, 0, self.indices[1]))
        if self.shipped_validation:  # the comparison's own record of where it played
            parts.append(game_seeds(int(self.shipped_validation["master_seed"]), 0, self.indices[1]))
        return np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.uint64)

    def as_dict(self) -> dict[str, Any]:
        """The record as plain data (a run's settings, a report)."""
        return {"agent": self.agent, "spec": self.spec, "seed": self.seed, "budget": self.budget, "games": self.games,
                "generations": self.generations, "games_per_candidate": self.games_per_candidate,
                "cards": self.cards, "validation": self.validation, "tuned": self.tuned, "shipped": self.shipped,
                "shipped_validation": self.shipped_validation, "kept": self.kept, "why": self.why}

    def row(self) -> dict[str, Any]:
        """One flat row (a saved table): the weights played, both held-out scores with n and intervals, the set kept."""
        v, s = self.validation or {}, self.shipped_validation or {}
        return {"agent": self.agent, "weights": self.spec, "kept": self.kept, "seed": self.seed, "games": self.games,
                "budget": self.budget, "opponent": v.get("opponent") or s.get("opponent"),
                "retuned_weights": self.tuned or None, "retuned_score": v.get("score"),
                "retuned_low": v.get("low"), "retuned_high": v.get("high"), "retuned_n": v.get("n"),
                "shipped_weights": self.shipped or None, "shipped_score": s.get("score"), "shipped_low": s.get("low"),
                "shipped_high": s.get("high"), "shipped_n": s.get("n"), "why": self.why}

    def text(self) -> str:
        """``greedy@tuned re-tuned for these cards (… games, seed …): kept …`` with both held-out scores and why."""
        head = (f"{self.agent} re-tuned for these cards ({self.games:,} games, {self.generations} generation"
                f"{'' if self.generations == 1 else 's'}, seed {self.seed})")
        if not self.shipped_validation:  # no comparison played: the re-tuned weights as found
            v = self.validation
            return f"{head}: {self.spec}" + (f"; held out vs {v['opponent']}: {_rate(v)}" if v else "")
        if self.accepted:
            return f"{head}: the re-tuned weights are played, {self.spec}; {self.why}"
        return f"{head}: the set as shipped is played, {self.spec}; {self.why}"


def _rate(v: dict[str, Any]) -> str:
    """A held-out score as a person reads it: ``51.2 % [48.1, 54.3] (n = 1,000)``."""
    return f"{100 * v['score']:.1f} % [{100 * v['low']:.1f}, {100 * v['high']:.1f}] (n = {v['n']:,})"


def accept_retune(validation: dict[str, Any], shipped: dict[str, Any]) -> tuple[str, str]:
    """``(kept, why)``: the re-tuned weights are kept only when they score at least as well as the shipped set.

    Both held-out records must come from the same games (same master seed and n: common random numbers);
    a score counts a draw as half a win, compared exactly (wins × 2 + draws).
    """
    if (validation["master_seed"], validation["n"], validation["opponent"]) != (
            shipped["master_seed"], shipped["n"], shipped["opponent"]):  # never: asserted
        raise RuntimeError("re-tune: the shipped set's comparison did not play the re-tuned weights' held-out games")
    ours, theirs = (2 * int(r["wins"]) + int(r["draws"]) for r in (validation, shipped))
    kept = "re-tuned" if ours >= theirs else "shipped"
    said = (f"held out vs {validation['opponent']}, the re-tuned weights scored {_rate(validation)} and the set as "
            f"shipped {_rate(shipped)} on the same games")
    if kept == "re-tuned":
        return kept, said + ": the re-tuned weights score at least as well, so they are kept"
    return kept, said + ": the re-tuned weights score lower, so the shipped set is kept"


def check_retune(retune: Any) -> int:
    """``retune`` as a whole number of games ``>= 0`` (0: off); anything else is one :class:`InputError`."""
    if isinstance(retune, bool) or not isinstance(retune, (int, np.integer)) or retune < 0:
        raise InputError(f"retune must be a whole number of games >= 0 (0: off; N: each weight set the agents name, "
                         f"e.g. greedy@tuned, is re-tuned for the edited cards with N more games), got {retune!r}")
    return int(retune)


def retune_seed(seed: int, index: int = 0) -> int:
    """The seed of the ``index``-th re-tune of a run with seed ``seed`` (a sub-stream: never ``seed`` itself)."""
    return stream_seed(seed, RETUNE_STREAM + index) % (2**63)


def seat_agents(model: GameModel, agents: Any, params: dict[str, Any]) -> list[str]:
    """One agent spec per seat as given (weight sets not expanded): a list, a comma string, or None (defaults)."""
    from workbench.core.model import _split_agents

    if agents is None:
        agents = model.default_agents(model.resolve_params(params))
    seats = _split_agents(agents) if isinstance(agents, str) else [str(a) for a in agents]
    return [str(AgentSpec.parse(a)) for a in seats]


def retune_sets(model: GameModel, agents: Any, params: dict[str, Any]) -> list[str]:
    """The distinct agents among the seats that name a weight set (``greedy@tuned``), in seat order.

    None is an :class:`InputError`: a re-tune needs a weight set to start from.
    """
    seats = seat_agents(model, agents, params)
    found = [a for a in dict.fromkeys(seats) if AgentSpec.parse(a).weight_set is not None]
    if not found:
        from workbench.core.model import weight_set_names

        sets = weight_set_names(model)
        raise InputError(f"a re-tune needs an agent that names a weight set, e.g. "
                         f"{model.agent_decls[0].name if model.agent_decls else 'greedy'}@"
                         f"{sets[0] if sets else 'tuned'}; the agents given are {', '.join(seats)} "
                         f"(weight sets of {model.name}: {', '.join(sets) or 'none'}); or set the re-tune to 0")
    return found


def retune_plan(model: GameModel, agent: str, budget: int, cells: int = 1) -> dict[str, int]:
    """How ``budget`` games re-tune ``agent``: candidates a generation, games a candidate, tuning and held-out games.

    The budget splits three ways: ``validate``, a fifth (whole games a cell and seat), is the re-tuned
    weights' held-out check; ``compare``, as many again, is the set as shipped on those same games (the
    acceptance: the shipped set is kept unless the re-tuned weights score at least as well); the rest,
    ``tuning``, tunes with :data:`RETUNE_GAMES` games a candidate, or fewer so a small budget still plays
    :data:`RETUNE_GENERATIONS` generations.  ``tuning + validate + compare <= budget``.  Too small a
    budget for one generation of two games a candidate and one held-out game a cell and seat is an
    :class:`InputError` naming the least that works.
    """
    from workbench.core.skill.tune import tunable_options

    spec = AgentSpec.parse(agent)
    width = len(tunable_options(model.agent_decl(spec.name)))
    popsize = 4 + int(3 * math.log(width))

    def split(total: int) -> tuple[int, int]:
        held = 2 * cells * (total // (2 * cells * RETUNE_HELD_OUT))  # each set's held-out games: whole per cell, seat
        return total - 2 * held, held

    def works(total: int) -> bool:
        tuning, held = split(total)
        return tuning >= 2 * unit and held >= 2 * cells

    unit = (popsize + 1) * cells  # games of one generation at one game a candidate and cell
    least = 2 * unit
    while not works(least):
        least += 1
    if budget < least:
        raise InputError(f"retune {budget:,}: too few games to re-tune {agent} ({popsize} candidates and the centre "
                         f"a generation, 2 games each at least, then a fifth held out for the re-tuned weights and "
                         f"a fifth for the set as shipped on the same games): give at least {least:,}, "
                         "or 0 for no re-tune")
    tuning, held = split(budget)
    per_candidate = min(RETUNE_GAMES, max(2, 2 * (tuning // (2 * unit * RETUNE_GENERATIONS))))
    return {"popsize": popsize, "games": per_candidate, "tuning": tuning, "validate": held, "compare": held,
            "generations": tuning // (unit * per_candidate)}


def retune_weights(game: str | GameModel, agent: str, params: dict[str, Any] | list[dict[str, Any]], budget: int,
                   seed: int, *,
                   engine: str | None = None, workers: int = 1, should_stop: Callable[[], bool] | None = None,
                   on_games: Callable[[int], None] | None = None) -> Retune:
    """Re-tune the weight set ``agent`` names (``greedy@tuned``) for the cards ``params`` play; nothing is written.

    ``params`` may be a list of cells (one card set): every candidate plays each.  ``core/skill/tune.py``'s
    :func:`~workbench.core.skill.tune.tune` from the set, seed ``seed``, without a checkpoint file, then
    the acceptance: the set as shipped plays the re-tune's held-out games too (same opponent, same
    seeds, both seat orders), and the re-tuned weights are kept only when they score at least as well
    (:func:`accept_retune`); ``budget`` games pay for all of it (:func:`retune_plan`).  Stopped
    (``should_stop``, Ctrl-C), :class:`RunInterrupted` is raised and nothing is left behind.
    ``on_games(n)`` counts the games as they finish.
    """
    from workbench.core.skill.tune import held_out_check, master_seeds, spec_text, tune

    model = get_game(game)
    spec = AgentSpec.parse(agent)
    cells = [params] if isinstance(params, dict) else list(params)
    plan = retune_plan(model, agent, budget, len(cells))
    resolved = model.resolve_params(cells[0])
    if engine in (None, "auto"):
        engine = model.resolve_engine(None, (AgentSpec(spec.name),), resolved)
    found = tune(model, spec.name, name="retune", budget=plan["tuning"], seed=seed, params=cells, start=agent,
                 boxes=_set_boxes(model, spec), games=plan["games"], popsize=plan["popsize"],
                 validate=plan["validate"], engine=engine,
                 workers=workers, write=False, progress=False, should_stop=should_stop, checkpoint=False,
                 on_games=on_games)
    generations = int(found.data["generations"])
    validation = found.validation
    if validation is None:  # never: the plan always holds out games
        raise RuntimeError("re-tune: the tuning played no held-out check to compare the shipped set with")
    shipped = spec_text(spec.name, model.agent_decl(spec.name).resolve_options(model.resolve_spec(spec)))  # in full
    if should_stop is not None and should_stop():
        raise RunInterrupted(None, int(found.data["games_played"]) + int(validation["n"]), budget)
    compared = held_out_check(model, shipped, params=cells, n=plan["compare"], seed=seed,
                              opponent=found.data["tuning"]["opponent"], engine=engine, workers=workers,
                              on_games=on_games)
    kept, why = accept_retune(validation, compared)
    played = int(found.data["games_played"]) + int(validation["n"]) + int(compared["n"])
    if played > budget:  # never: the plan's split pays for every game
        raise RuntimeError(f"re-tune: {played:,} games played, over the budget of {budget:,}")
    return Retune(agent, found.spec if kept == "re-tuned" else shipped, seed, budget, played, generations,
                  plan["games"], str(found.data["card_source"]), tuple(master_seeds(seed, generations, True)),
                  validation, (plan["games"] // 2, int(validation["n"]) // (2 * len(cells))), found.spec, shipped,
                  compared, kept, why)


def _set_boxes(model: GameModel, spec: AgentSpec) -> dict[str, tuple[float, float]] | None:
    """The boxes the set was tuned in (widened to hold its values), so a re-tune never clips its start."""
    from workbench.core.model import load_weight_set

    data = load_weight_set(model, spec.weight_set or "")
    start = model.agent_decl(spec.name).resolve_options(model.resolve_spec(spec))
    boxes = {}
    for name, (low, high) in (data.get("tuning", {}).get("box") or {}).items():
        value = start.get(name)
        if isinstance(value, (int, float)):
            boxes[name] = (min(float(low), float(value)), max(float(high), float(value)))
    return boxes or None


def play_pair(game: str | GameModel, base: dict[str, Any], variant: dict[str, Any], *, games: int,
              agents: Any = None, seed: int = 0, workers: int = 1, engine: str | None = None,
              on_progress: Callable[[int, int], None] | None = None,
              should_stop: Callable[[], bool] | None = None,
              variant_agents: Any = None) -> tuple[pl.DataFrame, pl.DataFrame, bool]:
    """:func:`paired_runs` of two ``simulate`` runs of ``games`` games each: ``(baseline, variant, stopped)``.

    ``agents`` play the unchanged arm, and the edited one too unless ``variant_agents`` are given (a
    weight set re-tuned for the edited cards).  An impossible combination of parameters in either arm
    stops before any game is played.
    """
    from workbench.core.sim.runner import simulate

    model = get_game(game)
    base, variant = dict(base), dict(variant)  # two objects: each arm's agents are told apart by which it is
    for arm in (base, variant):
        model.resolve_params(arm)

    def play(arm: dict[str, Any], progress: ProgressTotal) -> pl.DataFrame:
        lineup = variant_agents if arm is variant and variant_agents is not None else agents
        return simulate(model, games, params=arm, agents=lineup, seed=seed, workers=workers, engine=engine,
                        progress=False, on_progress=progress.add, should_stop=should_stop)

    return paired_runs(play, base, variant, 2 * games, on_progress=on_progress)


@dataclass
class CardWhatIf:
    """A finished (or stopped) what-if: both arms' games, their paired comparison and the files played."""

    baseline: pl.DataFrame
    variant: pl.DataFrame
    outcomes: pl.DataFrame
    base_path: Path
    variant_path: Path
    edits: dict[str, dict[str, str]] = field(default_factory=dict)
    games: int = 0
    stopped: bool = False
    agents: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # each arm's agents as played, one per seat, in full
    retuned: tuple[Retune, ...] = ()  # the weight sets re-tuned for the edited cards (what_if's retune)

    def agents_text(self) -> list[str]:
        """Which agents each arm played, as a reader reads it (a re-tuned set said so, with its held-out score)."""
        out = []
        for label, lineup in (("unchanged cards", self.agents[0]), ("edited cards", self.agents[1])):
            if lineup:
                out.append(f"{label}: {', '.join(lineup)}")
        out += [r.text() for r in self.retuned]
        return out


def what_if(game: str | GameModel, edits: Edits, *, params: dict[str, Any] | None = None, agents: Any = None,
            games: int = 2000, seed: int = 0, base: str | Path | None = None, workers: int = 1,
            engine: str | None = None, directory: str | Path | None = None,
            on_progress: Callable[[int, int], None] | None = None,
            should_stop: Callable[[], bool] | None = None, retune: int = 0) -> CardWhatIf:
    """Play ``games`` games with the unchanged table and with ``edits``, on the same seeds, and compare them.

    ``params`` are the game's other parameters (both arms), ``base`` the table edited (default: the
    shipped one).  Stopped while the baseline plays, :class:`RunInterrupted` carries its games;
    stopped later, the games both arms finished are compared (``stopped`` is then true).

    ``retune`` (games, 0: off): each weight set the agents name (``greedy@tuned``, on one seat or
    every seat) is first re-tuned for the edited cards with that many games (:func:`retune_weights`,
    seed :func:`retune_seed` of ``seed``), and the edited arm plays the set it kept: the re-tuned weights
    when they scored at least as well as the shipped set on the same held-out games, else the shipped
    set's options (each :class:`Retune` says which and why); the unchanged arm plays the set as shipped.
    Progress counts the re-tune's games; stopped during the re-tune, :class:`RunInterrupted` is raised
    with no game and nothing is written.
    """
    retune = check_retune(retune)
    model = get_game(game)
    table = card_table(model)
    if table is None:
        raise InputError(f"{model.name} declares no editable card table")
    base_path = Path(base or table.default)
    changed = changed_cells(table, read_cards(table, base_path), edits)
    if not changed:
        raise InputError(f"no {table.title} value is changed yet: edit a cell first")
    variant_path = edited_cards(table, changed, base_path, directory, namespace=model.name)
    arms = [{**(params or {}), table.param: str(path)} for path in (base_path, variant_path)]
    sets = retune_sets(model, agents, arms[1]) if retune else []
    total = 2 * games + retune * len(sets)
    tally = ProgressTotal(on_progress, total)
    retuned = []
    for i, agent in enumerate(sets):
        if should_stop is not None and should_stop():
            raise RunInterrupted(None, 0, 2 * games)
        try:
            found = retune_weights(model, agent, arms[1], retune, retune_seed(seed, i), engine=engine,
                                   workers=workers, should_stop=should_stop, on_games=tally.add)
        except RunInterrupted:
            raise RunInterrupted(None, 0, 2 * games) from None  # stopped before any game compared: none to keep
        compared = {found.validation["master_seed"] if found.validation else None,
                    found.shipped_validation["master_seed"] if found.shipped_validation else None}
        if seed in found.master_seeds or seed in compared:  # never: asserted, so a change of seeding cannot hide it
            raise RuntimeError("what-if: a re-tune played the master seed of the games compared")
        retuned.append(found)
        tally.add(max(0, retune * (i + 1) - tally.done))  # the bar at the planned count (a re-tune may play fewer)
    swap = {r.agent: r.spec for r in retuned}
    variant_lineup = [swap.get(a, a) for a in seat_agents(model, agents, arms[0])] if sets else None
    played = (_played(model, agents, arms[0]), _played(model, variant_lineup or agents, arms[1], hint=True))
    offset = tally.done

    def progress(done: int, _total: int) -> None:
        if on_progress is not None:
            on_progress(offset + done, total)

    baseline, variant, stopped = play_pair(model, *arms, games=games, agents=agents, seed=seed, workers=workers,
                                           engine=engine, on_progress=on_progress if not sets else progress,
                                           should_stop=should_stop, variant_agents=variant_lineup)
    return CardWhatIf(baseline, variant, compare_outcomes(baseline, variant), base_path, variant_path, changed,
                      games, stopped, played, tuple(retuned))


def _played(model: GameModel, agents: Any, params: dict[str, Any], hint: bool = False) -> tuple[str, ...]:
    """The agents an arm plays, one per seat in full (a weight set as its options), checked before any game.

    ``hint``: a weight set refused for the edited cards says that the what-if can re-tune it.
    """
    try:
        return tuple(map(str, model.resolve_agents(agents, model.resolve_params(params))))
    except InputError as exc:
        if hint and "re-tune" in str(exc):
            raise InputError(f"{exc} — or let the what-if re-tune it for the edited cards (retune=N games; the "
                             "studio's 're-tune games')") from None
        raise
