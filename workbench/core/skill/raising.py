"""A loop that raises the agents: rounds of self-play tuning against a growing population, boxes widened at edges.

**Method: population self-play CMA-ES, round by round** (not expert iteration).  Each round is one
:func:`~workbench.core.skill.tune.tune` run of the agent's float options (greedy's weights) whose every candidate
plays *every member of the round's population* on the same seeds, both seats, over every cell of the
parameter grid (Babylon: every deck pairing), and is scored by its balance score pooled over them.  The
population of round ``r`` is the earlier tiers given (``greedy``, ``greedy@tuned``), every earlier round's
set (``greedy@<name>-r1`` …) and the round's start — itself: round ``r`` starts from round ``r - 1``'s set
(round 1 from ``start``, by default the last population member that is the agent, e.g. ``greedy@tuned``).
The population is fixed within a round, so every generation optimises one function (CMA-ES ranks like
with like, the curve reads on one scale, and a resumed round replays exactly); it grows between rounds, so
a set that only beats its own mirror, or only default greedy, does not survive the next round.

Why not expert iteration (fit the fast policy to the search's choices, then search with it): the search
costs about a thousand compiled rollouts a decision, so a data set of decisions large enough to fit even
17 weights is hours of one core; and greedy's weights score positions, not actions, so the fit would be
a ranking loss over the search's candidates whose optimum need not play better.  Self-play CMA-ES on
the compiled engine plays ~2,000-14,000 games a second on one core and optimises the thing asked for —
winning against the field — directly.  The search then uses the best fast policy for its rollouts and
prior (``core/skill/search.py``: ``rollout=best``), so the search is raised by the better policy.

**Acceptance.**  A round's set replaces its start only when it scores at least :data:`ACCEPT` (50 %) on the
held-out games against its start (itself, a member of its population); else the round keeps its start's
weights (``accepted = false``, the tuned weights kept as ``rejected_spec``).  Without it a round whose
noisy search drifted (CMA-ES's early steps in 17-20 dimensions) would hand the next round a weaker start.

**Boxes that widen.**  After a round (and before round 1, for the start), a weight within
:data:`EDGE` (5 %) of its box's width from an edge has that side moved out by :data:`WIDEN` × the box's
width (half the box: ``[-1.2, 1.2]`` with 1.19 found becomes ``[-1.2, 2.4]``), clipped to the option's
declared range; the next round searches the widened box.  Every widening is recorded.

**Data.**  Round ``r`` is written as the weight set ``<name>-r<r>`` (its own curve, its held-out score
against each member of its population with n and interval); the last round is also written as ``<name>``
with every round's curve (a ``round`` column), every round's held-out rows, the widenings and the
command, so ``workbench tune GAME --name raised --population greedy,greedy@tuned --rounds 3 …`` re-runs
it (e.g. with ``--cards`` for an edited card set).  A stopped loop continues with ``--resume``: finished
rounds are read back from their files (their settings checked), the interrupted round resumes from its
checkpoint.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError
from workbench.core.model import AgentDecl, AgentSpec, GameModel, get_game
from workbench.core.rng import MASK64, stream_seed
from workbench.core.skill.tune import (
    BOX_SCALE,
    Box,
    check_run_options,
    load_set,
    set_path,
    spec_text,
    tunable_options,
    tune,
    tune_folder,
    weight_boxes,
    write_set,
)

__all__ = ["EDGE", "WIDEN", "RaiseResult", "raise_agent", "round_name", "widen"]

EDGE = 0.05  # a weight within this share of its box's width from an edge is at the edge
WIDEN = 0.5  # ... and that side of the box moves out by this share of the box's width
ACCEPT = 0.5  # a round's set replaces its start only when it scores at least this, held out, against the start
ROUND_STREAM = 0x7A15E  # round r's tuning seed: this sub-stream + r of the loop's seed


@dataclass(frozen=True)
class RaiseResult:
    """A finished loop: the final options and spec, every round's data, the file of the final set."""

    options: dict[str, float]
    spec: str
    rounds: list[dict[str, Any]]
    path: Path | None
    data: dict[str, Any]


def round_name(name: str, r: int) -> str:
    """The weight set of round ``r``: ``<name>-r<r>``."""
    return f"{name}-r{r}"


def widen(boxes: Sequence[Box], values: dict[str, Any], decl: AgentDecl, edge: float = EDGE,
          by: float = WIDEN) -> tuple[tuple[Box, ...], list[dict[str, Any]]]:
    """The boxes with every side a value lies within ``edge`` × width of moved out by ``by`` × width.

    A value outside its box moves the side past it.  Returns the new boxes and one row per side moved.
    """
    limits = {o.name: o for o in decl.options}
    out, moved = [], []
    for box in boxes:
        value, width = float(values[box.name]), box.high - box.low
        low, high = box.low, box.high
        opt = limits[box.name]
        if value <= box.low + edge * width:
            low = min(box.low, value) - by * width
            low = max(low, opt.low) if opt.low is not None else low
        if value >= box.high - edge * width:
            high = max(box.high, value) + by * width
            high = min(high, opt.high) if opt.high is not None else high
        new = Box(box.name, float(f"{low:.4g}"), float(f"{high:.4g}"))
        if new != box:
            moved.append({"option": box.name, "value": value, "low_before": box.low, "high_before": box.high,
                          "low": new.low, "high": new.high})
        out.append(new)
    return tuple(out), moved


