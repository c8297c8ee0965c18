"""``workbench report babylon``: the designers' questions about Towers of Babylon as an offline report.

One grid of greedy games (every precon against every precon, in both seats, moving first and
second, every cell on the same master seed) answers the matchup, card and ending questions; the
compensation arms and the what-if replay the same games with one thing changed (common random
numbers), so every comparison is paired game by game.  Sizes follow the engine: with the compiled
engine the matrix holds 500 games per matchup and seat (:data:`FAST`); on the reference engine alone
it plays far fewer and says so in its header (the intervals say how little that is).

The full report is sized for ``make report`` (every report within about 8 minutes on 2 cores): the
search tier plays one game per matrix cell without a mirror match (its verdicts read *undecided:
play more*, with the games needed), the dead-card count 30 games per fast tier on the reference loop,
the readings 200 games per cell, the rebalance a short search at the fast tiers; the last section
states every step's size, its real seconds and what a bigger run would decide.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from workbench.core.design.balance import balance_chart
from workbench.core.design.readings import readings_table
from workbench.core.design.readings import report_section as readings_section
from workbench.core.design.rebalance import add_report_section as add_rebalance_section
from workbench.core.model import AgentSpec
from workbench.core.present.charts import rate_chart
from workbench.core.present.report import Report
from workbench.core.present.summary import rebalance_changes, tier_findings
from workbench.core.skill.tiers import (
    Tier,
    by_tier,
    cost_flags_by_tier,
    cost_flags_section,
    default_tiers,
    fast_tiers,
    first_seat_by_tier,
    report_section,
    report_tiers,
    side_of,
    tier_verdicts,
)
from workbench.core.stats import metrics
from workbench.core.stats.rates import wilson
from workbench.core.studies.metagame import RESAMPLES, metagame, metagame_sentence, metagame_table, pair_counts
from workbench.core.studies.study import get_study, play_grid
from workbench.games.babylon import analysis
from workbench.games.babylon import studies as st
from workbench.games.babylon.cards import load_cards, load_decks
from workbench.games.babylon.cardvalue import cardstats
from workbench.games.babylon.model import DECK_KEYS, MODEL

__all__ = ["FAST", "QUICK", "REFERENCE", "Settings", "build_report", "settings_for", "whatif_edit"]

AGENTS = ("greedy", "greedy")


@dataclass(frozen=True)
class Settings:
    """Sample sizes of one report build (games per deck_p1 × deck_p2 × first cell)."""

    matrix: int
    compensation: int  # per cell and arm; the rules' arm is the matrix's first games
    balance: int  # per cell and TP value tried
    evaluations: int
    whatif: int  # the edited arm; the baseline is the matrix's first games
    decks: tuple[str, ...]
    search: int = 0  # per cell at the declared search tier (0: the fast tiers only); a search game costs ~1,700 greedy
    dead: int = 30  # games per fast tier of the dead-card count (the reference loop: a few games a second)
    readings: int = 200  # games per target cell and reading
    tier_compensation: int = 50  # per pairing, arm and fast tier (section 6b)


# sized for make report (issue 38: every report within about 8 minutes on 2 cores): 500 games a cell reads a deck
# against the field to ±1.1 points and a pairing to ±2.2 at each fast tier; one search game a cell (a search game
# costs ~1,700 greedy games: the 40 cells without a mirror match, ~1 min on 2 cores) leaves the search tier's
# verdicts undecided, said so
FAST = Settings(500, 100, 100, 5, 250, DECK_KEYS, search=1)
REFERENCE = Settings(16, 8, 6, 3, 8, DECK_KEYS, dead=20, readings=40, tier_compensation=8)
QUICK = Settings(3, 2, 2, 2, 2, DECK_KEYS[:3], dead=10, readings=40, tier_compensation=2)


# the report-sized rebalance (full report, sized for make report): search and held-out check within 48,000 games
# (two racing stages, 40 % kept for the held-out check of the best proposal at the three fast tiers, ±4 points); no
# re-tune and no search tier here (a search-tier game costs ~1,700 greedy ones; make report's 160,000-game rebalance
# with re-tunes failed after 3.5 min on a re-tune of cells with different card sets): the full search
# (`workbench rebalance babylon`) does both
REBALANCE_SIZES = {"budget": 48_000, "margin": 0.04, "verify": 1, "retune": 0, "stages": 2, "verify_share": 0.4,
                   "tiers": "greedy,greedy@tuned,greedy@raised"}
REBALANCE_SIZES_QUICK: dict[str, Any] = {}  # the quick report: core's quick sizes (REPORT_SEARCH["quick"])

def settings_for(quick: bool, engine: str, games: int | None = None) -> Settings:
    """The sizes for the engine that will play; ``games`` overrides the matrix's (the others scale with it)."""
    s = QUICK if quick else FAST if engine == "fast" else REFERENCE
    if games is None:
        return s
    scale = games / s.matrix
    return Settings(games, *(max(1, round(n * scale)) for n in (s.compensation, s.balance)), s.evaluations,
                    max(1, round(s.whatif * scale)), s.decks, s.search, s.dead, s.readings,
                    max(1, round(s.tier_compensation * scale)))


