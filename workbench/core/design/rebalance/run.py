"""The entry point: :func:`rebalance` runs the search, verifies its best proposals, and saves them."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.design.cardtable import card_table, check_retune, retune_plan
from workbench.core.design.rebalance.additive import _additive_evidence
from workbench.core.design.rebalance.play import _Context, measure
from workbench.core.design.rebalance.race import SearchAgent, _Race, _stage_games
from workbench.core.design.rebalance.result import RebalanceResult
from workbench.core.design.rebalance.save import _save
from workbench.core.design.rebalance.search import _open_study, _pareto, _replay, _search, _settings, _trials_frame
from workbench.core.design.rebalance.space import Candidate, edit_space
from workbench.core.design.rebalance.targets import (
    HOLDOUT_STREAM,
    SEARCH_STREAM,
    check_measurable,
    one_card_set,
    parse_target,
    targets_of,
)
from workbench.core.design.rebalance.verify import (
    SLOW_PHASE,
    _baseline_holds,
    _fast,
    _proposal_rows,
    _share,
    _verify,
    _whole,
)
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import AgentSpec, GameModel, get_game
from workbench.core.rng import stream_seed


def rebalance(game: str | GameModel, *, target: str | None = None, edit: str | None = None,
              cards: str | None = None, budget: int | None = None, seed: int = 0,
              tiers: str | Sequence[str] | None = None,
              out: str | Path, resume: bool = False, max_edits: int | None = None, games: int | None = None,
              stages: int | None = None, factor: int = 4, population: int = 24, verify: int = 10,
              margin: float | None = None,
              screen: bool = True,
              workers: int = 1, backend: str = "local", scheduler: str | None = None,
              on_progress: Callable[[int, int, str], None] | None = None,
              should_stop: Callable[[], bool] | None = None,
              on_trial: Callable[[dict[str, Any]], None] | None = None, retune: int | None = None,
              keep: bool = True, verify_share: float | None = None, slow_games: int | None = None) -> RebalanceResult:
    """Search the smallest edits that bring every targeted metric inside its band; verify the best on held-out seeds.

    Args:
        game: the game (its ``targets`` declaration gives metrics, cells and defaults).
        target: bands, e.g. ``"first_seat=49..51"`` (default: the game's).
        edit: the edit spec, e.g. ``"power_cost:-1..+1, might:-1..+1"`` (default: the game's).
        cards: card key patterns, e.g. ``"F*,S*"`` (default: the game's, usually every card).
        budget: games the whole run may play — the search, the held-out check and any re-tunes (default: the
            game's); ``verify_share`` of it is kept for the held-out check, the search plays the rest, and the
            run never plays more (:func:`run_size`).
        seed: the rebalance seed (search seeds, held-out seeds and the sampler all derive from it).
        tiers: skill tiers for the verification (``core/skill/tiers.py``; default: every tier the game declares, its
            search tier included); the search plays the first fast tier (every fast tier when the game
            declares ``search_tiers``, the worst of them deciding).
        out: the output folder (``search.jsonl``, ``settings.json``, ``proposals/``).
        resume: continue the search stored in ``out``.
        max_edits: most edits per candidate (default: the game's).
        games: games per cell of the first racing stage (default: the game's).
        stages: racing stages (the last is where distances are compared; default: the game's).
        factor: each stage plays this many times the games of the one before.
        population: NSGA-II's population size.
        screen: play every one-edit candidate first (after the baseline), so the optimiser starts from
            each edit's own effect rather than from random combinations.
        verify: most proposals verified (the Pareto set's best by distance, then edits, then size).
        margin: the verification's games give every targeted item ±``margin`` at 50 % (default: the game's).
        workers: workers (threads for compiled engines).
        backend: ``local`` or ``dask``, as ``simulate`` (the same counts either way).
        scheduler: a Dask scheduler address (backend ``dask``).
        on_progress: ``on_progress(done, total, phase)`` in games, phase ``"search"``, ``"verify"`` (the held-out
            check at the fast tiers, re-tunes included) or ``"verify_slow"`` (at a search tier), each counted apart.
        should_stop: polled between chunks; true ends the run keeping everything found.
        on_trial: called with each finished trial's record (a test may raise in it to interrupt).
        retune: at verification, each tier whose agent names a weight set (``greedy@tuned``) plays each
            proposal with weights re-tuned for it, this many games each (0: the set as shipped; default: the
            game's ``Targets.retune``); counted in the held-out check's share of the budget.
        keep: store the search in ``out/search.jsonl`` (resumable); False keeps it in memory (a report's short
            search, which nobody resumes: nothing to write).  The same proposals.
        verify_share: the fraction of ``budget`` kept for the held-out check (default: the game's, 0.25); 0
            gives the whole budget to the search and sizes the held-out check by ``margin`` alone, outside the
            budget (how this command worked before budgets bounded the whole run).
        slow_games: games per cell a search tier (an agent that searches at every decision) replays on
            held-out seeds (default: the game's ``Targets.slow_games``): a floor, so its status may read undecided.

    Returns:
        A :class:`RebalanceResult`.
    """
    from workbench.core.skill.tiers import default_tiers, parse_tiers

    started = time.perf_counter()
    model = get_game(game)
    targets = targets_of(model)
    bands = parse_target(target if target is not None else targets.target, targets)
    dims = edit_space(model, edit, cards, targets)
    table = card_table(model)
    stages = targets.stages if stages is None else stages
    budget = targets.budget if budget is None else budget
    margin = targets.margin if margin is None else margin
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 < margin < 0.5:
        raise InputError(f"margin must be a fraction between 0 and 0.5 (0.01: ±1 point), got {margin!r}")
    for name, value in (("budget", budget), ("stages", stages), ("factor", factor), ("population", population),
                        ("verify", verify), ("games", games if games is not None else 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"{name} must be a positive whole number, got {value!r}")
    tier_list = parse_tiers(model, tiers or default_tiers(model, slow=True))
    agents = {t.label: str(model.resolve_spec(t.agent)) for t in tier_list}  # a weight set plays edited cards too
    retune = check_retune(targets.retune if retune is None else retune)
    share = _share(targets.verify_share if verify_share is None else verify_share)
    slow_games = _whole("slow_games", targets.slow_games if slow_games is None else slow_games)
    if retune:
        weighted = [t.agent for t in tier_list if AgentSpec.parse(t.agent).weight_set is not None]
        if not weighted:
            raise InputError(f"retune needs a tier that names a weight set (e.g. greedy@tuned); the tiers are "
                             f"{', '.join(t.agent for t in tier_list)}; or leave retune at 0")
        for agent in weighted:  # too small a budget is refused before any game
            retune_plan(model, agent, retune, len(targets.cells))
        if not one_card_set(model, targets):
            raise InputError(f"retune: {model.name}'s target cells play different card sets (or parameters), and a "
                             "weight set is re-tuned on one; give retune 0 (--retune 0)")
    # the search plays the first fast tier, or every fast tier (each tier's items apart, the worst tier deciding)
    # when the game declares so; a search tier only verifies (a game there costs ~1,000 fast games)
    fast = _fast(tier_list)
    search_agent: SearchAgent = agents[fast[0].label] if not targets.search_tiers or len(fast) < 2 else \
        tuple((t.label, agents[t.label]) for t in fast)
    max_edits = max_edits or targets.max_edits
    slots = None if len(dims) <= max_edits else max_edits
    first = games or targets.games
    plan = _stage_games(first, factor, stages)
    per_index = len(targets.cells) * (1 if isinstance(search_agent, str) else len(search_agent))
    search_budget = budget - math.ceil(share * budget)
    least = plan[-1] * per_index  # the unchanged game at every stage: the first candidate the search plays
    if search_budget < least:
        raise InputError(
            f"budget {budget:,}: the search's share ({search_budget:,} games; {100 * share:g} % is kept for the "
            f"held-out check) cannot play the unchanged game on every search game ({plan[-1]:,} a cell × "
            f"{len(targets.cells)} cells × {per_index // len(targets.cells)} tier(s) = {least:,}); give a budget "
            f"of at least {math.ceil(least / (1 - share)):,}, or fewer games or stages")
    check_measurable(model, targets, bands, seed)  # n = 0 for a targeted metric: refused before anything is written
    out = Path(out)
    settings = _settings(model, bands, dims, seed, first, stages, factor, slots, search_agent, targets)
    settings["screen"] = screen
    study, journal = _open_study(out, settings, resume, keep)
    try:  # the search's journal is closed however the run ends (a long-lived kernel runs many searches)
        master = stream_seed(seed, SEARCH_STREAM) % (2**63)
        holdout = stream_seed(seed, HOLDOUT_STREAM) % (2**63)
        played = {"search": 0, "verify": 0, SLOW_PHASE: 0}  # games played in each phase
        state = {"phase": "search", "total": search_budget}

        def tick(n: int) -> None:
            played[state["phase"]] += n
            if on_progress is not None:
                on_progress(min(played[state["phase"]], state["total"]), state["total"], state["phase"])

        ctx = _Context(model, targets, bands, dims, table, workers, backend, scheduler, should_stop, tick)
        ctx.on_memo = lambda n: tick(n) if state["phase"] != "search" else None  # the search's budget: games played
        race = _Race()
        replayed, ctx.additive_done = _replay(study, dims, race, len(plan) - 1, ctx.memo)
        used = [replayed]
        played["search"] = used[0]
        stopped = False
        metrics = targets.all_metrics()
        try:
            stopped = _search(ctx, study, race, plan, search_agent, master, seed, search_budget, slots, population,
                              used, on_trial, screen, factor)
        except (KeyboardInterrupt, RunInterrupted):
            stopped = True
        trials = _trials_frame(study, dims)
        base_key: Candidate = ()
        baseline = measure(race.cache[base_key][1], bands, metrics) if base_key in race.cache else measure({}, bands,
                                                                                                           metrics)
        chosen = _pareto(study, race, verify)
        met = base_key in race.cache and race.cache[base_key][0] == len(plan) - 1 and race.cache[base_key][2] == 0
        result = RebalanceResult(model.name, bands, dims, pl.DataFrame(), pl.DataFrame(), trials, baseline,
                                 tuple(t.label for t in tier_list), games_searched=used[0], stopped=stopped,
                                 no_edits_needed=False, out=out, retune=retune, budget=budget, verify_share=share,
                                 max_edits=max_edits,
                                 search_tiers=(search_agent,) if isinstance(search_agent, str) else tuple(
                                     label for label, _ in search_agent))
        if isinstance(search_agent, str):
            result.search_tiers = (fast[0].label,)
        if met:
            chosen = []
        searched = plan[-1]  # every search stage plays game indices below the last stage's count
        result.search_seed_range = (0, searched)
        result.search_master, result.holdout_master = master, holdout
        if not stopped:
            try:
                state.update(phase="verify", total=0)
                room = None if share == 0 else budget - used[0]  # the held-out check's share, and what the search left
                _verify(ctx, result, chosen, race, plan, master, holdout, searched, tier_list, agents, margin, state,
                        retune, seed, room, slow_games)
                result.no_edits_needed = met and bool(result.verification.height) and _baseline_holds(result)
            except (KeyboardInterrupt, RunInterrupted):
                result.stopped = True
        if result.proposals.height == 0 or "verdict" not in result.proposals.columns:
            result.proposals = _proposal_rows(chosen, ctx, race, plan, {}, result.tiers, verified=False)
        result.games_verified = played["verify"] + played[SLOW_PHASE]
        if slots is not None and screen and not ctx.groups and not result.stopped:  # a Stop returns at once
            result.additive, result.additive_note = _additive_evidence(ctx, race, search_agent, master, plan, slots)
        result.files = _save(model, table, dims, result, chosen, out)
        result.seconds = time.perf_counter() - started
        return result
    finally:
        if journal is not None:
            journal.close()
