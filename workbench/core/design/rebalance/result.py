"""The outcome of a rebalance: proposals, their checks on held-out seeds, and what the search did."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.design.cardtable import Retune
from workbench.core.design.rebalance.space import Dim
from workbench.core.design.rebalance.targets import Band, _title_of

# -- the result -----------------------------------------------------------------------------------------------
RETUNE_SCHEMA: dict[str, Any] = {  # retunes.csv: a row a proposal and re-tuned tier (RebalanceResult.retunes)
    "proposal": pl.Int64, "tier": pl.String, "agent": pl.String, "weights": pl.String, "kept": pl.String,
    "retuned_weights": pl.String, "retuned_score": pl.Float64, "retuned_low": pl.Float64, "retuned_high": pl.Float64,
    "retuned_n": pl.Int64, "shipped_weights": pl.String, "shipped_score": pl.Float64, "shipped_low": pl.Float64,
    "shipped_high": pl.Float64, "shipped_n": pl.Int64, "opponent": pl.String, "seed": pl.UInt64, "games": pl.Int64,
    "budget": pl.Int64, "why": pl.String}


@dataclass
class RebalanceResult:
    """A finished (or stopped) rebalance.

    ``proposals``: one row per proposal (edits in words, counts, search distance, per tier the held-out
    distance and whether every item is inside its band, ``holds`` at every tier, the verdict, the CSV);
    ``verification``: per proposal, tier and targeted item the score before → after with intervals;
    ``trials``: every search trial; ``baseline``: the unedited game on the search seeds.
    """

    game: str
    bands: tuple[Band, ...]
    dims: tuple[Dim, ...]
    proposals: pl.DataFrame
    verification: pl.DataFrame
    trials: pl.DataFrame
    baseline: pl.DataFrame
    tiers: tuple[str, ...]
    games_searched: int = 0
    games_verified: int = 0
    verify_games_per_cell: int = 0
    seconds: float = 0.0
    stopped: bool = False
    no_edits_needed: bool = False
    out: Path | None = None
    search_master: int = 0  # the search's master seed: game indices search_seed_range of it
    search_seed_range: tuple[int, int] = (0, 0)
    holdout_master: int = 0  # the held-out master seed: game indices holdout_seed_range of it
    holdout_seed_range: tuple[int, int] = (0, 0)
    files: list[Path] = field(default_factory=list)
    retune: int = 0  # games each re-tune of a tier's weight set for a proposal may play (0: none)
    retuned: dict[tuple[int, str], Retune] = field(default_factory=dict)  # (proposal, tier) → the re-tuned weights
    # the additive model's evidence (:func:`_additive_evidence`): its best combinations, predicted and measured
    additive: pl.DataFrame = field(default_factory=pl.DataFrame)
    additive_note: str = ""
    max_edits: int = 0  # most edits a candidate held
    budget: int = 0  # games the whole run might play (search, held-out check and re-tunes)
    verify_share: float = 0.0  # the budget's share kept for the held-out check (0: the check outside the budget)
    search_tiers: tuple[str, ...] = ()  # the tiers the search played (several: the worst one decides)
    tier_games: dict[str, int] = field(default_factory=dict)  # held-out games per cell at each tier (0: not played)
    tier_proposals: dict[str, int] = field(default_factory=dict)  # proposals replayed at each tier
    verify_margin: float = 0.0  # ± the held-out games give a targeted rate at 50 % at a fast tier (fraction)
    verify_note: str = ""  # what the held-out check could not afford, in words

    def retunes(self) -> pl.DataFrame:
        """Per proposal and tier whose weight set was re-tuned: the weights played and the acceptance behind them.

        ``weights`` is what the verification played; ``kept`` says whether that is the re-tuned set or the set as
        shipped; ``retuned_*`` and ``shipped_*`` are both sets' held-out scores on the same games against
        ``opponent`` (a draw half, 95 % Wilson interval, n); ``why`` says it in words.  ``retunes.csv`` holds it.
        """
        rows = [{"proposal": rank, "tier": tier, **{k: v for k, v in r.row().items() if k in RETUNE_SCHEMA}}
                for (rank, tier), r in sorted(self.retuned.items())]
        return pl.DataFrame(rows, schema=RETUNE_SCHEMA)

    @property
    def sets_searched(self) -> int:
        """Distinct sets of edits the search played: one count for the summary and the report's "Searched:".

        The unchanged game is not counted, and a set raced on through several stages counts once.
        """
        if not self.trials.height:
            return 0
        return self.trials.filter(pl.col("n_edits") > 0).get_column("edits").n_unique()

    def summary(self) -> str:
        """A line or two for a person: what was searched, what was found."""
        head = (f"{_title_of(self.game)}: {self.sets_searched:,} sets of edits searched over {len(self.dims)} "
                f"editable values, {self.games_searched:,} games; {self.games_verified:,} held-out games")
        if self.no_edits_needed:
            return head + "; the target is already met: no edits needed."
        if self.stopped:
            return head + "; stopped: the proposals below are what was found so far."
        good = self.proposals.filter(pl.col("holds")) if self.proposals.height else self.proposals
        if good.height:
            return head + f"; {good.height} proposal(s) meet the target at every tier."
        if self.proposals.height and "verdict" in self.proposals.columns:
            return head + (f"; no proposal meets the target at every tier. The best {self.proposals['verdict'][0]} "
                           "(every tier's distance below).")
        return head + "; no proposal meets the target at every tier (best distances below)."
