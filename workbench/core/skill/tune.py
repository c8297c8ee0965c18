"""Self-tuned heuristics: an agent's declared numeric options tuned by self-play, and named weight sets as data.

:func:`tune` searches an agent's float options (greedy's weights) with CMA-ES (the ``cma`` package)
over a box per weight, normalised to ``[0, 1]``.  Every generation, each candidate — and the centre
of the search distribution, for the curve — plays the opponent (the agent's default options unless
told otherwise) on common random numbers: the same game seeds for every candidate of a generation,
half the games with the candidate in seat ``p1`` and the same seeds again with the seats swapped.
A candidate's objective is its balance score (win 1, draw ½).  Games run on the compiled engine
(greedy with any weights plays at compiled speed) through the runner's :func:`~workbench.core.sim.runner.execute`,
so ``workers`` and ``backend="dask"`` work as for :func:`~workbench.core.sim.runner.simulate`.  Given a list of
opponents (a population), every candidate plays each member on the same seeds and is scored over them
pooled; :mod:`workbench.core.skill.raising` runs rounds of that against a growing population.

After every generation the history (the candidates asked and their scores) is written to
``<data folder>/agents/.<name>.tune/state.json``; a resumed run replays the optimiser from that
history (no game is played again) and continues to the result an uninterrupted run reaches.  At the
end the tuned options play the opponent on fresh held-out seeds (a master seed no generation used),
and the set is written to ``<data folder>/agents/<name>.toml``: options, seed, budget, card set
hash, rules version, tuning curve and the held-out result.  ``greedy@<name>`` then names it in every
command (:meth:`~workbench.core.model.GameModel.resolve_agents` calls :func:`expand_set`).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import tomllib
import uuid
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import (
    AgentDecl,
    AgentSpec,
    GameModel,
    Param,
    card_set_hash,
    get_game,
    load_weight_set,
    model_ref,
    weight_set_names,
    weight_set_path,
)
from workbench.core.rng import stream_seed
from workbench.core.sim.runner import execute, plan_chunks
from workbench.core.sim.stopping import close
from workbench.core.stats.rates import binom_pvalue, wilson

__all__ = ["Box", "TuneResult", "card_hash", "check_run_options", "expand_set", "held_out_check", "load_set",
           "master_seeds", "set_names", "set_path", "tune", "tune_folder", "tunable_options", "weight_boxes",
           "write_set"]

VALIDATION_STREAM = 0x5EED  # the held-out master seed: this sub-stream of the tuning seed (no generation uses it)
GENERATION_STREAM = 1  # generation g's master seed: sub-stream 1 + g
CMA_STREAM = 1 << 20  # the optimiser's normal draws: a numpy Generator seeded from this sub-stream
DIGITS = 4  # significant digits of a tuned option: what is played is what the file holds
BOX_SCALE = 3.0  # a weight's box is ± BOX_SCALE × max(|default|, BOX_FLOOR)
BOX_FLOOR = 0.1


# -- the search space ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Box:
    """One tuned option: its name and the interval the search covers (mapped to ``[0, 1]``)."""

    name: str
    low: float
    high: float

    def to_unit(self, value: float) -> float:
        """``value`` in the box's normalised coordinate (0 = low, 1 = high), clipped."""
        return float(min(1.0, max(0.0, (value - self.low) / (self.high - self.low))))

    def from_unit(self, x: float) -> float:
        """The option value at normalised ``x``, rounded to :data:`DIGITS` significant digits."""
        return _round(self.low + (self.high - self.low) * min(1.0, max(0.0, float(x))))


def _round(value: float) -> float:
    return float(f"{value:.{DIGITS}g}")