def _labels(model: GameModel, population: str | Sequence[str]) -> list[str]:
    items = population.split(",") if isinstance(population, str) else list(population)
    labels = [s.strip() for s in items if s and s.strip()]
    if not labels:
        raise InputError(f"{model.name}: population: give at least one agent spec, e.g. greedy,greedy@tuned")
    return labels


def _members(model: GameModel, labels: list[str]) -> dict[str, str]:
    """``{label: the options it plays}``, a label naming the same options as an earlier one left out (order kept).

    A member's weight set is not checked against the cards in force: an earlier tier tuned for other cards
    is still a sparring partner (what ``workbench tune --cards`` re-raises for an edited card set).
    """
    kept: dict[str, str] = {}
    for label in labels:
        spec = str(model.resolve_spec(label))
        if spec not in kept.values():
            kept[label] = spec
    return kept


def _stamp(settings: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _held_out_rows(r: int, labels: list[str], validation: dict[str, Any] | None) -> list[dict[str, Any]]:
    if validation is None:
        return []
    rows = validation.get("by_opponent") or [validation]
    keys = ("n", "wins", "draws", "losses", "score", "low", "high", "p_value")
    return [{"round": r, "opponent": label, **{k: row[k] for k in keys}}
            for label, row in zip(labels, rows, strict=True)]


def raise_agent(game: str | GameModel, agent: str = "greedy", *, name: str = "raised",
                population: str | Sequence[str] = "greedy,greedy@tuned", rounds: int = 3, budget: int = 20_000,
                seed: int = 0, params: dict[str, Any] | Sequence[dict[str, Any]] | None = None,
                options: Sequence[str] | None = None, start: str | None = None, games: int = 200,
                popsize: int | None = None, sigma: float = 0.15, box_scale: float = BOX_SCALE,
                boxes: dict[str, tuple[float, float]] | None = None, validate: int = 2000, engine: str = "fast",
                workers: int = 1, backend: str = "local", scheduler: str | None = None, resume: bool = False,
                force: bool = False, progress: bool = True, should_stop: Callable[[], bool] | None = None,
                command: str | None = None, cycle: int | None = None) -> RaiseResult:
    """Raise ``agent`` over ``rounds`` rounds of population self-play (module docstring); write ``<name>``.

    ``budget`` is each round's tuning budget (games); ``validate`` the held-out games against each member
    of a round's population.  The other arguments are :func:`~workbench.core.skill.tune.tune`'s.

    Raises:
        InputError: bad input, a set that exists (without ``force``), or ``resume`` with nothing to resume.
        RunInterrupted: on Ctrl-C or ``should_stop`` (polled after every generation); resume with ``resume``.
    """
    model = get_game(game)
    decl = model.agent_decl(agent)
    check_run_options(workers=workers, seed=seed)
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= 100:
        raise InputError(f"rounds must be a whole number from 1 to 100, got {rounds!r}")
    if resume and force:
        raise InputError("give --resume (continue the rounds kept) or --force (start again), not both")
    labels = _labels(model, population)
    cells = [params or {}] if params is None or isinstance(params, dict) else list(params)
    for label in labels:
        model.make_agent(model.resolve_spec(label))  # unknown agents, options and sets are refused here
    if start is None:
        mine = [s for s in labels if AgentSpec.parse(s).name == decl.name]
        start = mine[-1] if mine else decl.name
    tuned = tunable_options(decl, options)
    box = weight_boxes(tuned, box_scale, boxes)
    start_values = decl.resolve_options(model.resolve_spec(start))
    names = [round_name(name, r) for r in range(1, rounds + 1)]
    for n in (name, *names):
        set_path(model, n)  # a name that cannot be a set is refused before anything is played
    settings = {"game": model.name, "agent": decl.name, "population": labels, "start": start, "budget": budget,
                "seed": seed, "params": cells, "options": list(options or []), "games": games, "popsize": popsize,
                "sigma": sigma, "box_scale": box_scale, "boxes": boxes, "validate": validate, "engine": engine,
                "edge": EDGE, "widen": WIDEN, **({"cycle": cycle} if cycle is not None else {})}
    stamp = _stamp(settings)
    kept = [n for n in names if set_path(model, n).exists()]
    pending = [n for n in names if tune_folder(model, n).exists()]
    if set_path(model, name).exists() and not force:
        raise InputError(f"{set_path(model, name)} exists; give another --name, or --force to raise it again")
    if resume and not kept and not pending:
        raise InputError(f"nothing to resume: no round of {name!r} was kept ({set_path(model, names[0])} and its "
                         "checkpoint are missing); start without --resume")
    if (kept or pending) and not resume and not force:
        raise InputError(f"{name!r} has rounds kept ({', '.join(kept + pending)}); continue them with --resume, or "
                         "start again with --force")

    history: list[dict[str, Any]] = []
    widened: list[dict[str, Any]] = []
    box, moved = widen(box, start_values, decl)
    widened += [{"round": 0, **row} for row in moved]
    current = start
    for r in range(1, rounds + 1):
        members = _members(model, [*labels, *[f"{decl.name}@{n}" for n in names[:r - 1]], current])
        data = _round(model, decl, names[r - 1], r, rounds, members, current, box, stamp, settings, resume, force,
                      {"budget": budget, "params": cells, "options": options, "games": games, "popsize": popsize,
                       "sigma": sigma, "validate": validate, "engine": engine, "workers": workers,
                       "backend": backend, "scheduler": scheduler, "progress": progress,
                       "should_stop": should_stop, "cycle": cycle,
                       "seed": stream_seed(seed, ROUND_STREAM + r) & (MASK64 >> 1)},
                      command)
        history.append(data)
        current = f"{decl.name}@{names[r - 1]}"
        box, moved = widen(box, data["options"], decl)
        widened += [{"round": r, **row} for row in moved]
    return _finish(model, decl, name, history, widened, settings, box, force, command)


def _round(model: GameModel, decl: AgentDecl, set_name: str, r: int, rounds: int, members: dict[str, str], start: str,
           box: tuple[Box, ...], stamp: str, settings: dict[str, Any], resume: bool, force: bool,
           run: dict[str, Any], command: str | None) -> dict[str, Any]:
    """Round ``r``: read back when kept (resume), else tuned against ``members`` from ``start`` and written."""
    path = set_path(model, set_name)
    if resume and path.exists():
        data = load_set(model, set_name)
        if data.get("raise", {}).get("stamp") != stamp:
            raise InputError(f"{path}: --resume needs the settings of the interrupted loop (this round was raised "
                             "with others); start again with --force")
        return data
    found = tune(model, decl.name, name=set_name, start=start, opponent=list(members.values()),
                 boxes={b.name: (b.low, b.high) for b in box}, resume=resume and tune_folder(model, set_name).exists(),
                 force=force, write=False,
                 command=command, **run)
    data = dict(found.data)
    if found.validation is not None and "by_opponent" in found.validation:  # display names, not option lists
        rows = [{**row, "opponent": label} for row, label in zip(found.validation["by_opponent"], members,
                                                                  strict=True)]  # display names, in order
        data["validation"] = {**found.validation, "opponent": ", ".join(members), "by_opponent": rows}
    data["raise"] = {"round": r, "rounds": rounds, "stamp": stamp, "start": start, "population": list(members),
                     "method": "population self-play CMA-ES (workbench.core.skill.raising)"}
    data["held_out"] = _held_out_rows(r, list(members), found.validation)
    start_spec = str(model.resolve_spec(start))
    itself = [h for h, spec in zip(data["held_out"], members.values(), strict=False) if spec == start_spec]
    data["raise"]["accepted"] = not itself or itself[0]["score"] >= ACCEPT
    if not data["raise"]["accepted"]:  # worse than where it started: the round keeps its start
        kept = decl.resolve_options(model.resolve_spec(start))
        data["raise"]["rejected_spec"] = data["spec"]
        data["options"], data["spec"] = kept, spec_text(decl.name, kept)
    write_set(model, set_name, data, force=True)
    return data


def _finish(model: GameModel, decl: AgentDecl, name: str, history: list[dict[str, Any]],
            widened: list[dict[str, Any]], settings: dict[str, Any], box: tuple[Box, ...], force: bool,
            command: str | None) -> RaiseResult:
    last = history[-1]
    curve = [{"round": r, **row} for r, data in enumerate(history, 1) for row in data.get("curve", [])]
    summary = []
    for r, data in enumerate(history, 1):
        end = (data.get("curve") or [{}])[-1]
        summary.append({"round": r, "start": data["raise"]["start"], "population": ", ".join(
            data["raise"]["population"]), "generations": data.get("generations"), "games_played": data.get(
            "games_played"), "centre": end.get("centre"), "centre_low": end.get("centre_low"),
            "centre_high": end.get("centre_high"), "centre_n": end.get("centre_n"),
            "accepted": data["raise"].get("accepted", True), "spec": data["spec"]})
    at_edge = [row["option"] for row in widened if row["round"] == len(history)]
    data = {**{k: v for k, v in last.items() if k not in ("curve", "held_out", "raise", "validation")},
            "name": name, "command": command or "",
            "raise": {"method": "population self-play CMA-ES, rounds against a growing population "
                                "(workbench.core.skill.raising)",
                      "rounds": len(history), "population": settings["population"], "start": settings["start"],
                      "budget_per_round": settings["budget"], "edge": EDGE, "widen": WIDEN,
                      "at_edge_after_last_round": at_edge,
                      "next_box": {b.name: [b.low, b.high] for b in box}},
            "validation": last.get("validation"),
            "rounds": summary, "held_out": [row for data in history for row in data.get("held_out", [])],
            "widened": widened, "curve": curve}
    path = write_set(model, name, data, force=True)
    options = {k: v for k, v in last["options"].items()}
    return RaiseResult(options, last["spec"], history, path, data)
