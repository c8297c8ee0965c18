"""A rebalance in a report: its tables, what was searched, and a report-sized run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.design.rebalance.additive import additive_table
from workbench.core.design.rebalance.result import RebalanceResult
from workbench.core.design.rebalance.run import rebalance
from workbench.core.design.rebalance.space import _space_size
from workbench.core.design.rebalance.targets import targets_of
from workbench.core.errors import InputError
from workbench.core.model import GameModel, get_game


# -- a report section ----------------------------------------------------------------------------------------
def _rate(prefix: str, low: str = "low", high: str = "high") -> pl.Expr:
    """``<prefix>_score`` with its interval and n as a person reads it: ``51.2 % [48.1, 54.3] (n = 1000)``."""
    return pl.format("{} % [{}, {}] (n = {})", *(pl.col(f"{prefix}_{c}").mul(100).round(1)
                                               for c in ("score", low, high)), pl.col(f"{prefix}_n"))


def proposals_table(result: RebalanceResult) -> pl.DataFrame:
    """The proposals as a person reads them: plain labels, one column per tier."""
    p = result.proposals
    if p.height == 0:
        return pl.DataFrame({"Proposal": [], "Edits": []}, schema={"Proposal": pl.Int64, "Edits": pl.String})
    cols = [pl.col("proposal").alias("Proposal"), pl.col("edits").alias("Edits"),
            pl.col("n_edits").alias("Edits made"), pl.col("search_distance").round(2).alias(search_label(result))]
    for tier in result.tiers:
        if f"{tier} · distance" in p.columns and p.get_column(f"{tier} · distance").null_count() < p.height:
            # (none replayed, a run stopped before its held-out check: the status column says so, no column of nulls)
            cols.append(pl.col(f"{tier} · distance").round(2).alias(f"{tier}: points outside (held out, sum over "
                                                                    "items)"))
        if f"{tier} · status" in p.columns:
            cols.append(pl.col(f"{tier} · status").fill_null("not replayed").alias(f"{tier}: held out"))
    cols += [pl.col("holds").alias("Holds at every tier"), pl.col("verdict").alias("Verdict")]
    if "same_game" in p.columns and (p.get_column("same_game").fill_null("") != "").any():
        cols.append(pl.col("same_game").fill_null("").alias("Cells it makes one game"))
    return p.select(cols)


def search_label(result: RebalanceResult) -> str:
    """The search distance's column label: the tier(s) it was read at and what it sums."""
    tiers = result.search_tiers
    if len(tiers) > 1:
        return f"Search at {', '.join(tiers)}: points outside at the worst tier (sum over its items)"
    return f"Search at {tiers[0]}: points outside (sum over items)" if tiers else \
        "Search: points outside (sum over items)"


def verification_table(result: RebalanceResult) -> pl.DataFrame:
    """Per proposal, tier and targeted item: before → after with 95 % intervals and n, the band, inside?"""
    v = result.verification
    if v.height == 0:
        return pl.DataFrame()

    weights = []
    if "after_agent" in v.columns:  # a re-tuned run: which weights each row played
        refused = pl.col("retune_kept") == "shipped" if "retune_kept" in v.columns else pl.lit(False)
        # which weights, in words: a weight vector (hundreds of characters) is listed once per proposal and tier in
        # the re-tunes table, not on each of a tier's rows here (Babylon's table ran 20 rows of it off the page)
        weights = [pl.when(pl.col("retuned")).then(pl.lit("re-tuned for this proposal (its weights: the re-tunes "
                                                          "table)"))
                   .when(refused).then(pl.lit("as shipped (its re-tune for this proposal scored lower on held-out "
                                              "games, so it was not played)"))
                   .otherwise(pl.lit("as shipped")).alias("Weights played after")]
    status = [pl.col("after_status").alias("Status (undecided: too few games to tell)")] \
        if "after_status" in v.columns else []
    return v.select(pl.col("proposal").alias("Proposal"), pl.col("tier").alias("Tier"),
                    pl.col("metric_title").alias("Metric"), pl.col("item_title").alias("Item"),
                    pl.format("{}–{} %", pl.col("band_low").mul(100).round(2), pl.col("band_high").mul(100).round(2))
                    .alias("Band"), _rate("before", "score_low", "score_high").alias("Before"),
                    _rate("after", "score_low", "score_high").alias("After"),
                    pl.col("after_inside").alias("Inside the band"), *status, *weights)


