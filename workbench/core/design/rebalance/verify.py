"""Verification: the best proposals replayed on held-out seeds at every tier, the run's size, the verdicts."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from workbench.core.design.cardtable import Retune, check_retune, retune_seed, retune_weights
from workbench.core.design.rebalance.play import _Context, _play, measure
from workbench.core.design.rebalance.race import _Race
from workbench.core.design.rebalance.result import RebalanceResult
from workbench.core.design.rebalance.space import Candidate
from workbench.core.design.rebalance.targets import targets_of
from workbench.core.errors import InputError
from workbench.core.model import AgentSpec, GameModel, get_game
from workbench.core.sim.seeding import game_seeds
from workbench.core.skill.tiers import Tier
from workbench.core.stats.rates import games_for_margin

# -- verification ------------------------------------------------------------------------------------------
SLOW_VERIFY = 1  # a search tier (a game there ~1,000 fast ones) replays the best proposal beside the unchanged game
SLOW_PHASE = "verify_slow"  # the progress phase of a search tier's held-out games (after the fast tiers' "verify")


def _share(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise InputError(f"verify_share must be a fraction of the budget from 0 up to (not including) 1, e.g. 0.25; "
                         f"got {value!r}")
    return float(value)


def _whole(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"{name} must be a positive whole number, got {value!r}")
    return value


def _fast(tiers: Sequence[Tier]) -> list[Tier]:
    """The tiers whose agent does not search at every decision (a first tier that does, when every one does)."""
    return [t for t in tiers if not t.slow] or list(tiers[:1])


def verify_plan(room: int | None, proposals: int, games: int, cells: int, fast: int, slow: int, retune: int,
                slow_games: int) -> tuple[int, int, int, int]:
    """How the held-out check fits ``room`` games: ``(proposals, games a cell)`` at the fast tiers, the same at slow.

    The unchanged game and each proposal replay ``games`` a cell (n for the margin) at each of the ``fast`` tiers,
    plus ``retune`` games a proposal (its re-tunes); at each of the ``slow`` tiers the unchanged game and the best
    ``SLOW_VERIFY`` proposal replay ``slow_games`` a cell.  When that is more than ``room`` (None: no bound), fewer
    proposals are replayed (down to the best), then fewer games a cell (a wider margin, said), then the slow tiers
    are left out; ``(0, 0, 0, 0)`` when not even one game a cell fits.
    """
    def cost(k: int, g: int, sk: int, sg: int) -> int:
        return verify_plan_cost(k, g, sk, sg, cells, fast, slow, retune)

    sg = slow_games if slow else 0
    if room is None:
        return proposals, games, min(proposals, SLOW_VERIFY) if slow else 0, sg
    for k in range(proposals, 0 if proposals else -1, -1):
        if cost(k, games, min(k, SLOW_VERIFY), sg) <= room:
            return k, games, min(k, SLOW_VERIFY) if slow else 0, sg
    k = min(proposals, 1)
    for sk, g_slow in ((min(k, SLOW_VERIFY) if slow else 0, sg), (0, 0)):
        g = (room - cost(k, 0, sk, g_slow)) // (fast * cells * (k + 1))
        if g >= 1:
            return k, min(g, games), sk, g_slow
    return 0, 0, 0, 0


def run_size(game: str | GameModel, *, budget: int | None = None, tiers: str | Sequence[str] | None = None,
             verify: int = 10, margin: float | None = None, verify_share: float | None = None,
             retune: int | None = None, slow_games: int | None = None) -> dict[str, Any]:
    """A run's whole size before it runs: games of the search and of the held-out check, and their time in fast games.

    Returns ``total`` (games the run plays at most: the budget, or with ``verify_share`` 0 the budget plus the
    held-out check sized by the margin), ``search`` (at most), ``verify`` (the held-out check's share, re-tunes
    included; the search may leave it more, never the run more than ``total``), ``retune`` (of those, the
    re-tunes' at most), ``slow`` (of those, games at search tiers, at most) with ``slow_tiers``, and
    ``fast_equivalent``: ``total`` with each search-tier game counted at its tier's cost in fast games (what a
    time estimate multiplies by a fast game's seconds).
    """
    from workbench.core.skill.tiers import default_tiers, parse_tiers

    model = get_game(game)
    targets = targets_of(model)
    budget = _whole("budget", targets.budget if budget is None else budget)
    share = _share(targets.verify_share if verify_share is None else verify_share)
    margin = targets.margin if margin is None else margin
    retune = check_retune(targets.retune if retune is None else retune)
    slow_games = _whole("slow_games", targets.slow_games if slow_games is None else slow_games)
    tier_list = parse_tiers(model, tiers or default_tiers(model, slow=True))
    fast = _fast(tier_list)
    slow = [t for t in tier_list if t not in fast]
    cells = len(targets.cells)
    weighted = [t for t in fast if AgentSpec.parse(t.agent).weight_set is not None] if retune else []
    k_slow = min(verify, SLOW_VERIFY)
    slow_n = len(slow) * cells * slow_games * (k_slow + 1)
    re_n = retune * len(weighted) * verify
    if share:
        search = budget - math.ceil(share * budget)
        held = budget - search
    else:  # the held-out check outside the budget: n for the margin per item, an item of one cell needing it there
        search = budget
        held = verify_plan_cost(verify, games_for_margin(margin), k_slow, slow_games, cells, len(fast), len(slow),
                                retune * len(weighted))
    slow_n, re_n = min(slow_n, held), min(re_n, held)
    slow_cost = sum(t.cost for t in slow) * cells * slow_games * (k_slow + 1) * (slow_n / max(1, len(slow) * cells
                                                                                              * slow_games
                                                                                              * (k_slow + 1)))
    total = search + held
    return {"total": total, "search": search, "verify": held, "retune": re_n, "slow": slow_n,
            "slow_tiers": tuple(t.label for t in slow), "fast_tiers": tuple(t.label for t in fast),
            "share": share, "fast_equivalent": total - slow_n + slow_cost}


def _status(table: pl.DataFrame, decided: bool) -> pl.DataFrame:
    """``table`` (:func:`measure`) with each item's ``status``: inside, outside or undecided.

    A tier whose held-out games give the margin (``decided``) reads each score against its band.  A tier played
    on fewer (a search tier's floor) reads the 95 % interval: inside when it lies within the band, outside when it
    lies beyond it, else undecided — too few games to tell.
    """
    if decided:
        status = pl.when(pl.col("inside")).then(pl.lit("inside")).otherwise(pl.lit("outside"))
    else:
        status = (pl.when((pl.col("score_low") >= pl.col("band_low")) & (pl.col("score_high") <= pl.col("band_high")))
                  .then(pl.lit("inside"))
                  .when((pl.col("score_high") < pl.col("band_low")) | (pl.col("score_low") > pl.col("band_high")))
                  .then(pl.lit("outside")).otherwise(pl.lit("undecided")))
    return table.with_columns(status.alias("status"))


def _tier_status(table: pl.DataFrame | None) -> str | None:
    """A tier's status over its items: outside when one is, else undecided when one is, else inside."""
    if table is None:
        return None
    found = set(table["status"].to_list())
    return "outside" if "outside" in found else "undecided" if "undecided" in found else "inside"


def _verify(ctx: _Context, result: RebalanceResult, chosen: list[Candidate], race: _Race, plan: list[int],
            master: int, holdout: int, searched: int, tiers: Sequence[Tier], agents: dict[str, str], margin: float,
            state: dict[str, Any], retune: int = 0, seed: int = 0, room: int | None = None,
            slow_games: int = 4) -> None:
    metrics, names = ctx.targets.all_metrics(), [b.metric for b in ctx.bands]
    base_counts = race.cache.get((), (0, {}, 0.0))[1]
    per_game = min((v[0] / (plan[race.cache[()][0]] * len(ctx.targets.cells))
                    for m in names for v in base_counts.get(m, {}).values()), default=0.0)
    need = games_for_margin(margin)
    cells = len(ctx.targets.cells)
    full = max(1, math.ceil(need / (per_game * cells))) if per_game > 0 else plan[-1]
    fast = _fast(tiers)
    slow = [t for t in tiers if t not in fast]
    weighted = [t for t in fast if AgentSpec.parse(t.agent).weight_set is not None] if retune else []
    k_fast, verify_games, k_slow, slow_g = verify_plan(room, len(chosen), full, cells, len(fast), len(slow),
                                                       retune * len(weighted), slow_games)
    unretuned = False
    if weighted and (verify_games == 0 or (verify_games < full and k_fast <= 1)):
        # the re-tunes crowd out the held-out games themselves: replay with the weight sets as shipped instead
        plain = verify_plan(room, len(chosen), full, cells, len(fast), len(slow), 0, slow_games)
        if plain[1] > verify_games:
            (k_fast, verify_games, k_slow, slow_g), weighted, unretuned = plain, [], True
    if verify_games == 0:
        result.verify_note = (f"the held-out check was not played: the {room or 0:,} games the budget left for it do "
                              f"not pay for one game a cell at {', '.join(t.label for t in fast)}; give a larger "
                              "budget")
        result.proposals = _proposal_rows(chosen, ctx, race, plan, {}, result.tiers, verified=False).with_columns(
            pl.lit("not verified (the budget left no games for the held-out check)").alias("verdict"))
        return
    most = max(verify_games, slow_g)
    search_seeds = game_seeds(master, 0, searched)
    held_seeds = game_seeds(holdout, 0, most)
    if np.intersect1d(search_seeds, held_seeds).size:  # never: asserted, so a change of seeding cannot hide it
        raise RuntimeError("rebalance: the held-out seeds overlap the search seeds")
    result.holdout_seed_range = (0, most)
    result.verify_games_per_cell = verify_games
    result.verify_margin = 1.96 * math.sqrt(0.25 / max(1.0, per_game * cells * verify_games)) if per_game else 0.0
    result.tier_games = {t.label: verify_games if t in fast else slow_g for t in tiers}
    result.tier_proposals = {t.label: k_fast if t in fast else (k_slow if slow_g else 0) for t in tiers}
    notes = []
    if unretuned:
        notes.append(f"the weight sets played as shipped: re-tuning them for each proposal ({retune:,} games each) "
                     "would have left too few held-out games in the budget's share")
        result.retune = retune = 0
    if k_fast < len(chosen):
        notes.append(f"the best {k_fast} of the {len(chosen)} proposals were replayed (the budget's share for the "
                     "held-out check paid for no more)")
    if verify_games < full:
        notes.append(f"{verify_games:,} held-out games a cell, not the {full:,} the margin asks: each rate reads "
                     f"±{100 * result.verify_margin:.1f} points, not ±{100 * margin:g}")
    for t in slow:
        if slow_g:
            notes.append(f"{t.label} (a game there costs about {t.cost:,.0f} at the fast tiers) replayed the unchanged "
                         f"game and the best proposal on {slow_g:,} games a cell: its status reads undecided unless "
                         "its intervals settle it")
        else:
            notes.append(f"{t.label} was not replayed: the budget's share for the held-out check did not pay for it")
    result.verify_note = "; ".join(notes)
    # the fast tiers' games, then the search tier's, each a phase of its own: a search game costs about a thousand
    # fast ones, so one count of both read "100 %, ETA 1 s" for the minutes the search tier still had to play
    state["total"] = verify_plan_cost(k_fast, verify_games, 0, 0, cells, len(fast), 0, retune * len(weighted))
    rows: list[pl.DataFrame] = []
    per: dict[tuple[Candidate, str], pl.DataFrame] = {}
    for k, tier in enumerate(tiers):
        games = result.tier_games[tier.label]
        if not games:
            continue
        if tier in slow and state["phase"] != SLOW_PHASE:
            state.update(phase=SLOW_PHASE, total=len(slow) * cells * slow_g * (k_slow + 1))
        decided = games >= full
        replayed = chosen[:result.tier_proposals[tier.label]]
        before = _status(measure(_play(ctx, (), agents[tier.label], holdout, 0, games, names)[0], ctx.bands,
                                 metrics), decided)
        per[((), tier.label)] = before
        for rank, candidate in enumerate(replayed, start=1):
            played, kept = agents[tier.label], None
            if tier in weighted:
                found = _retune(ctx, candidate, tier.agent, retune, retune_seed(seed, k * len(chosen) + rank - 1),
                                (master, search_seeds), (holdout, held_seeds))
                result.retuned[(rank, tier.label)] = found
                played, kept = found.spec, found.kept  # the set the acceptance kept: re-tuned or as shipped
            after = _status(measure(_play(ctx, candidate, played, holdout, 0, games, names)[0], ctx.bands, metrics),
                            decided)
            per[(candidate, tier.label)] = after
            rows.append(_before_after(rank, tier.label, before, after, (agents[tier.label], played, kept) if retune
                                      else None))
        if not chosen:
            rows.append(_before_after(0, tier.label, before, before, (agents[tier.label], agents[tier.label], None)
                                      if retune else None))
    result.verification = pl.concat(rows, how="vertical") if rows else pl.DataFrame()
    result.proposals = _proposal_rows(chosen, ctx, race, plan, per, result.tiers, verified=True)


def verify_plan_cost(k: int, games: int, k_slow: int, slow_games: int, cells: int, fast: int, slow: int,
                     retune: int) -> int:
    """The most games a held-out check of :func:`verify_plan`'s plan plays."""
    return fast * cells * games * (k + 1) + retune * k + (slow * cells * slow_games * (k_slow + 1) if slow_games
                                                           else 0)


def _retune(ctx: _Context, candidate: Candidate, agent: str, budget: int, seed: int,
            *played: tuple[int, np.ndarray]) -> Retune:
    """``agent``'s weight set re-tuned for the candidate's cells, accepted or not; its seeds apart from ``played``'s.

    The record's ``spec`` is the set the verification plays: the re-tuned weights when they scored at least as well
    as the set as shipped on the re-tune's own held-out games, else the shipped set.  Every game the re-tune played
    (its generations, its held-out check, the shipped set's comparison) is asserted apart from the search's and the
    verification's held-out seeds.
    """
    found = retune_weights(ctx.model, agent, ctx.cells(candidate, one_card_set=True), budget, seed,
                           workers=ctx.workers, should_stop=ctx.should_stop, on_games=ctx.progress)
    seeds = found.game_seeds()
    masters = {*found.master_seeds, *(int(v["master_seed"]) for v in (found.validation, found.shipped_validation)
                                      if v)}
    for master, games in played:  # never: asserted, so a change of seeding cannot hide it
        if master in masters or np.intersect1d(seeds, games).size:
            raise RuntimeError("rebalance: a re-tune's seeds (its tuning, held-out check or comparison with the "
                               "shipped set) overlap the search's or the held-out seeds")
    ctx.progress(max(0, budget - found.games))  # the bar at the planned count (a re-tune may play fewer)
    return found


def _before_after(rank: int, tier: str, before: pl.DataFrame, after: pl.DataFrame,
                  weights: tuple[str, str, str | None] | None = None) -> pl.DataFrame:
    """Before → after per item; ``weights`` (a re-tuned run): the agent before, after, and the set a re-tune kept.

    ``retuned`` is true when the re-tuned weights were played; ``retune_kept`` says which set the tier's re-tune
    kept (``re-tuned`` or ``shipped``), null where no weight set was re-tuned.
    """
    keys = ["metric", "item"]
    b = before.select(*keys, "metric_title", "item_title", "band_low", "band_high",
                      *(pl.col(c).alias(f"before_{c}") for c in ("score", "score_low", "score_high", "n", "inside",
                                                                 "status")))
    a = after.select(*keys, *(pl.col(c).alias(f"after_{c}") for c in ("score", "score_low", "score_high", "n",
                                                                       "inside", "distance", "status")))
    extra = [] if weights is None else [pl.lit(weights[0]).alias("before_agent"), pl.lit(weights[1]).alias(
        "after_agent"), pl.lit(weights[2] == "re-tuned").alias("retuned"),
        pl.lit(weights[2], dtype=pl.String).alias("retune_kept")]
    return b.join(a, on=keys, how="left", maintain_order="left").select(
        pl.lit(rank, dtype=pl.Int64).alias("proposal"), pl.lit(tier).alias("tier"), pl.all(), *extra)


def _baseline_holds(result: RebalanceResult) -> bool:
    v = result.verification
    return bool(v.height) and set(v["tier"]) == set(result.tiers) and bool(
        (v.filter(pl.col("proposal") == 0)["before_status"] == "inside").all())


def _proposal_rows(chosen: list[Candidate], ctx: _Context, race: _Race, plan: list[int],
                   per: dict[tuple[Candidate, str], pl.DataFrame], tiers: Sequence[str],
                   verified: bool) -> pl.DataFrame:
    rows, dims, before = [], ctx.dims, None
    for rank, candidate in enumerate(chosen, start=1):
        stage, _, distance = race.cache[candidate]
        row: dict[str, Any] = {"proposal": rank, "edits": "; ".join(dims[i].describe(d) for i, d in candidate),
                               "n_edits": len(candidate), "size": sum(abs(d) for _, d in candidate),
                               "search_distance": distance, "search_games_per_cell": plan[stage] if stage >= 0 else 0,
                               "search_inside": distance == 0}
        status = []
        for tier in tiers:
            after = per.get((candidate, tier))
            row[f"{tier} · distance"] = float(after["distance"].sum()) if after is not None else None
            row[f"{tier} · inside"] = bool(after["inside"].all()) if after is not None else None
            row[f"{tier} · status"] = _tier_status(after)
            status.append(row[f"{tier} · status"])
        row["holds"] = verified and all(x == "inside" for x in status)
        row["verdict"] = _verdict(verified, row["search_inside"], list(tiers), status)
        row["same_game"] = ""
        if any(dims[i].kind == "param" for i, _ in candidate):  # a card edit changes every cell using the card alike
            before = cell_configs(ctx, ()) if before is None else before  # the unchanged cells: worked out once
            row["same_game"] = same_game_cells(ctx, candidate, before)
        rows.append(row)
    schema: dict[str, Any] = {"proposal": pl.Int64, "edits": pl.String, "n_edits": pl.Int64, "size": pl.Int64,
                              "search_distance": pl.Float64, "search_games_per_cell": pl.Int64,
                              "search_inside": pl.Boolean}
    for tier in tiers:
        schema[f"{tier} · distance"] = pl.Float64
        schema[f"{tier} · inside"] = pl.Boolean
        schema[f"{tier} · status"] = pl.String
    schema.update({"holds": pl.Boolean, "verdict": pl.String, "same_game": pl.String})
    return pl.DataFrame(rows, schema=schema)


def same_game_cells(ctx: _Context, candidate: Candidate, before: Sequence[Any]) -> str:
    """The target cells ``candidate`` makes one game, in words (``""``: none); ``before``: the unchanged cells' configs.

    Two cells are one game when their rules are the same (equal configs: the same seeds play the same games);
    a proposal that gives two variants the same rules balances them by removing the difference between them
    (Babel's best once dealt 8 and 8 cards in both hand variants), which a designer should be told.  Cells that
    were one game already are not named.
    """
    after = cell_configs(ctx, candidate)
    merged, seen = [], set()
    for i in range(len(after)):
        if i not in seen:
            group = [j for j in range(i, len(after)) if after[j] == after[i]]
            seen.update(group)
            if any(before[j] != before[i] for j in group):
                merged.append(group)
    names = [" and ".join(cell_label(ctx.model, ctx.targets.cells[i]) for i in g) for g in merged]
    return "; ".join(f"{n} become one game (the same rules)" for n in names)


def cell_configs(ctx: _Context, candidate: Candidate) -> list[Any]:
    """Each target cell's config with the candidate's edits (what decides the cell's games)."""
    return [ctx.model.make_config(resolved) for _, resolved in ctx.resolved_cells(candidate)]


def cell_label(model: GameModel, cell: dict[str, Any]) -> str:
    """A target cell as a person reads it.

    Its parameters that name a choice (``start hands 3/5``, ``battlefield Crystal Garden``), else every value
    (``edge 2``).
    """
    params = {p.name: p for p in model.params}

    def chosen(key: str) -> bool:
        return key in params and bool(params[key].choices)

    shown = [(k, v) for k, v in cell.items() if chosen(k)] or list(cell.items())
    return ", ".join(f"{k.replace('_', ' ')} {model.choice_label(k, v) if chosen(k) else v}"
                     for k, v in shown) or "the game"


def _verdict(verified: bool, search: bool, tiers: list[str], status: list[str | None]) -> str:
    """A proposal's verdict in words: where it meets the target, where it misses, where too few games tell."""
    if not verified:
        return "not verified (the run stopped before the held-out games)"
    met = [t for t, x in zip(tiers, status, strict=True) if x == "inside"]
    open_ = [t for t, x in zip(tiers, status, strict=True) if x == "undecided"]
    unplayed = [t for t, x in zip(tiers, status, strict=True) if x is None]
    more = (f"; undecided at {', '.join(open_)} (too few held-out games there to tell)" if open_ else "") + (
        f"; not replayed at {', '.join(unplayed)}" if unplayed else "")
    if len(met) == len(tiers):
        return ("meets the target at every tier on held-out seeds" if search else
                "meets the target at every tier on held-out seeds (not on the search seeds)")
    if met:
        return f"meets the target only at {', '.join(met)} (held-out seeds){more}"
    if open_ and len(open_) + len(unplayed) == len(tiers):
        return f"undecided: too few held-out games at {', '.join(open_)} to tell" + (
            f"; not replayed at {', '.join(unplayed)}" if unplayed else "")
    return ("meets the target only on the search seeds" if search else "misses the target") + more