def tunable_options(decl: AgentDecl, names: Sequence[str] | None = None) -> tuple[Param, ...]:
    """The options tuned: every float option of the agent, or the ``names`` given (each a float option)."""
    floats = {o.name: o for o in decl.options if o.kind is float}
    if names is None:
        if not floats:
            raise InputError(f"agent {decl.name!r} declares no numeric (float) options to tune")
        return tuple(floats.values())
    unknown = [n for n in names if n not in floats]
    if unknown or not names:
        raise InputError(f"agent {decl.name!r}: {', '.join(map(repr, unknown)) or 'no option'} cannot be tuned; "
                         f"tunable options: {', '.join(floats) or 'none'}")
    return tuple(floats[n] for n in dict.fromkeys(names))


def weight_boxes(options: Sequence[Param], scale: float = BOX_SCALE,
                 given: dict[str, tuple[float, float]] | None = None) -> tuple[Box, ...]:
    """A box per option: ``given`` ones, else ± ``scale`` × max(|default|, 0.1) (both signs: a weight may flip).

    A box is clipped to the option's declared range.
    """
    if not (isinstance(scale, (int, float)) and math.isfinite(scale) and scale > 0):
        raise InputError(f"box scale must be a positive number, got {scale!r}")
    boxes = []
    for opt in options:
        if given and opt.name in given:
            low, high = (float(v) for v in given[opt.name])
        else:
            half = scale * max(abs(float(opt.default)), BOX_FLOOR)
            low, high = -half, half
        low = max(low, opt.low) if opt.low is not None else low
        high = min(high, opt.high) if opt.high is not None else high
        if not low < high:
            raise InputError(f"option {opt.name!r}: box [{low}, {high}] is empty; allowed: {opt.allowed()}")
        boxes.append(Box(opt.name, _round(low), _round(high)))
    return tuple(boxes)


def spec_text(agent: str, values: dict[str, Any]) -> str:
    """``greedy:tower=1.2,wall=0.5`` — an agent spec with every option written out (floats by ``repr``)."""
    parts = [f"{k}={v!r}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items()]
    return agent + (":" + ",".join(parts) if parts else "")


# -- weight sets as data (read in core/model/agents.py, which resolves ``agent@set``; written here) -------------------
def card_hash(model: GameModel, params: dict[str, Any]) -> tuple[str, str]:
    """``(sha256, what)``: of the cards CSV in force when the game has a card table, else of the parameters."""
    return card_set_hash(model, params)


def set_path(model: GameModel, name: str) -> Path:
    """``<data folder>/agents/<name>.toml``."""
    return weight_set_path(model, name)


def tune_folder(model: GameModel, name: str) -> Path:
    """The checkpoint folder of a tuning run: ``<data folder>/agents/.<name>.tune/``."""
    path = weight_set_path(model, name)
    return path.parent / f".{name}.tune"


def set_names(model: GameModel) -> list[str]:
    """The weight sets the game holds, sorted."""
    return weight_set_names(model)


def load_set(model: GameModel, name: str) -> dict[str, Any]:
    """The weight set ``name`` as written by :func:`write_set`; an unknown name lists the sets there are."""
    return load_weight_set(model, name)


def expand_set(model: GameModel, spec: AgentSpec | str, params: dict[str, Any] | None = None) -> AgentSpec:
    """``greedy@tuned`` → the plain spec of the options the set holds (the card set checked with ``params``)."""
    return model.resolve_spec(spec, params)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"TOML cannot hold {value!r}")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items() if v is not None) + "}"
    raise TypeError(f"TOML cannot hold {type(value).__name__}")


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def to_toml(data: dict[str, Any], comment: str = "") -> str:
    """A small TOML writer: scalars and inline values first, then tables, then arrays of tables."""
    lines = [f"# {line}" for line in comment.splitlines()]

    def block(prefix: str, table: dict[str, Any]) -> None:
        scalars = {k: v for k, v in table.items() if v is not None and not _is_table(v) and not _is_tables(v)}
        if prefix:
            lines.append(f"\n[{prefix}]")
        lines.extend(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in scalars.items())
        for k, v in table.items():
            if _is_table(v):
                block(f"{prefix}.{_toml_key(k)}" if prefix else _toml_key(k), v)
        for k, v in table.items():
            if _is_tables(v):
                for row in v:
                    lines.append(f"\n[[{prefix + '.' if prefix else ''}{_toml_key(k)}]]")
                    lines.extend(f"{_toml_key(a)} = {_toml_value(b)}" for a, b in row.items() if b is not None)

    block("", data)
    return "\n".join(lines) + "\n"