def retunes_table(result: RebalanceResult) -> pl.DataFrame:
    """Per proposal and re-tuned tier: the set kept, both held-out scores (n, 95 % interval) and the weights played."""
    r = result.retunes()
    if r.height == 0:
        return pl.DataFrame()
    return r.select(pl.col("proposal").alias("Proposal"), pl.col("tier").alias("Tier"),
                    pl.format("vs {}", pl.col("opponent")).alias("Held out"),
                    _rate("retuned").alias("Re-tuned weights score"), _rate("shipped").alias("Shipped set score"),
                    pl.when(pl.col("kept") == "re-tuned").then(pl.lit("the re-tuned weights (at least as good)"))
                    .otherwise(pl.lit("the set as shipped (the re-tune scored lower)")).alias("Kept"),
                    # spaced after each comma, so a table too wide for its page wraps it between weights, never
                    # inside one ("playab / le_cap"); the CSV keeps the agent option as written
                    pl.col("weights").str.replace_all(r",(\S)", ", $1").alias("Weights played"),
                    pl.col("games").alias("Re-tune games"))


def full_command(result: RebalanceResult) -> str:
    """The command that runs the full search for this game (its default target, edit space and budget)."""
    return f"workbench rebalance {result.game} --out rebalance/{result.game}"


def searched_text(result: RebalanceResult) -> str:
    """What was searched, how much of the space, how the best were checked and what the budget bounded, in words."""
    singles = sum(len(d.deltas) for d in result.dims)
    trials = result.trials
    # distinct sets of edits: a set the search played on (a later stage) is one set, not one per trial
    tried = trials.filter(pl.col("n_edits") == 1).get_column("edits").n_unique() if trials.height else 0
    candidates = result.sets_searched
    space = _space_size(result.dims, result.max_edits or len(result.dims))
    tiers = result.search_tiers or result.tiers[:1]
    text = (f"Searched: {candidates:,} sets of edits of the {space:,} that change at most {result.max_edits} of the "
            f"{len(result.dims):,} editable values (among them {tried:,} of the {singles:,} single edits on their "
            "own), "
            f"on {result.games_searched:,} games at {', '.join(tiers)}; each set was played on the same games as the "
            "unchanged game, and the sets still close to the target played more. A set is judged by how many points "
            "its targeted rates lie outside their bands, summed over the rates at a tier")
    text += (", at its worst tier: a fix has to hold at every tier, so points won at one tier cannot pay for points "
             "lost at another." if len(tiers) > 1 else ".")
    if result.tier_games:
        fast = [t for t, g in result.tier_games.items() if g == result.verify_games_per_cell]
        text += (f" The best were replayed on games the search never saw (held-out seeds): "
                 f"{result.verify_games_per_cell:,} games a cell at {', '.join(fast)}")
        others = [f"{g:,} at {t}" for t, g in result.tier_games.items() if t not in fast and g]
        text += (f", {', '.join(others)}" if others else "") + "."
        if result.verify_note:
            text += f" Of the held-out check: {result.verify_note}."
    if result.retune:
        text += (f" Each weighted tier's weights were re-tuned for every replayed proposal ({result.retune:,} games "
                 "each, on other seeds): edited cards change best play; the held-out table names the weights played.")
        if result.retuned:
            kept = sum(r.accepted for r in result.retuned.values())
            text += (f" A re-tune was kept only when it scored at least as well as the set as shipped on the same "
                     f"held-out games (against the same opponent, both seat orders; a fifth of its games each): "
                     f"{kept} of {len(result.retuned)} kept, the others played the shipped set.")
    if result.verify_share:
        text += (f" The budget of {result.budget:,} games bounds the whole run: {100 * result.verify_share:g} % of it "
                 f"was kept for the held-out check; {result.games_searched:,} games searched and "
                 f"{result.games_verified:,} held out.")
    return text + " A score counts a draw as half a win; every rate with its 95 % Wilson interval and n."