def whatif_edit(costing: pl.DataFrame) -> dict[str, dict[str, int]]:
    """The report's example edit: the static model's most over-costed card, one cheaper."""
    row = costing.sort("residual", descending=True).row(0, named=True)
    card = load_cards()[row["id"]]
    if card.type == "Witchery":
        return {card.id: {"tp_cost": max(0, card.tp_cost - 1)}}  # type: ignore[operator]
    cost = max(0, card.power_cost - 1)  # type: ignore[operator]
    return {card.id: {"power_cost": cost, **({"specific_cost": cost} if card.specific_cost > cost else {})}}


def build_report(out_dir: Path, quick: bool = False, seed: int = 0, workers: int | None = None,
                 games: int | None = None) -> Path:
    """Write the Towers of Babylon report into ``out_dir``; ``quick`` plays a few hundred games (seconds).

    ``workers`` defaults to 1 for ``quick`` (its batches of a few games finish sooner on one worker: the
    readings took 6 s on one, 9 s on two, with the same table) and 2 otherwise.
    """
    workers = (1 if quick else 2) if workers is None else workers
    params = MODEL.resolve_params()
    engine = MODEL.resolve_engine(None, tuple(AgentSpec(a) for a in AGENTS), params)
    s = settings_for(quick, engine, games)
    decks = list(s.decks)
    rep = Report("Towers of Babylon (TCG): precon matchups, second-player compensation, card costs, endings", {},
                 game=MODEL.name)
    frame = _timed(rep, f"matrix: {s.matrix:,} games × {2 * len(decks) ** 2} cells", st.play, MODEL, decks,
                   s.matrix, list(AGENTS), {}, seed=seed, workers=workers)
    _matchups(rep, frame, decks, s)
    _compensation(rep, frame, decks, s, seed, workers)
    costing = _cards(rep, frame)
    _whatif(rep, frame, decks, s, costing, seed, workers)
    _endings(rep, frame)
    played = _tiers(rep, frame, decks, s, seed, workers)
    _metagame(rep, played, decks, s, seed)
    _dead_cards(rep, s.dead, seed)
    table = _timed(rep, f"readings: {s.readings:,} games per target cell and reading", readings_table, MODEL,
                   games=s.readings, seed=seed, workers=workers)
    readings_section(rep, table)
    # 20 pairings: a short search, held out at the fast tiers (its own progress line: games of the budget, ETA)
    started = time.perf_counter()
    sizes = REBALANCE_SIZES_QUICK if quick else REBALANCE_SIZES
    rebalanced = add_rebalance_section(rep, MODEL, quick=quick, seed=seed, workers=workers, **sizes)
    rep.record("rebalance", time.perf_counter() - started, games=f"a budget of {sizes.get('budget', 0):,} games "
               "(search and held-out check)" if sizes else "the quick search", bigger=BIGGER["rebalance"])
    rebalance_changes(rep, rebalanced)
    rep.meta.update({
        "rules_version": MODEL.rules_version, "seed": seed,
        "games": {"matrix, per deck pairing and first seat": s.matrix, "compensation, per cell and arm":
                  s.compensation, "TP search, per cell and value": s.balance, "what-if, per cell": s.whatif,
                  "search tier, per cell (mirror matches left out)": s.search, "dead cards, per tier": s.dead,
                  "compensation at the tiers, per pairing, arm and fast tier": s.tier_compensation,
                  "readings, per cell and reading": s.readings,
                  "rebalance budget": sizes.get("budget", "quick")},
        "agents": " vs ".join(AGENTS),
        "engine": "compiled (numba)" if engine == "fast" else
                  "reference (no compiled engine for these agents here: small sizes, wide intervals)",
        "decks": decks, "workers": workers, "quick": quick})
    rep.sizes_section("The report is sized for `make report` (about 8 minutes for every game's report on 2 cores); "
                      "`workbench report babylon` plays these sizes, the commands named play any size.")
    return rep.write(Path(out_dir))


# -- 6. the verdicts at every skill tier ----------------------------------------------------------------
COMPENSATION_ARMS = {"rules: +1 card, +1 TP": (1, 1), "+1 card only": (1, 0), "+1 TP only": (0, 1),
                     "no bonus": (0, 0)}