def _is_table(v: Any) -> bool:
    return isinstance(v, dict)


def _is_tables(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(r, dict) for r in v) and \
        all(not any(isinstance(x, (dict, list)) for x in r.values()) for r in v)


def write_set(model: GameModel, name: str, data: dict[str, Any], force: bool = False) -> Path:
    """Write the weight set atomically; an existing set is replaced only with ``force``."""
    path = set_path(model, name)
    text = to_toml(data, f"weight set {name!r} for {model.name}'s {data['agent']}, written by `workbench tune`;\n"
                         f"play it as {data['agent']}@{name} (the options below are what is played)")
    tomllib.loads(text)  # what is written reads back
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}-{path.name}"
    tmp.write_text(text, encoding="utf-8")
    try:
        if force:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # fails if the set exists: never replaced silently, even by a racing writer
            except FileExistsError:
                raise InputError(f"{path} exists; give another --name, or --force to replace it") from None
    finally:
        tmp.unlink(missing_ok=True)
    return path


# -- the tuning run -------------------------------------------------------------------------------
@dataclass(frozen=True)
class TuneResult:
    """A finished tuning: the options found, the spec that plays them, the curve, the held-out result, the file."""

    options: dict[str, float]
    spec: str
    curve: list[dict[str, Any]]
    validation: dict[str, Any] | None
    path: Path | None
    data: dict[str, Any]


def _cells(model: GameModel, params: dict[str, Any] | Sequence[dict[str, Any]] | None) -> list[dict[str, Any]]:
    given = [params or {}] if params is None or isinstance(params, dict) else list(params)
    if not given:
        raise InputError("params: give at least one parameter set")
    return [model.resolve_params(p) for p in given]


def _start_values(model: GameModel, decl: AgentDecl, start: str | None) -> dict[str, Any]:
    spec = model.resolve_spec(AgentSpec(decl.name) if start is None else start)
    if spec.name != decl.name:
        raise InputError(f"start {str(spec)!r} is not agent {decl.name!r}")
    return decl.resolve_options(spec)


def _settings(model: GameModel, decl: AgentDecl, boxes: tuple[Box, ...], start: dict[str, Any],
              opponent: str | list[str],
              cells: list[dict[str, Any]], games: int, popsize: int, sigma: float, budget: int, seed: int,
              engine: str) -> dict[str, Any]:
    return {"game": model.name, "rules_version": model.rules_version, "agent": decl.name,
            "boxes": {b.name: [b.low, b.high] for b in boxes}, "start": start, "opponent": opponent,
            "params": cells, "games": games, "popsize": popsize, "sigma": sigma, "budget": budget, "seed": seed,
            "engine": engine, "optimiser": f"CMA-ES (cma {_cma().__version__})"}


def master_seeds(seed: int, generations: int, validate: bool = True) -> list[int]:
    """The master seeds a tuning with ``seed`` plays: each generation's (0..generations-1), then the held-out one.

    A caller that plays other games beside a tuning (a what-if's re-tune) checks its own seeds against these.
    """
    seeds = [stream_seed(seed, GENERATION_STREAM + g) for g in range(generations)]
    return seeds + ([stream_seed(seed, VALIDATION_STREAM)] if validate else [])


def _cma() -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # cma warns when matplotlib (its plots) is missing
            import cma
    except ImportError:  # pragma: no cover - depends on the environment
        raise InputError("tuning needs the cma package: pip install cma") from None
    return cma


def check_run_options(*, workers: Any = 1, seed: Any = 0) -> None:
    """The options every tuning run shares: ``workers`` a positive whole number, ``seed`` a whole number >= 0."""
    _check_positive(workers, "workers")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed must be a whole number >= 0, got {seed!r}")