def report_section(rep: Any, result: RebalanceResult, name: str = "rebalance") -> None:
    """A report section: the target, what was searched, the proposals and the held-out before → after tables.

    ``rep`` is a ``core.present.report.Report``; tables are written as ``<name>_proposals`` and ``<name>_verification``
    (and ``<name>_retunes`` when weight sets were re-tuned: the set kept and both held-out scores).
    """
    try:
        metrics = targets_of(result.game).all_metrics()
    except InputError:  # a game no longer registered (a result read back): the metrics' keys
        metrics = {}
    bands = ", ".join(b.text(metrics[b.metric].title if b.metric in metrics else None) for b in result.bands)
    text = f"Target: {bands}, at every tier ({', '.join(result.tiers)}). {result.summary()} {searched_text(result)}"
    rep.section("Rebalance: the smallest edits that reach the target", text)
    rep.table(f"{name}_proposals", proposals_table(result))
    if result.additive_note:
        rep.text(result.additive_note)
    if result.additive.height:
        rep.table(f"{name}_additive", additive_table(result),
                  caption="The additive model's best combinations: predicted from single edits, then played")
    table = verification_table(result)
    if table.height:
        rep.table(f"{name}_verification", table, caption="Held-out seeds: each targeted item before → after")
    retunes = retunes_table(result)
    if retunes.height:
        rep.table(f"{name}_retunes", retunes, caption="Weight sets re-tuned for each proposal: kept only when the "
                  "re-tuned weights score at least as well as the set as shipped on the same held-out games")


def budget_progress(report: Callable[[int, int], None], budget: int) -> Callable[[int, int, str], None]:
    """A rebalance's ``on_progress(done, total, phase)`` as one count against the whole run: ``report(done, total)``.

    While the search runs the total is the budget (the run may end sooner: the ETA is then an upper
    bound); once the held-out check starts, it is the games the search played plus the check's plan.
    A step's line then reads ``120,000/240,000 games (50 %), 4,000 games/s, ETA 30 s``, not "working".
    """
    searched = [0]

    def on_progress(done: int, total: int, phase: str) -> None:
        if phase == "search":
            searched[0] = done
            report(done, max(budget, done))
        else:
            report(searched[0] + done, searched[0] + max(total, done))

    return on_progress


REPORT_SEARCH = {  # a report's search: small enough for `make report`; `workbench rebalance` runs the full one
    # the budget bounds search and held-out check together: half of it each (120,000 games of search, as before)
    "full": {"budget": 240_000, "verify": 3, "margin": 0.015, "verify_share": 0.5, "slow_games": 1},
    # seconds: the fast tiers only (a search tier's game takes seconds), no re-tune
    "quick": {"budget": 8_000, "verify": 1, "margin": 0.1, "games": 4, "stages": 2, "verify_share": 0.5, "retune": 0},
}


def add_report_section(rep: Any, game: str | GameModel, *, quick: bool = False, seed: int = 0, workers: int = 2,
                       **overrides: Any) -> RebalanceResult | None:
    """Run a report-sized search for ``game``'s default target and edit space and add its section.

    The search's store goes to a temporary folder (the report keeps the proposals and held-out tables;
    a proposal's card set is in its table's edits).  The section says how small the search was and the
    command that runs the full one.  Nothing is added for a game without declared targets.
    """
    import tempfile

    from workbench.core.sim.progress import step

    model = get_game(game)
    if model.targets is None:
        return None
    from workbench.core.skill.tiers import default_tiers

    sizes = {**REPORT_SEARCH["quick" if quick else "full"], **overrides}
    if quick:
        sizes.setdefault("tiers", default_tiers(model))  # the fast tiers: a quick report's seconds
    with tempfile.TemporaryDirectory(prefix=f"{model.name}-rebalance-") as folder, \
            step(f"{model.name} report: rebalance, {sizes['budget']:,} games (search, then held-out seeds)") as shown:
        result = rebalance(model, out=Path(folder) / "search", seed=seed, workers=workers, keep=False,
                           on_progress=budget_progress(shown.report, sizes["budget"]), **sizes)
    report_section(rep, result)
    full = targets_of(model).budget
    how = "search and held-out check together" if result.verify_share else "of search; the held-out check beyond them"
    rep.text(f"This was a short search ({sizes['budget']:,} games {how}) so the report "
             f"stays quick; the full one ({full:,} games) is `{full_command(result)}` (add `--budget N` for more; "
             "`--resume` continues it), or the studio's Rebalance page.")
    return result