def deck_scores(frame: pl.DataFrame, decks: list[str]) -> pl.DataFrame:
    """Each deck against the field as a balance score (a draw counts half) with its verdict against 50 %."""
    table = analysis.deck_table(frame, decks)
    draws = (table["draws"] * table["n"]).round().cast(pl.Int64)
    score = (table["k"] + draws / 2).to_numpy()
    low, high = wilson(score, table["n"].to_numpy())
    names = {deck.key: deck.name for deck in load_decks().values()}
    return pl.DataFrame({"cell": [names.get(d, d) for d in table["deck"]], "n": table["n"], "draws": draws,
                         "rate": score / table["n"].to_numpy(), "low": low, "high": high}).with_columns(
        side_of(pl.col("low"), pl.col("high")).alias("verdict"))


def _tiers(rep: Report, frame: pl.DataFrame, decks: list[str], s: Settings, seed: int,
           workers: int) -> dict[str, pl.DataFrame]:
    """Deck against the field, each pairing, the first seat per compensation arm and the cost flags, per tier.

    The declared tiers (greedy, greedy@tuned, search): the search tier plays ``s.search`` games per matrix
    cell (a small sample: its verdicts may read *undecided: play more*), none in the quick report, and
    the compensation arms only at the fast tiers.  Returns the matrix's games at each tier, by its label.
    """
    tiers = report_tiers(MODEL, s.search > 0)
    played: dict[str, pl.DataFrame] = {}  # the matrix's games at each tier (greedy's are the report's own)

    def field(tier: Tier) -> pl.DataFrame:
        if tier.slow:  # no mirror match: its games count toward no deck against the field and no pairing
            played[tier.label] = pl.concat([play_grid(
                MODEL, {"deck_p1": [a], "deck_p2": [b for b in decks if b != a], "first": ["p1", "p2"]}, s.search,
                agents=[tier.agent] * 2, seed=seed, workers=workers) for a in decks], how="vertical_relaxed")
        else:
            played[tier.label] = frame if tier.agent == AGENTS[0] else st.play(
                MODEL, decks, s.matrix, [tier.agent] * 2, {}, seed=seed, workers=workers)
        return deck_scores(played[tier.label], decks)

    search = (f" and the search agent ({s.search:,} game{'s' if s.search > 1 else ''} per cell: a small sample whose "
              "verdicts read *undecided: play more* with the games needed)" if s.search else
              "; this build leaves the search tier out")
    table = _timed(rep, f"tier matrix: the matrix at {len(tiers)} tiers ({s.matrix:,} games a cell at a fast tier, "
                        f"{s.search:,} at search)", by_tier, tiers, field)
    report_section(rep, "decks_tiers", tier_verdicts(table, ["cell"], shown=("rate", "low", "high", "n", "draws")),
                   "6. Are the deck verdicts settled across skill levels?",
                   "Each precon against the field (mirror matches left out), played by the hand-tuned greedy agent, "
                   f"the self-tuned one (`workbench tune babylon`){search}; 'favoured' means stronger than the field.",
                   s.matrix * 2 * (len(decks) - 1) * 2, scored="the deck's score against the field")
    tier_findings(rep, "decks_tiers", "Deck vs the field, {cell}")
    pairs = by_tier(tiers, lambda tier: pairing_scores(played[tier.label], decks))
    report_section(rep, "pairings_tiers", tier_verdicts(pairs, ["cell"], shown=("rate", "low", "high", "n", "draws")),
                   "6a. Is every pairing's verdict settled across skill levels?",
                   "Each pairing of two precons, cell by cell (both seats and both first movers pooled, the same "
                   "games as section 6); the score is the first-named deck's.",
                   s.matrix * 2 * 2, scored="the first-named deck's score")
    tier_findings(rep, "pairings_tiers", "Pairing {cell} (the first-named deck's score)", top=2)
    cells = [{"second_cards": c, "second_tp": t, "deck_p1": decks, "deck_p2": decks}
             for c, t in COMPENSATION_ARMS.values()]
    arm_of = {bonus: name for name, bonus in COMPENSATION_ARMS.items()}
    fast = [t for t in tiers if not t.slow]
    comp = _timed(rep, f"tier compensation: {s.tier_compensation:,} games per pairing, arm and fast tier",
                  first_seat_by_tier, MODEL, fast, cells, s.tier_compensation, seed=seed, workers=workers,
                  label=lambda p: arm_of[(p["second_cards"], p["second_tp"])])
    report_section(rep, "compensation_tiers", comp, "6b. Second-player compensation at every skill level",
                   "The first seat's score per compensation arm (the second player's extra card and TP), pooled "
                   "over every deck pairing, at the fast tiers (20 pairings × 4 arms is too many for the search "
                   "tier here).", s.tier_compensation * len(decks) ** 2)
    tier_findings(rep, "compensation_tiers", "First seat score with second-player compensation {cell}", top=2)
    pool, deck_lists = load_cards(), load_decks()
    cards = cardstats.card_rates(frame, pool, deck_lists).height  # every card of the played precons

    def rates(games: pl.DataFrame, alpha: float) -> pl.DataFrame:
        return cardstats.card_rates(games, pool, deck_lists, alpha).with_columns(pl.col("name").alias("card"))

    flags = _timed(rep, "tier card flags: the matrix's games at each tier", cost_flags_by_tier, tiers,
                   {t: {"matrix": f} for t, f in played.items()}, rates, cards)
    cost_flags_section(rep, "card_flags_tiers", flags, "6c. Are the cards' cost flags settled across skill levels?",
                       "Each card's empirical view (as in section 5) from the matrix's games at each tier, over the "
                       "seat-games of the decks that hold it.", s.matrix * 2 * len(decks) ** 2)
    tier_findings(rep, "card_flags_tiers", "The card {card}, beyond its cost", value="beyond_cost", n="wr_drawn_n",
                  top=2)
    return played  # the matrix's games at each tier, by tier label (the metagame reads them: section 6d)