def _check_positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InputError(f"{name} must be a positive integer, got {value!r}")
    return value


class _Optimiser:
    """CMA-ES over ``[0, 1]^d`` whose every normal draw comes from one seeded numpy Generator (replayable)."""

    def __init__(self, x0: list[float], sigma: float, popsize: int, seed: int) -> None:
        cma = _cma()
        rng = np.random.Generator(np.random.PCG64(stream_seed(seed, CMA_STREAM)))
        opts = {"bounds": [0.0, 1.0], "popsize": popsize, "seed": float("nan"), "verbose": -9,
                "randn": lambda *shape: rng.standard_normal(shape), "verb_log": 0, "verb_disp": 0,
                "tolfun": 0, "tolx": 0, "tolflatfitness": 10**9, "tolstagnation": 10**9}
        self.es = cma.CMAEvolutionStrategy(list(x0), sigma, opts)

    def ask(self) -> np.ndarray:
        return np.asarray(self.es.ask(), float)

    def centre(self) -> np.ndarray:
        es = self.es
        return np.asarray(es.gp.pheno(es.mean, into_bounds=es.boundary_handler.repair), float).clip(0.0, 1.0)

    def tell(self, xs: np.ndarray, scores: Sequence[float]) -> None:
        self.es.tell(list(xs), [-s for s in scores])  # cma minimises


def _score(block: list[Any], seat_of: list[int]) -> tuple[float, int, int, int]:
    """(score, wins, draws, n) of the tuned side over frames where it sat in seat ``seat_of[i]``."""
    wins = draws = n = 0
    for frame, seat in zip(block, seat_of, strict=True):
        winner = frame.get_column("winner")
        wins += int((winner == f"p{seat + 1}").sum())
        draws += int((winner == "draw").sum())
        n += frame.height
    return (wins + 0.5 * draws) / n, wins, draws, n


def _play(model: GameModel, lineups: list[tuple[str, str, int]], cells: list[dict[str, Any]], games: int,
          master: int, engine: str, workers: int, backend: str, scheduler: str | None,
          on_chunk: Callable[[int], None]) -> list[tuple[float, int, int, int]]:
    """Each lineup ``(a, b, _)`` as ``a`` vs ``b`` and swapped, ``games`` per cell (half each way), same seeds.

    Returns per lineup ``(score, wins, draws, n)`` of its first agent.
    """
    half = games // 2
    chunk = max(1, min(model.chunk_hint(engine), math.ceil(half / max(1, workers))))
    ref = model_ref(model)
    plan, args = [], []
    for i, (a, b, _) in enumerate(lineups):
        for c, cell in enumerate(cells):
            for seat, pair in ((0, (a, b)), (1, (b, a))):
                for lo, hi in plan_chunks(half, chunk):
                    plan.append((i, seat, c))
                    args.append((ref, cell, pair, master, lo, hi, engine))
    frames: dict[int, Any] = {}
    results = execute(model, args, workers, backend, scheduler)
    try:
        for j, frame in results:
            frames[j] = frame.select("winner")
            on_chunk(frame.height)
    finally:
        close(results)
    out = []
    for i in range(len(lineups)):
        idx = [j for j, (k, _, _) in enumerate(plan) if k == i]
        out.append(_score([frames[j] for j in idx], [plan[j][1] for j in idx]))
    return out


def _interval(wins: int, draws: int, n: int) -> tuple[float, float]:
    low, high = wilson(wins + 0.5 * draws, n)
    return float(low), float(high)


def _record(generation: int, evaluations: int, xs: np.ndarray, centre: np.ndarray,
            results: list[tuple[float, int, int, int]]) -> dict[str, Any]:
    scores = [r[0] for r in results[:-1]]
    best = int(np.argmax(scores))
    _, bw, bd, bn = results[best]
    mean_score, mw, md, mn = results[-1]
    blow, bhigh = _interval(bw, bd, bn)
    mlow, mhigh = _interval(mw, md, mn)
    return {"generation": generation, "evaluations": evaluations, "best": scores[best], "best_low": blow,
            "best_high": bhigh, "best_n": bn, "centre": mean_score, "centre_low": mlow, "centre_high": mhigh,
            "centre_n": mn, "x": xs.tolist(), "x_centre": centre.tolist(), "scores": scores}