def _metagame(rep: Report, played: dict[str, pl.DataFrame], decks: list[str], s: Settings, seed: int,
              resamples: int = RESAMPLES) -> None:
    """The equilibrium mix of precons from the pairings at the strongest fast tier (section 6a's games, none more).

    Not the search tier: it plays ``s.search`` games per cell (4 × that per pairing), too few for a
    matrix whose every cell the mix depends on.
    """
    tier = fast_tiers(MODEL)[-1]
    names = {deck.key: deck.name for deck in load_decks().values()}
    game = _timed(rep, f"metagame: {resamples:,} resamples", metagame, pair_counts(played[tier.label]), decks,
                  names, resamples=resamples, seed=seed)
    table = metagame_table(game)
    sentence = metagame_sentence(table, game.resamples)
    pairing = int(game.games[~np.eye(len(decks), dtype=bool)].min())  # every pairing plays as many (the grid's)
    search = (f"The search tier plays {s.search:,} game{'s' if s.search > 1 else ''} per cell ({4 * s.search:,} per "
              "pairing: one game moves a "
              f"pairing's score by {100 / (4 * s.search):.1f} points), too few for a stable matrix, so the metagame "
              "is read at the strongest fast tier." if s.search else "This build leaves the search tier out.")
    rep.section("6d. The metagame: which precons would a competitive field play?", (
        f"The pairings of section 6a at the strongest fast tier, {tier.label} ({pairing:,} games per pairing), "
        "as a matrix of scores (the row deck's score against the column deck, both seats and both first movers "
        "pooled, a draw counts half) read as a symmetric zero-sum game and solved exactly (a linear program): the "
        "equilibrium mix is the field no deck beats on average. Every deck it plays scores 50 % against it, every "
        "deck it leaves out less (*score vs mix*). The mix need not be unique: *some equilibrium* asks every "
        "equilibrium (a second linear program per deck finds the most weight any of them gives it: *most weight*). "
        f"Intervals: the 2.5–97.5 % percentiles over {game.resamples:,} resamples of the games (each pairing's wins, "
        "draws and losses redrawn from its own shares and n, the game solved again; seeded), and *resamples "
        f"playing* is the share of them whose mix gives the deck more than 1 %. {search}"))
    rep.table("metagame", table.drop("key"), caption="Each precon's weight in the equilibrium mix (95 % interval over "
                                                      "the resamples) and its score against the mix")
    rep.chart("metagame_chart", rate_chart(table, "deck", rate="weight", low="weight_low", high="weight_high",
                                           reference=None, y_title="weight in the mix",
                                           title=f"The equilibrium mix of precons at {tier.label} (95 % interval)"),
              caption="Each precon's weight in the equilibrium mix")
    rep.text(sentence)
    worst = float(table["score_vs_mix"].min())  # how far the weakest precon falls short against the field: its weight
    rep.finding(sentence, status=None, weight=round(100 * (0.5 - worst), 6), anchor="metagame", tier=tier.label,
                resamples=game.resamples, n=pairing)