def _held_out(opponent: str, result: tuple[float, int, int, int], master: int) -> dict[str, Any]:
    score, wins, draws, played = result
    low, high = _interval(wins, draws, played)
    losses = played - wins - draws
    return {"opponent": opponent, "n": played, "wins": wins, "draws": draws, "losses": losses, "score": score,
            "low": low, "high": high, "p_value": binom_pvalue(wins, wins + losses, 0.5), "master_seed": master,
            "test": "exact two-sided sign test of wins against losses (draws left out), rate ½"}


def _pool(results: Sequence[tuple[float, int, int, int]]) -> tuple[float, int, int, int]:
    """One candidate's games against every member of a population, pooled (each member plays the same games)."""
    wins, draws, n = (sum(r[i] for r in results) for i in (1, 2, 3))
    return (wins + 0.5 * draws) / n, wins, draws, n


def _validate(model: GameModel, spec: str, opponents: list[str], cells: list[dict[str, Any]], n: int, seed: int,
              engine: str, workers: int, backend: str, scheduler: str | None,
              on_chunk: Callable[[int], None]) -> dict[str, Any]:
    """The held-out result against the opponent, or against each member of a population and pooled.

    Every member plays the same held-out seeds; ``n`` games against each.
    """
    per_cell = 2 * math.ceil(n / (2 * len(cells)))
    master = stream_seed(seed, VALIDATION_STREAM)
    results = _play(model, [(spec, o, 0) for o in opponents], cells, per_cell, master, engine, workers, backend,
                    scheduler, on_chunk)
    if len(opponents) == 1:
        return _held_out(opponents[0], results[0], master)
    return {**_held_out(", ".join(opponents), _pool(results), master),
            "by_opponent": [_held_out(o, r, master) for o, r in zip(opponents, results, strict=True)]}


def held_out_check(game: str | GameModel, spec: str, *, params: dict[str, Any] | Sequence[dict[str, Any]] | None,
                   n: int, seed: int, opponent: str | Sequence[str] | None = None, engine: str = "fast",
                   workers: int = 1, backend: str = "local", scheduler: str | None = None,
                   on_games: Callable[[int], None] | None = None) -> dict[str, Any]:
    """The held-out check a tuning with seed ``seed`` and ``validate=n`` plays, played by ``spec`` instead.

    The same opponent(s) (default: ``spec``'s agent with its default options), cells, master seed and game
    indices, both seat orders, a draw counting half: on common random numbers with that tuning's own check,
    so a re-tune can compare the set it started from with what it found on the same games
    (``core/design/cardtable.py``'s ``retune_weights``).  Returns the same record as
    :attr:`TuneResult.validation`.
    """
    model = get_game(game)
    cells = _cells(model, params)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"n must be a whole number of held-out games >= 1, got {n!r}")
    check_run_options(workers=workers, seed=seed)
    given = [opponent or AgentSpec.parse(spec).name] if opponent is None or isinstance(opponent, str) \
        else list(opponent)
    opponents = list(dict.fromkeys(str(model.resolve_spec(o, cells[0])) for o in given))
    return _validate(model, str(model.resolve_spec(spec, cells[0])), opponents, cells, n, seed, engine, workers,
                     backend, scheduler, on_games or (lambda k: None))


def _read_state(folder: Path) -> dict[str, Any] | None:
    path = folder / "state.json"
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: the checkpoint is not readable JSON ({exc.msg}); start again with --force") from None


def _write_state(folder: Path, state: dict[str, Any]) -> None:
    from workbench.core.sim.store import write_json_atomic

    write_json_atomic(state, folder / "state.json")


def _replay(opt: _Optimiser, history: list[dict[str, Any]], folder: Path) -> None:
    for rec in history:
        xs = opt.ask()
        if not np.array_equal(xs, np.asarray(rec["x"], float)):
            raise InputError(f"{folder}: the checkpoint's generation {rec['generation']} does not replay (another "
                             "cma version?); start again with --force")
        opt.tell(xs, rec["scores"])


def tune(game: str | GameModel, agent: str = "greedy", *, name: str = "tuned", budget: int = 20_000, seed: int = 0,
         params: dict[str, Any] | Sequence[dict[str, Any]] | None = None, options: Sequence[str] | None = None,
         start: str | None = None, opponent: str | Sequence[str] | None = None, games: int = 200,
         popsize: int | None = None,
         sigma: float = 0.15, box_scale: float = BOX_SCALE, boxes: dict[str, tuple[float, float]] | None = None,
         validate: int = 2000, engine: str = "fast", workers: int = 1, backend: str = "local",
         scheduler: str | None = None, resume: bool = False, force: bool = False, write: bool = True,
         progress: bool = True, should_stop: Callable[[], bool] | None = None,
         command: str | None = None, checkpoint: bool = True,
         on_games: Callable[[int], None] | None = None, cycle: int | None = None) -> TuneResult:
    """Tune ``agent``'s float options by self-play and save them as the weight set ``name``.

    Args:
        game: the game (name or model).
        agent: the declared agent whose options are tuned (``greedy``).
        name: the weight set written (``<data folder>/agents/<name>.toml``), played as ``agent@name``.
        budget: games the tuning may play (generations × (popsize + 1) × games × cells; validation is extra).
        seed: the tuning's seed: generation seeds, the optimiser's draws and the held-out seeds derive from it.
        params: game parameters, or a list of parameter sets (cells) every candidate plays in turn.
        options: the options tuned (default: every float option of the agent).
        start: the spec the search starts from (default: the agent's defaults), e.g. ``greedy@tuned``.
        opponent: the spec every candidate plays (default: the agent with its default options), or a list of
            specs (a population): every candidate plays each member on the same seeds, and its objective is
            its score pooled over them (:mod:`workbench.core.skill.raising` builds populations round by round).
        games: games per candidate and cell, half in each seat (even).
        popsize: candidates per generation (default: CMA-ES's 4 + 3 ln d).
        sigma: the search's initial step in the normalised box.
        box_scale: a weight's box is ± box_scale × max(|default|, 0.1) unless ``boxes`` gives it.
        boxes: explicit ``{option: (low, high)}`` boxes.
        validate: held-out games of the result against the opponent, or each member of a population (0: none).
        engine: the engine (``fast``: compiled).
        workers: local workers (threads for compiled engines), or Dask workers.
        backend: ``local`` or ``dask``.
        scheduler: a Dask scheduler address (give one with ``backend='dask'``: without it every generation
            starts and stops a local cluster, the runner's behaviour for one run).
        resume: continue the checkpoint in ``.<name>.tune/`` (same settings needed).
        force: replace an existing set and discard an existing checkpoint.
        write: write the set file (False: return only).
        progress: show progress with rate and ETA.
        should_stop: polled after every generation; when true, stop (the checkpoint is kept).
        command: the command line to record in the set.
        checkpoint: keep the checkpoint folder ``.<name>.tune/`` (False: no file at all is read or written
            while tuning, so a stopped run leaves nothing behind and cannot be resumed; a what-if's re-tune).
        on_games: called with the number of games of every finished chunk (a caller's own progress count).
        cycle: cells a generation plays, taken in turn (generation g plays cells g·cycle, g·cycle + 1, …, modulo
            their number); every candidate of a generation plays the same cells.  Default: every cell.  Fewer
            cells a generation buy more games a cell (longer compiled chunks: Babylon's 25 deck pairings at
            4 games each spend most of their time building frames); the held-out games play every cell.

    Returns:
        The :class:`TuneResult`.

    Raises:
        InputError: for bad input (nothing is played or written).
        RunInterrupted: on Ctrl-C or ``should_stop``; resume with ``resume=True``.
    """
    model = get_game(game)
    decl = model.agent_decl(agent)
    budget, games = _check_positive(budget, "budget"), _check_positive(games, "games")
    check_run_options(workers=workers, seed=seed)
    if games % 2:
        raise InputError(f"games must be even (half in each seat), got {games}")
    if isinstance(validate, bool) or not isinstance(validate, int) or validate < 0:
        raise InputError(f"validate must be a whole number of games >= 0, got {validate!r}")
    if not (isinstance(sigma, (int, float)) and 0 < sigma <= 1):
        raise InputError(f"sigma must be in (0, 1] (a share of each box), got {sigma!r}")
    cells = _cells(model, params)
    tuned = tunable_options(decl, options)
    box = weight_boxes(tuned, box_scale, boxes)
    start_values = _start_values(model, decl, start)
    given = [opponent or decl.name] if opponent is None or isinstance(opponent, str) else list(opponent)
    if not given:
        raise InputError("opponent: give at least one agent spec (a population of none plays nothing)")
    opponents = list(dict.fromkeys(str(model.resolve_spec(o, cells[0])) for o in given))
    against: str | list[str] = opponents[0] if opponent is None or isinstance(opponent, str) else opponents
    popsize = popsize if popsize is not None else 4 + int(3 * math.log(len(box)))
    _check_positive(popsize, "popsize")
    if cycle is not None:
        _check_positive(cycle, "cycle")
        if cycle > len(cells):
            raise InputError(f"cycle {cycle} is more cells a generation than there are ({len(cells)})")
    per_gen_cells = len(cells) if cycle is None else cycle
    per_generation = (popsize + 1) * games * per_gen_cells * len(opponents)
    generations = budget // per_generation
    if generations < 1:
        raise InputError(f"budget {budget:,} games is less than one generation: ({popsize} candidates + the "
                         f"centre) × {games} games × {per_gen_cells} cell(s) × {len(opponents)} opponent(s) = "
                         f"{per_generation:,}")
    for cell in cells:
        for member in opponents:
            model.resolve_agents([member, member], cell)
            if engine == "fast" and not model.fast_supports((AgentSpec.parse(member), AgentSpec(decl.name)), cell):
                raise InputError(f"{model.name}: the compiled engine does not play {decl.name!r} or {member!r} "
                                 f"here (it plays {', '.join(model.fast_agents) or 'nothing'}); pass "
                                 "engine='reference'")
    hashes = {card_hash(model, cell) for cell in cells}
    if len(hashes) > 1:
        raise InputError("the cells play different card sets; tune one card set at a time")
    (chash, csource), = hashes
    target, folder = set_path(model, name), tune_folder(model, name)
    if write and target.exists() and not force:
        raise InputError(f"{target} exists; give another --name, or --force to replace it")
    if not checkpoint and resume:
        raise InputError("resume needs the checkpoint: a tuning without one (checkpoint=False) cannot be resumed")
    fixed = {k: v for k, v in start_values.items() if k not in {b.name for b in box}}
    settings = _settings(model, decl, box, start_values, against, cells, games, popsize, float(sigma), budget,
                         seed, engine)
    if cycle is not None:
        settings["cycle"] = cycle
    state = _read_state(folder) if checkpoint else None
    if resume and state is None:
        raise InputError(f"nothing to resume: {folder} holds no interrupted tuning of {name!r}; start without "
                         "--resume")
    if state is not None and not resume and not force:
        raise InputError(f"{folder} holds an unfinished tuning ({len(state['history'])} generations); continue it "
                         "with --resume, or start again with --force")
    # the budget only says how many generations to play: a resumed run may stop sooner or go further
    changed = [k for k in settings if k != "budget" and json.loads(json.dumps(settings[k])) != (state or {}).get(
        "settings", {}).get(k)]
    if resume and state is not None and changed:
        raise InputError(f"{folder}: --resume needs the same settings as the interrupted run; changed: "
                         f"{', '.join(changed)}")
    if state is None or not resume:
        if checkpoint and folder.exists():
            shutil.rmtree(folder)
        state = {"settings": settings, "history": []}
    state["settings"]["budget"] = budget
    history: list[dict[str, Any]] = state["history"][:generations]

    opt = _Optimiser([b.to_unit(float(start_values[b.name])) for b in box], float(sigma), popsize, seed)
    _replay(opt, history, folder)

    def values_at(x: Sequence[float]) -> dict[str, Any]:
        return {**fixed, **{b.name: b.from_unit(v) for b, v in zip(box, x, strict=True)}}

    total = generations * per_generation + validate * len(opponents)
    done = len(history) * per_generation
    bar = _bar(total, f"tune {model.name} {agent}", done) if progress else None
    show = bar.update if bar is not None else (lambda n: None)

    def tick(n: int) -> None:
        show(n)
        if on_games is not None:
            on_games(n)

    try:
        for g in range(len(history), generations):
            xs, centre = opt.ask(), opt.centre()
            specs = [spec_text(decl.name, values_at(x)) for x in [*xs, centre]]
            lineups = [(s, o, 0) for s in specs for o in opponents]
            master = stream_seed(seed, GENERATION_STREAM + g)
            turn = cells if cycle is None else [cells[(g * cycle + i) % len(cells)] for i in range(cycle)]
            played = _play(model, lineups, turn, games, master, engine, workers, backend, scheduler, tick)
            k = len(opponents)
            results = [_pool(played[i * k:(i + 1) * k]) for i in range(len(specs))]
            history.append(_record(g + 1, (g + 1) * per_generation, xs, centre, results))
            opt.tell(xs, history[-1]["scores"])
            if checkpoint:
                _write_state(folder, {"settings": state["settings"], "history": history})
            if should_stop is not None and g + 1 < generations and should_stop():
                raise KeyboardInterrupt
        found = values_at(opt.centre())
        spec = spec_text(decl.name, found)
        validation = None
        if validate:
            validation = _validate(model, spec, opponents, cells, validate, seed, engine, workers, backend,
                                   scheduler, tick)
    except KeyboardInterrupt:
        stopped = RunInterrupted(None, len(history) * per_generation, generations * per_generation)
        stopped.args = (f"interrupted after {len(history)} of {generations} generations ({stopped.done:,} games); "
                        f"they are kept in {folder}: continue with --resume (resume=True)" if checkpoint else
                        f"interrupted after {len(history)} of {generations} generations ({stopped.done:,} games); "
                        "nothing was kept (a tuning without a checkpoint)",)
        raise stopped from None
    finally:
        if bar is not None:
            bar.close()
    curve = [{k: v for k, v in rec.items() if not k.startswith("x") and k != "scores"} for rec in history]
    data = {"game": model.name, "name": name, "agent": decl.name, "spec": spec, "rules_version": model.rules_version,
            "card_hash": chash, "card_source": csource, "seed": seed, "budget": budget,
            "games_played": generations * per_generation, "generations": generations,
            "optimiser": settings["optimiser"], "command": command or "", "options": found,
            "tuning": {"opponent": against, "start": spec_text(decl.name, start_values), "popsize": popsize,
                       "games_per_candidate": games, "sigma": float(sigma), "engine": engine, "cycle": cycle,
                       "tuned": [b.name for b in box], "box": {b.name: [b.low, b.high] for b in box},
                       "params": [{k: v for k, v in c.items() if v is not None} for c in cells]},
            "validation": validation, "curve": curve}
    path = write_set(model, name, data, force) if write else None
    if checkpoint and folder.exists():
        shutil.rmtree(folder)  # finished: the set file (or the caller, with write=False) holds the curve
    return TuneResult(found, spec, curve, validation, path, data)


def _bar(total: int, label: str, initial: int) -> Any:
    from workbench.core.sim.progress import progress

    return progress(total, label, initial)