def pairing_scores(frame: pl.DataFrame, decks: list[str]) -> pl.DataFrame:
    """Each pairing of two different decks (once: the deck listed first in ``decks`` named first), its score.

    The first-named deck's balance score over every game of the pairing (both seats, both first movers;
    a draw counts half) with its 95 % Wilson interval and the verdict against 50 %.
    """
    names = {deck.key: deck.name for deck in load_decks().values()}
    rank = {d: i for i, d in enumerate(decks)}
    rows = analysis.seat_rows(frame, "both").filter(pl.col("deck") != pl.col("opponent"))
    rows = rows.filter(pl.col("deck").replace_strict(rank, default=None) <
                       pl.col("opponent").replace_strict(rank, default=None))
    out = rows.group_by("deck", "opponent").agg(pl.len().alias("n"), pl.col("won").sum().alias("wins"),
                                                pl.col("draw").sum().alias("draws"))
    out = out.sort(pl.col("deck").replace_strict(rank), pl.col("opponent").replace_strict(rank))
    score = (out["wins"] + out["draws"] / 2).to_numpy()
    low, high = wilson(score, out["n"].to_numpy())
    cell = [f"{names.get(a, a)} vs {names.get(b, b)}" for a, b in zip(out["deck"], out["opponent"], strict=True)]
    table = pl.DataFrame({"cell": cell, "n": out["n"], "draws": out["draws"], "rate": score / out["n"].to_numpy(),
                          "low": low, "high": high})
    return table.with_columns(side_of(pl.col("low"), pl.col("high")).alias("verdict"))


def _dead_cards(rep: Report, games: int, seed: int) -> None:
    """Cards no tier plays when it could, and whether the search agent plays each when offered the chance."""
    study = get_study(MODEL, "dead_cards")
    tiers = default_tiers(MODEL)  # the fast tiers: the search agent is asked about each dead card instead (below)
    tables = _timed(rep, f"dead cards: {games:,} games per fast tier on the reference loop", study.execute, MODEL,
                    {"games": games, "tiers": tiers}, seed=seed)
    dead = tables["dead"]
    rep.section("7. Dead cards: which cards does no agent play when it could?", (
        f"Default decks, {games:,} games per tier ({tiers.replace(',', ', ')} in both seats) on the reference loop, "
        "which asks at every decision which cards a legal action could play. A card played in at most 1 % of the "
        "games where it was playable, at every tier, is flagged: its empirical win rate measures a dead card in "
        "hand. " + (f"Flagged: {', '.join(dead['name'].to_list())}." if dead.height else "None is flagged.")))
    rep.table("dead_cards", dead)
    if "offered" in tables:
        rep.text("Offered the chance (the first position where each was playable), does the search agent play it?")
        rep.table("dead_cards_offered", tables["offered"])


def _timed(rep: Report, name: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """One step of the build: its progress line, its real seconds in the header and the sizes section.

    ``name`` is ``"<step>: <size in words>"``; what a bigger run of the step would decide is :data:`BIGGER`'s.
    """
    key, _, games = name.partition(": ")
    return rep.timed(key, f"babylon report: {name}", fn, *args, step_games=games, step_bigger=BIGGER.get(key, ""),
                     **kwargs)


BIGGER = {  # what a bigger run of each step would decide (the sizes section's last column)
    "matrix": "2,000 games a cell halve every interval (`workbench study babylon matchups --games 2000`)",
    "compensation": "more games a cell narrow each arm's first-seat score (`workbench study babylon compensation`)",
    "TP search": "more games a value pin the TP bonus between two values",
    "what-if": "more games a cell show smaller changes as significant (`workbench study babylon whatif`)",
    "tier matrix": "the search tier's verdicts need the games its *games needed* column says "
                   "(`workbench study babylon verdicts --games N`); the fast tiers settle more rows with more games",
    "tier compensation": "more games per arm and tier settle the arms that read *undecided*",
    "tier card flags": "more matrix games flag more cards (Bonferroni over every card)",
    "metagame": "more resamples steady the mix's intervals; more matrix games narrow them",
    "dead cards": "more games per tier flag rarer dead cards (`workbench study babylon dead_cards --games 200`)",
    "readings": "more games show smaller changes of a verdict (`workbench study babylon readings --games 1000`)",
    "rebalance": "the full search (`workbench rebalance babylon`, 2.5 M games) tries every edit at every tier",
}


def _named(frame: pl.DataFrame) -> pl.DataFrame:
    """The table a reader sees: deck keys replaced by the decks' display names (``siege_of_ur`` → Siege of Ur)."""
    names = {deck.key: deck.name for deck in load_decks().values()}
    return frame.with_columns(pl.col(c).replace(names) for c in ("deck", "opponent") if c in frame.columns)


def _cell_text(row: dict[str, Any], rate: str = "win") -> str:
    names = {deck.key: deck.name for deck in load_decks().values()}
    return (f"{names[row['deck']]} against {names[row['opponent']]}: {100 * row[rate]:.1f} % "
            f"[{100 * row[f'{rate}_low']:.1f}–{100 * row[f'{rate}_high']:.1f}], n = {row['n']:,}")


def _matchups(rep: Report, frame: pl.DataFrame, decks: list[str], s: Settings) -> None:
    tables = st.matchup_tables(frame, decks)
    charts = st.matchup_charts(tables)
    off = tables["matrix"].filter(pl.col("deck") != pl.col("opponent")).sort("win")
    uneven = off.filter(pl.col("significant"))
    rep.section("1. The precon matchup matrix", (
        f"Greedy against greedy. Every deck meets every deck with each deck in each seat and moving first and "
        f"second: {s.matrix:,} games per deck pairing and first seat, so a matchup of two decks pools "
        f"{4 * s.matrix:,} games ({2 * s.matrix:,} with the row deck moving first, {2 * s.matrix:,} moving second) "
        f"and a mirror match {2 * s.matrix:,} (its row deck is the one in seat p1). A cell is the row deck's "
        "share of *all* games against the column deck (a draw is not a win), with its 95 % Wilson interval; "
        "cell (A, B) and cell (B, A) read the same games, so their wins and the draws add up to n. "
        "`p_value` is the exact binomial test of the row deck's wins against its losses at 1/2: "
        "`significant` marks a matchup that is not even."))
    best = off.row(-1, named=True)
    rep.text(f"{len(uneven) // 2} of {len(off) // 2} matchups are uneven at the 5 % level (cells (A, B) and (B, A) "
             f"count once). The most uneven: {_cell_text(best)}.")
    rep.chart("matrix_chart", charts["matrix"], caption="Row deck's win rate against the column deck (95 % interval)")
    rep.table("matrix", _named(tables["matrix"]), max_rows=30,
              caption="The matrix: win rate, draws, moving first and moving second, the exact test against an even "
                      "matchup")
    rep.table("deck_vs_field", _named(tables["decks"]),
              caption="Each deck against the other decks (mirror matches left out)")
    rep.chart("deck_vs_field_chart", charts["decks"], caption="Each deck against the field")
    rep.table("matrix_seats", _named(tables["seats"]), max_rows=20,
              caption="The matrix per seat: the row deck moving first / second")
    rep.chart("matrix_seats_chart", charts["seats"], caption="Row deck's win rate moving first and second")


def _compensation(rep: Report, frame: pl.DataFrame, decks: list[str], s: Settings, seed: int, workers: int) -> None:
    def arms() -> pl.DataFrame:  # the rules' arm (+1 card, +1 TP) is the matrix's first games
        grids = ({"second_cards": [1], "second_tp": [0]}, {"second_cards": [0], "second_tp": [1, 0]})
        return pl.concat([st.play(MODEL, decks, s.compensation, list(AGENTS), {}, seed=seed, workers=workers, grid=g)
                          for g in grids], how="diagonal_relaxed")

    others = _timed(rep, f"compensation: {s.compensation:,} games × {2 * len(decks) ** 2} cells × 3 arms", arms)
    rules = frame.filter(pl.col("game_index") < s.compensation)
    games = pl.concat([rules, others], how="diagonal_relaxed")
    tables = st.compensation_tables(games)
    tables["arms"] = arm_scores(tables["arms"], games)
    rule = tables["arms"].row(0, named=True)
    with_card = tables["arms"].filter(pl.col("arm") == "+1 card")["first_seat_score"].item()
    cards = 0 if with_card < 0.5 else 1  # TP only helps the second seat: search it where 50 % is still ahead
    result = _timed(rep, f"TP search: {s.balance:,} games × {2 * len(decks) ** 2} cells × ≤{s.evaluations} "
                    "values", st.balance_tp, MODEL, decks, s.balance, list(AGENTS), {"second_cards": cards}, low=0,
                    high=6, evaluations=s.evaluations, seed=seed, workers=workers)
    rep.section("2. Second-player compensation", (
        "The second player draws one more card and starts with 1 Transformed Power. The first seat's score "
        "over all games (a win counts 1, a draw half; its win share and the draws beside it) in four arms, "
        f"{s.compensation:,} games per deck pairing and first "
        f"seat each, the same games in every arm (common random numbers): the rules' arm is the matrix's first "
        f"{s.compensation:,} games of each cell. Each arm is compared with the rules' game by game (McNemar's exact "
        f"test on the games whose first-seat win changed). With the rules the first seat scores "
        f"{100 * rule['first_seat_score']:.1f} % [{100 * rule['first_seat_score_low']:.1f}–"
        f"{100 * rule['first_seat_score_high']:.1f}] over {rule['first_seat_score_n']:,} games (draws "
        f"{100 * rule['first_seat_draws']:.1f} %)."))
    rep.table("compensation", tables["arms"], caption="First seat's score per arm (a draw counts half), then its win "
                                                      "rate over all games and decisive games (the exact p against "
                                                      "50 %) and draws")
    rep.table("compensation_paired", tables["comparison"], caption="Each arm against the rules' arm, paired by game")
    rep.text(_paired_sentences(tables["comparison"], "arm", "the rules' arm"))
    charts = st.compensation_charts(tables)
    rep.chart("compensation_chart", charts["arms"], caption="First seat's win rate per arm")
    rep.chart("compensation_paired_chart", charts["comparison"], caption="Change against the rules (paired)")
    rep.table("compensation_by_matchup", tables["pairs"], caption="First seat's win rate per arm and matchup",
              max_rows=20)
    why = (f"with +1 card alone the first seat already scores {100 * with_card:.1f} %, below 50 %, and more TP only "
           "helps the second seat, so the search starts from no extra card" if cards == 0 else
           f"with +1 card alone the first seat scores {100 * with_card:.1f} %")
    rep.text(f"**Auto-balance of the Transformed Power bonus**: a bracketing search of `second_tp` in [0, 6] for a "
             f"50 % first seat score (a draw counts half), the second player drawing {cards} extra "
             f"card{'' if cards == 1 else 's'} ({why}); "
             f"the whole deck grid, {s.balance:,} games per cell and value, the same games for every value. "
             f"Result: {result.summary()}.")
    rep.table("tp_search", result.points, caption="Each TP bonus tried: the first seat's wins, draws and score (a "
                                                  "draw counts half)")
    rep.chart("tp_search_chart", balance_chart(result, "Auto-balance of the second player's Transformed Power"),
              caption="First seat's win rate against the second player's starting TP")


def arm_scores(arms: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """The arms table with the first seat's score (a draw counts half) and its draws first, from the same games."""
    keys = ["second_cards", "second_tp"]
    scores = metrics.first_mover(games, keys).select(*keys, *(f"first_seat_{m}{end}" for m in ("score", "draws")
                                                               for end in ("", "_low", "_high", "_n")))
    joined = arms.join(scores, on=keys, how="left")
    first = ["arm", *keys, *scores.columns[2:]]
    return joined.select(*first, *(c for c in arms.columns if c not in first))


def _paired_sentences(table: pl.DataFrame, key: str, against: str) -> str:
    """One line per paired comparison: the change, its interval, p and whether it is significant."""
    lines = [f"- {row[key]} against {against}: {100 * row['diff']:+.1f} points [{100 * row['low']:+.1f}, "
             f"{100 * row['high']:+.1f}], exact paired p = {row['p_value']:.2g} ({row['discordant']:,} games changed "
             f"result): {'significant' if row['significant'] else 'not significant'} at 5 %."
             for row in table.iter_rows(named=True)]
    return "\n".join(lines) + ("\n\nThe paired test uses only the games whose result changed; the interval is the one "
                               "that test inverts, so it excludes 0 exactly when the change is significant.")


def _cards(rep: Report, frame: pl.DataFrame, lists: int = 8) -> pl.DataFrame:
    tables = st.card_tables(frame, lists=lists)
    model = tables["value_model"].row(0, named=True)
    rep.section("3. Card cost-efficiency, two ways", (
        "**Static value model**: least-squares exchange rates explaining each card's printed cost (power; TP for a "
        "Witchery) from its construction, might, health, number of keywords and what its text does (tower swing, "
        "cards drawn and Offerings, damage to minions, disruption), one intercept per card type; `paper` is the "
        "pool's own tuning of a minion (2 stat points per power, a keyword or trigger ≈ 1 power). "
        f"R² = {model['r2']:.2f}, RMSE = {model['rmse']:.2f} over {model['cards']} cards. A card whose cost is above "
        "its value is over-costed. **Empirical view**: from the matrix's games, each card over the seat-games of the "
        "decks that hold it: win rate when drawn and when played, play rate, and improvement when drawn (drawn "
        "against not drawn; a card drawn twice counts once; draws are not won) with 95 % intervals, n and the "
        "two-proportion test; improvement when drawn is put on the cost scale by the reduced-major-axis line "
        "through the cards. It measures the cards as the greedy agent plays them."))
    unplayed = tables["rates"].filter(pl.col("play_rate_n") > 0, pl.col("play_rate") < 0.01)
    if unplayed.height:
        rep.text("Greedy (almost) never plays " + ", ".join(f"{r['id']} {r['name']} ({r['type']}, played in "
                                                             f"{100 * r['play_rate']:.1f} % of {r['play_rate_n']:,} "
                                                             f"seat-games that drew it)"
                                                             for r in unplayed.iter_rows(named=True))
                 + ". Its one-step look-ahead sees no immediate gain in them (an Invocation acts only at the start "
                   "of the next turn), so the empirical view of these cards measures a dead card in hand, not the "
                   "card.")
    rep.table("value_model", tables["value_model"], caption="Fitted exchange rates (cost per unit) and type intercepts")
    rep.table("costed_cards", tables["costed"], caption=f"The {lists} most over- and under-costed cards by both "
                                                        "views (residual = cost − value)")
    charts = st.card_charts(tables)
    rep.chart("cost_vs_value", charts["cost_vs_value"], caption="Cost against value in both views; dashed: value = "
                                                                "cost, outliers labelled")
    rep.table("card_costing_static", tables["static"], caption="Static model: every card, most over-costed first",
              max_rows=60)
    rep.table("card_rates", tables["rates"].sort("iwd", descending=True, nulls_last=True),
              caption="Empirical rates per card, largest improvement when drawn first", max_rows=60)
    rep.chart("card_iwd", charts["iwd"], caption="Improvement when drawn per card (95 % interval); red: significant")
    return tables["static"]


def _whatif(rep: Report, frame: pl.DataFrame, decks: list[str], s: Settings, costing: pl.DataFrame, seed: int,
            workers: int) -> None:
    edits = whatif_edit(costing)
    baseline = frame.filter(pl.col("game_index") < s.whatif)
    tables = _timed(rep, f"what-if: {s.whatif:,} games × {2 * len(decks) ** 2} cells", st.what_if, MODEL, decks,
                    s.whatif, list(AGENTS), {}, edits, seed=seed, workers=workers, baseline=baseline)
    change = "; ".join(f"{r['id']} ({r['name']}) {r['column']} {r['before']} → {r['after']}"
                       for r in tables["edits"].iter_rows(named=True))
    moved = tables["matrix_delta"].filter(pl.col("significant"))
    rep.section("4. What-if: a designer's edit moves the matrix", (
        f"The static model's most over-costed card made one cheaper: {change}. The same {s.whatif:,} games per deck "
        "pairing and first seat with the edited cards and with the unchanged ones (the matrix's first games): every "
        "matchup's change of the row deck's win rate, paired game by game (McNemar's exact test). Matchups "
        "between decks without the edited card replay identically (a difference of 0). "
        f"Significant changes: {len(moved)} of {tables['matrix_delta'].height} cells (at 5 %, about one in twenty "
        "of the cells that hold the edited card may look significant by chance alone). The edit is a content-hashed "
        "copy of data/babylon/cards.csv (`workbench study babylon whatif --edits \"F10.power_cost=3\"`)."))
    rep.table("whatif_matrix", _named(tables["matrix_delta"]), caption="Row deck's win rate, unchanged and edited, per "
                                                               "matchup", max_rows=30)
    charts = st.whatif_charts(tables)
    rep.chart("whatif_matrix_chart", charts["matrix_delta"], caption="Change per cell, points (* significant)")
    rep.chart("whatif_cells_chart", charts["cells"], caption="Change per matchup with its 95 % interval")
    rep.table("whatif_card", tables["cards"], caption="The edited card's own rates in both arms (two-proportion test)")


def _endings(rep: Report, frame: pl.DataFrame) -> None:
    tables = st.ending_tables(frame)
    charts = st.ending_charts(tables | {"games": frame})
    rep.section("5. How games end, and the towers", (
        f"`tower`: a tower reached {MODEL.param('win_tower').default} levels (an immediate win); `count`: the higher "
        f"tower after both players' {MODEL.param('turns').default}th turn (equal: a draw). Each ending is split by "
        "who won it: the player who moved first or second. Every share with its 95 % interval and n."))
    rep.table("endings", tables["endings"], caption="How games end, all matchups")
    rep.chart("endings_chart", charts["endings"], caption="How games end per matchup")
    rep.table("endings_by_matchup", tables["endings_by_matchup"], max_rows=30)
    rep.table("draws", tables["draws"], caption="Draws per matchup")
    rep.table("length", tables["length"], caption="Game length in player turns (both seats), by how the game ended")
    rep.table("tower_margin", tables["margin"], caption="Final tower margin by how the game ended (within_2: share "
                                                        "decided by 2 levels or fewer)")
    rep.chart("tower_margin_chart", charts["margin"])
    rep.table("deck_tallies", tables["tallies"], caption="What each deck does per seat-game (means): levels built, "
                                                         "tower damage dealt, levels stolen, cards played, …")
    rep.chart("trajectories_chart", charts["trajectories"], caption="Each deck's own tower after each round, "
                                                                    "moving first vs second")
    rep.table("trajectories", tables["trajectories"], max_rows=20)
