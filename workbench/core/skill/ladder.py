"""Ratings: a round robin of a game's agents and tiers, fitted by Bradley–Terry with intervals.

Every pairing of two agents (any specs the game accepts: ``random``, ``greedy:tower=2``,
``search:budget=8``) plays ``games`` games through :func:`workbench.core.sim.runner.simulate` (the
compiled engine wherever it plays both agents): half with the first agent in seat p1, half with the
seats swapped, on the *same* master seed, so game ``i`` deals the same cards in every pairing and
in both seat orders (common random numbers).  In a game of more than two seats the two rated agents
take seats p1 and p2 and every other seat is played by a declared *filler* agent (``random`` by
default); a game won by a filler counts as a draw between the two (neither beat the other).

The fit is Bradley–Terry: agent ``i`` scores against ``j`` with probability
``σ(θ_i − θ_j)`` (σ the logistic function), a draw counting half a win for each side.  It is
solved here by Newton's method on the log-likelihood (concave; a few iterations) rather than with
``choix``: choix fits the strengths but returns no covariance, and the solver is a few lines with no
new dependency.  Each pairing carries one
virtual drawn game (half a win to each side: the Haldane–Anscombe correction of a log-odds), so an
agent that wins every game still gets a finite rating; with two agents the fit is then exactly
``logit((score + ½) / (n + 1))``, and its effect on a pairing of ``n`` games is ``1/(n + 1)``.

Intervals are ``rating ± 1.96·se`` from the observed Fisher information (for this logistic
model the observed and expected information coincide: ``Σ n_ij p_ij (1 − p_ij)`` over pairings);
with draws it is slightly conservative, since a drawn game varies less than a win or a loss.
:func:`bootstrap_intervals` (a parametric bootstrap: outcomes redrawn from the fitted
probabilities and the observed draw rates, then refitted) is the second method the tests compare
it with.  Ratings are anchored — ``random`` at 0 when it plays, else the mean at 0 — and shown also
as Elo points (``400 / ln 10 ≈ 173.7`` per unit, so 200 Elo points ≈ a 76 % score).  "Separated
from the next" means the agent's interval and the next lower-ranked agent's do not overlap
(conservative: a difference can be significant with overlapping intervals; against the anchor,
whose interval is a point, it is exactly the test of the difference); the ratings table therefore
also gives each gap to the next agent with its own interval, from the covariance.  A stopped round
robin (Stop in the studio, Ctrl-C) keeps and rates the pairings that finished.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import InputError, RunInterrupted, SettingError
from workbench.core.model import AgentSpec, GameModel, Param, get_game
from workbench.core.stats.rates import binom_pvalue, wilson, z_value

__all__ = ["ELO_PER_UNIT", "BradleyTerry", "Ladder", "bootstrap_intervals", "default_ladder_agents", "display_name",
           "fit_bradley_terry", "ladder_charts", "ladder_section", "pairing_counts", "parse_agents", "ratings_chart",
           "run_ladder", "study_declaration", "write_ladder_report"]

ELO_PER_UNIT = 400.0 / math.log(10.0)  # Elo points per unit of Bradley–Terry log-strength
VIRTUAL_DRAWS = 1.0  # virtual drawn games per pairing (half a win to each side)
DEFAULT_FILLER = "random"
MEAN = "mean"


# -- agents ---------------------------------------------------------------------------------------
def display_name(spec: str) -> str:
    """The name a reader sees: ``greedy:tower=2`` → ``greedy (tower=2)``, ``greedy@tuned`` → ``greedy (tuned)``."""
    parsed = AgentSpec.parse(spec)
    tag = getattr(parsed, "weight_set", None)
    extra = ([tag] if tag else []) + [f"{k}={v}" for k, v in parsed.options]
    return parsed.name.replace("_", " ") + (f" ({', '.join(extra)})" if extra else "")


def _split(text: str) -> list[str]:
    """``"random,search:budget=8,width=2,greedy"`` → agents (a ``k=v`` part belongs to the agent before it)."""
    agents: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if agents and "=" in part and ":" not in part:
            agents[-1] += "," + part
        else:
            agents.append(part)
    return agents


def parse_agents(model: GameModel, agents: str | Sequence[str]) -> tuple[str, ...]:
    """The ladder's agents as canonical specs, each checked by the game (at least two, none twice)."""
    items = _split(agents) if isinstance(agents, str) else list(agents)
    specs = tuple(str(AgentSpec.parse(a)) for a in items)
    for spec in specs:
        model.make_agent(spec)  # an unknown agent or option names what is allowed
    if len(specs) < 2:
        raise InputError(f"a ladder needs at least two agents, got {len(specs)}; e.g. 'random,greedy' "
                         f"(allowed: {', '.join(model.agents)})")
    twice = sorted({s for s in specs if specs.count(s) > 1})
    if twice:
        raise InputError(f"agent {twice[0]!r} is listed twice; give each agent once")
    return specs


def _pairings(agents: Sequence[str]) -> list[tuple[str, str]]:
    """Every unordered pair in list order: the first agent's pairings come first (a connected graph early)."""
    return [(a, b) for i, a in enumerate(agents) for b in agents[i + 1:]]


def _lineup(a: str, b: str, players: int, filler: str) -> list[str]:
    return [a, b] + [filler] * (players - 2)


# -- the fit ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BradleyTerry:
    """A Bradley–Terry fit: ``rating`` per agent (NaN when not connected to the anchor) and its covariance."""

    agents: tuple[str, ...]
    rating: np.ndarray
    cov: np.ndarray
    anchor: str
    virtual_draws: float
    iterations: int

    def se(self) -> np.ndarray:
        """Standard errors of the ratings (0 for an anchored agent)."""
        return np.sqrt(np.clip(np.diag(self.cov), 0.0, None))

    def interval(self, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``: the Wald interval ``rating ± z·se`` from the Fisher information."""
        z = z_value(confidence)
        return self.rating - z * self.se(), self.rating + z * self.se()

    def gap(self, i: int, j: int, confidence: float = 0.95) -> tuple[float, float, float]:
        """``(θ_i − θ_j, low, high)``: the difference of two ratings with its Wald interval (their covariance).

        Narrower than the two intervals side by side when the ratings move together (both measured
        against one anchor): the direct test of "i is stronger than j".
        """
        d = float(self.rating[i] - self.rating[j])
        half = z_value(confidence) * math.sqrt(max(self.cov[i, i] + self.cov[j, j] - 2 * self.cov[i, j], 0.0))
        return d, d - half, d + half

    def expected(self, i: int, j: int) -> float:
        """The fitted score of agent ``i`` against agent ``j``."""
        return float(1.0 / (1.0 + math.exp(self.rating[j] - self.rating[i])))


def _check_matrices(score: np.ndarray, games: np.ndarray) -> None:
    k = score.shape[0]
    if score.shape != (k, k) or games.shape != (k, k):
        raise InputError(f"score and games must be square matrices of one size, got {score.shape} and {games.shape}")
    if np.any(games < 0) or np.any(score < 0) or not np.allclose(games, games.T):
        raise InputError("games must be a symmetric matrix of non-negative counts, score non-negative")
    if not np.allclose(score + score.T, games):
        raise InputError("score[i, j] + score[j, i] must equal games[i, j] (a draw gives half a point to each side)")


def _component(games: np.ndarray, start: int) -> list[int]:
    """The agents connected to ``start`` by played pairings."""
    seen, todo = {start}, [start]
    while todo:
        i = todo.pop()
        for j in np.flatnonzero(games[i] > 0):
            if int(j) not in seen:
                seen.add(int(j))
                todo.append(int(j))
    return sorted(seen)


def _reach(edges: np.ndarray, start: int) -> set[int]:
    seen, todo = {start}, [start]
    while todo:
        i = todo.pop()
        for j in np.flatnonzero(edges[i]):
            if int(j) not in seen:
                seen.add(int(j))
                todo.append(int(j))
    return seen


def _check_exists(s: np.ndarray) -> None:
    """Finite maximum likelihood strengths exist iff every group of agents took points off the others.

    That is: the graph "i scored against j" is strongly connected (Zermelo 1929; Ford 1957).
    """
    k = s.shape[0]
    if len(_reach(s > 0, 0)) < k or len(_reach((s > 0).T, 0)) < k:
        raise InputError("the Bradley–Terry ratings do not exist: an agent (or a group of agents) won (or lost) "
                         "every game it played against the others; fit with virtual_draws > 0 (the ladder uses 1)")


def _loglik(theta: np.ndarray, s: np.ndarray, n: np.ndarray) -> float:
    d = theta[:, None] - theta[None, :]
    return float(np.sum(s * -np.logaddexp(0.0, -d)))


def _newton(s: np.ndarray, n: np.ndarray, max_iter: int = 100, tol: float = 1e-10) -> tuple[np.ndarray, int]:
    """Maximum likelihood strengths (mean 0) of score matrix ``s`` over ``n`` games, by damped Newton steps."""
    theta = np.zeros(s.shape[0])
    for it in range(1, max_iter + 1):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        grad = s.sum(axis=1) - (n * p).sum(axis=1)
        if np.max(np.abs(grad)) < tol * max(1.0, n.sum()):
            return theta, it
        info = _information(theta, n)
        step = np.linalg.pinv(info) @ grad
        base, t = _loglik(theta, s, n), 1.0
        while t > 1e-6 and _loglik(theta + t * step, s, n) < base - 1e-12:
            t /= 2
        theta = theta + t * step
        theta -= theta.mean()
    raise InputError(f"the Bradley–Terry fit did not converge in {max_iter} Newton steps")


def _information(theta: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Fisher information ``Σ n_ij p_ij (1 − p_ij) (e_i − e_j)(e_i − e_j)ᵀ`` (observed = expected here)."""
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    w = n * p * (1.0 - p)
    return np.diag(w.sum(axis=1)) - w


def fit_bradley_terry(score: Any, games: Any, agents: Sequence[str], anchor: str | None = None,
                      virtual_draws: float = VIRTUAL_DRAWS) -> BradleyTerry:
    """Fit Bradley–Terry strengths to a round robin's results.

    ``score[i, j]`` is what agent ``i`` scored against ``j`` (wins plus half the draws) and
    ``games[i, j]`` the games they played.  ``anchor`` is an agent held at 0, or ``"mean"`` (mean 0);
    ``None`` anchors ``random`` when it plays, else the mean.  Agents not connected to the anchor
    (through played pairings) get NaN.  ``virtual_draws`` virtual drawn games are added to every
    played pairing.
    """
    score, games = np.asarray(score, dtype=float), np.asarray(games, dtype=float)
    agents = tuple(agents)
    _check_matrices(score, games)
    if len(agents) != score.shape[0]:
        raise InputError(f"{len(agents)} agent names for a {score.shape[0]}×{score.shape[0]} table")
    if virtual_draws < 0:
        raise InputError(f"virtual_draws must be 0 or more, got {virtual_draws}")
    anchor = anchor or ("random" if "random" in agents else MEAN)
    if anchor != MEAN and anchor not in agents:
        raise InputError(f"anchor {anchor!r} is not one of the agents; allowed: {', '.join(agents)}, {MEAN}")
    root = agents.index(anchor) if anchor != MEAN else 0
    comp = _component(games, root)
    played = games[np.ix_(comp, comp)] > 0
    s = score[np.ix_(comp, comp)] + np.where(played, virtual_draws / 2, 0.0)
    n = games[np.ix_(comp, comp)] + np.where(played, virtual_draws, 0.0)
    if len(comp) == 1:  # nothing played: no agent has a rating yet
        nan = np.full(len(agents), np.nan)
        return BradleyTerry(agents, nan, np.full((len(agents), len(agents)), np.nan), anchor, float(virtual_draws), 0)
    _check_exists(s)
    theta, iterations = _newton(s, n)
    info = _information(theta, n)
    if anchor == MEAN:
        cov_c = np.linalg.pinv(info)  # the covariance under the constraint Σθ = 0
    else:
        r = comp.index(root)
        theta = theta - theta[r]
        keep = [i for i in range(len(comp)) if i != r]
        cov_c = np.zeros_like(info)
        if keep:
            cov_c[np.ix_(keep, keep)] = np.linalg.inv(info[np.ix_(keep, keep)])
    rating = np.full(len(agents), np.nan)
    cov = np.full((len(agents), len(agents)), np.nan)
    rating[comp] = theta
    cov[np.ix_(comp, comp)] = cov_c
    return BradleyTerry(agents, rating, cov, anchor, float(virtual_draws), iterations)


def bootstrap_intervals(fit: BradleyTerry, games: Any, draws: Any = None, reps: int = 1000, seed: int = 0,
                        confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Parametric bootstrap percentile intervals of ``fit``'s ratings (the second method beside Fisher's).

    Each replicate redraws every pairing's games from the fitted probabilities (a draw with the
    pairing's observed draw rate, ``draws[i, j] / games[i, j]``; none when ``draws`` is None) on a
    seeded numpy Generator, and refits with the same anchor and virtual draws.
    """
    games = np.asarray(games, dtype=float)
    draws = np.zeros_like(games) if draws is None else np.asarray(draws, dtype=float)
    rng = np.random.default_rng(seed)
    k = len(fit.agents)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k) if games[i, j] > 0]
    out = np.empty((reps, k))
    for r in range(reps):
        score = np.zeros((k, k))
        for i, j in pairs:
            n, d = int(games[i, j]), draws[i, j] / games[i, j]
            p = fit.expected(i, j)
            win = min(max(p - d / 2, 0.0), 1.0 - d)
            w, dr, loss = rng.multinomial(n, [win, d, max(1.0 - win - d, 0.0)])
            score[i, j], score[j, i] = w + dr / 2, loss + dr / 2
        out[r] = fit_bradley_terry(score, games, fit.agents, fit.anchor, fit.virtual_draws).rating
    tail = (1 - confidence) / 2
    return np.quantile(out, tail, axis=0), np.quantile(out, 1 - tail, axis=0)


# -- counts and tables -----------------------------------------------------------------------------------
def pairing_counts(frame: pl.DataFrame, agents: Sequence[str]) -> pl.DataFrame:
    """Per ordered pair (agent, opponent) of a ladder's games: n, wins, draws, losses, filler wins.

    The two rated agents sit in seats p1 and p2 (their specs as the ladder named them in ``ladder_p1``,
    ``ladder_p2``, else ``agent_p1``, ``agent_p2``: a weight set ``greedy@tuned`` is played, and stamped
    in ``agent_p1``, as the options it holds); a game won by another
    seat (a filler) is counted in ``filler_won`` and scored as a draw.
    """
    if frame.height == 0:
        return pl.DataFrame(schema={"agent": pl.String, "opponent": pl.String, "n": pl.Int64, "wins": pl.Int64,
                                    "draws": pl.Int64, "losses": pl.Int64, "filler_won": pl.Int64})
    p1, p2 = ("ladder_p1", "ladder_p2") if "ladder_p1" in frame.columns else ("agent_p1", "agent_p2")
    return _counts(frame.group_by(pl.col(p1).alias("agent"), pl.col(p2).alias("opponent"), pl.col("winner"))
                   .agg(pl.len().cast(pl.Int64).alias("k")), agents)


def _tally(part: pl.DataFrame, first: str, second: str) -> pl.DataFrame:
    """The games of one seat order (``first`` in p1), counted by winner: rows agent, opponent, winner, k.

    Counted as each part finishes, so the tables of a stopped ladder work on these few rows, not on its
    millions of games (their count took seconds after Stop).  A filler's win is counted under ``p3``.
    """
    winner = part["winner"]
    k: dict[str | None, int] = {w: int((winner == w).sum()) for w in ("p1", "p2", "draw")}
    k[None] = winner.null_count()  # counted as pairing_counts counts it: a game, neither side's
    k["p3"] = part.height - sum(k.values())
    return pl.DataFrame({"agent": [first] * len(k), "opponent": [second] * len(k), "winner": list(k),
                         "k": list(k.values())}, schema={"agent": pl.String, "opponent": pl.String,
                                                         "winner": pl.String, "k": pl.Int64}).filter(pl.col("k") > 0)


def _counts(seat: pl.DataFrame, agents: Sequence[str]) -> pl.DataFrame:
    """:func:`pairing_counts` of games tallied per (agent in p1, opponent in p2, winner): ``k`` games each."""
    if seat.height == 0:
        return pairing_counts(pl.DataFrame(), agents)
    a = seat.with_columns(pl.col("winner").replace_strict({"p1": "win", "p2": "loss"}, default="other",
                                                          return_dtype=pl.String).alias("result"))
    b = seat.select(pl.col("opponent").alias("agent"), pl.col("agent").alias("opponent"),
                    pl.col("winner").replace_strict({"p2": "win", "p1": "loss"}, default="other",
                                                    return_dtype=pl.String).alias("result"),
                    pl.col("winner"), pl.col("k"))
    both = pl.concat([a.select("agent", "opponent", "result", "winner", "k"),
                      b.select("agent", "opponent", "result", "winner", "k")])
    counts = both.group_by("agent", "opponent").agg(
        pl.col("k").sum().cast(pl.Int64).alias("n"),
        pl.col("k").filter(pl.col("result") == "win").sum().cast(pl.Int64).alias("wins"),
        pl.col("k").filter(pl.col("result") == "other").sum().cast(pl.Int64).alias("draws"),
        pl.col("k").filter(pl.col("result") == "loss").sum().cast(pl.Int64).alias("losses"),
        pl.col("k").filter((pl.col("result") == "other") & (pl.col("winner") != "draw")).sum().cast(pl.Int64)
        .alias("filler_won"))
    order = {a: i for i, a in enumerate(agents)}
    return counts.with_columns(pl.col("agent").replace_strict(order, return_dtype=pl.Int64).alias("_i"),
                               pl.col("opponent").replace_strict(order, return_dtype=pl.Int64).alias("_j")) \
        .sort("_i", "_j").drop("_i", "_j")


def _matrices(counts: pl.DataFrame, agents: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    k = len(agents)
    index = {a: i for i, a in enumerate(agents)}
    score, games, draws = np.zeros((k, k)), np.zeros((k, k)), np.zeros((k, k))
    for row in counts.iter_rows(named=True):
        i, j = index[row["agent"]], index[row["opponent"]]
        score[i, j] = row["wins"] + row["draws"] / 2
        games[i, j] = row["n"]
        draws[i, j] = row["draws"]
    return score, games, draws


def pairwise_table(counts: pl.DataFrame, agents: Sequence[str], fit: BradleyTerry, players: int = 2,
                   engines: dict[tuple[str, str], str] | None = None, alpha: float = 0.05) -> pl.DataFrame:
    """One row per played pairing (the earlier-listed agent first): the agent's score with its interval.

    ``score`` is (wins + draws / 2) / n with its 95 % Wilson interval; ``p_value`` is the exact
    two-sided binomial test of wins against losses at 1/2 (draws left out, a sign test);
    ``fitted`` is the Bradley–Terry prediction of the score (far from ``score``: the ratings do not
    explain this pairing, e.g. a rock-paper-scissors cycle).
    """
    index = {a: i for i, a in enumerate(agents)}
    rows = []
    for r in counts.iter_rows(named=True):
        i, j = index[r["agent"]], index[r["opponent"]]
        if i > j:
            continue
        points = r["wins"] + r["draws"] / 2
        low, high = wilson(points, r["n"])
        p = binom_pvalue(r["wins"], r["wins"] + r["losses"])
        row = {"agent": display_name(r["agent"]), "opponent": display_name(r["opponent"]), "n": r["n"],
               "wins": r["wins"], "draws": r["draws"], "losses": r["losses"]}
        if players > 2:
            row["filler_won"] = r["filler_won"]
        row.update({"score": points / r["n"], "score_low": low, "score_high": high, "p_value": p,
                    "significant": p < alpha,
                    "fitted": fit.expected(i, j) if not math.isnan(fit.rating[i] + fit.rating[j]) else None,
                    "agent_spec": r["agent"], "opponent_spec": r["opponent"]})
        if engines is not None:
            row["engine"] = engines.get((r["agent"], r["opponent"]))
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)


def _number(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def ratings_table(fit: BradleyTerry, counts: pl.DataFrame, confidence: float = 0.95) -> pl.DataFrame:
    """One row per agent, best first: rank, rating and Elo with intervals, separation, games and score.

    ``separated_from_next``: this agent's interval and the next lower-ranked agent's do not overlap.
    ``ahead_of_next`` says in words whether this agent is established ahead of the next: its interval apart, or
    the gap's own interval excluding 0, else "not established" (None for the last or an unrated agent).
    ``gap_to_next`` (Elo) with ``gap_lower``/``gap_upper`` is the difference itself with its interval
    from the covariance: a gap whose interval excludes 0 is significant even where the intervals overlap.
    """
    low, high = fit.interval(confidence)
    totals = counts.group_by("agent").agg(pl.col("n").sum(), (pl.col("wins") + pl.col("draws") / 2).sum()
                                          .alias("points"))
    per = {r["agent"]: (r["n"], r["points"]) for r in totals.iter_rows(named=True)}
    rated = [i for i in range(len(fit.agents)) if not math.isnan(fit.rating[i])]
    order = sorted(rated, key=lambda i: -fit.rating[i]) + [i for i in range(len(fit.agents)) if i not in rated]
    rows = []
    for place, i in enumerate(order, 1):
        n, points = per.get(fit.agents[i], (0, 0.0))
        s_low, s_high = wilson(points, n) if n else (None, None)
        nxt = order[place] if place < len(order) and order[place] in rated else None
        separated = None if i not in rated or nxt is None else bool(low[i] > high[nxt])
        gap = fit.gap(i, nxt, confidence) if separated is not None else (math.nan,) * 3
        value = _number
        gap_excludes_zero = separated is not None and not math.isnan(gap[1]) and (gap[1] > 0 or gap[2] < 0)
        ahead = None if separated is None else ("yes: the intervals do not overlap" if separated else
                                                "yes: the gap's interval excludes 0" if gap_excludes_zero else
                                                "not established")
        shared = 1 + sum(1 for j in rated if fit.rating[j] > fit.rating[i] + 1e-9)  # equal ratings share a rank
        rows.append({"rank": shared if i in rated else None, "agent": display_name(fit.agents[i]),
                     "elo": value(ELO_PER_UNIT * fit.rating[i]), "elo_lower": value(ELO_PER_UNIT * low[i]),
                     "elo_upper": value(ELO_PER_UNIT * high[i]), "separated_from_next": separated,
                     "ahead_of_next": ahead,
                     "gap_to_next": value(ELO_PER_UNIT * gap[0]), "gap_lower": value(ELO_PER_UNIT * gap[1]),
                     "gap_upper": value(ELO_PER_UNIT * gap[2]),
                     "rating": value(fit.rating[i]), "rating_lower": value(low[i]), "rating_upper": value(high[i]),
                     "games": int(n), "score": points / n if n else None, "score_low": s_low, "score_high": s_high,
                     "spec": fit.agents[i]})
    return pl.DataFrame(rows, schema={"rank": pl.Int64, "agent": pl.String, "elo": pl.Float64,
                                      "elo_lower": pl.Float64, "elo_upper": pl.Float64,
                                      "separated_from_next": pl.Boolean, "ahead_of_next": pl.String,
                                      "gap_to_next": pl.Float64,
                                      "gap_lower": pl.Float64, "gap_upper": pl.Float64, "rating": pl.Float64,
                                      "rating_lower": pl.Float64, "rating_upper": pl.Float64, "games": pl.Int64,
                                      "score": pl.Float64, "score_low": pl.Float64, "score_high": pl.Float64,
                                      "spec": pl.String})


# -- the round robin --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ladder:
    """A round robin's games, its pairwise and ratings tables, and what was asked and finished."""

    game: str
    agents: tuple[str, ...]
    games: pl.DataFrame
    pairwise: pl.DataFrame
    ratings: pl.DataFrame
    fit: BradleyTerry
    settings: dict[str, Any] = field(default_factory=dict)
    pairings: int = 0
    finished: int = 0

    @property
    def stopped(self) -> bool:
        """True when the round robin was stopped before every pairing finished."""
        return self.finished < self.pairings

    def tables(self) -> dict[str, pl.DataFrame]:
        """The study's tables: ratings, pairwise, games."""
        return {"ratings": self.ratings, "pairwise": self.pairwise, "games": self.games}


def _check_games(games: object) -> int:
    if isinstance(games, bool) or not isinstance(games, int) or games < 2 or games % 2:
        raise InputError(f"games per pairing must be an even number, 2 or more (half with each agent in the "
                         f"first seat), got {games!r}")
    return games


def run_ladder(game: str | GameModel, agents: str | Sequence[str], games: int, *, params: dict[str, Any] | None = None,
               seed: int = 0, workers: int = 1, backend: str = "local", scheduler: str | None = None,
               filler: str = DEFAULT_FILLER, anchor: str | None = None, progress: bool = True,
               on_progress: Callable[[int, int], None] | None = None,
               should_stop: Callable[[], bool] | None = None) -> Ladder:
    """Play the round robin of ``agents`` and fit their ratings.

    Every pair plays ``games`` games (even): ``games / 2`` with each agent in seat p1, both seat
    orders on master seed ``seed`` (the same game seeds for every pairing).  Other seats of a game of
    more than two are played by ``filler``.  ``on_progress(done, total)`` follows the whole round
    robin; once ``should_stop()`` turns true (or on Ctrl-C) the pairings finished so far are kept and
    rated, and the pairing under way is dropped (``Ladder.stopped``).
    """
    from workbench.core.sim.runner import check_workers, simulate
    from workbench.core.sim.seeding import check_master_seed

    model = get_game(game)
    specs = parse_agents(model, agents)
    games = _check_games(games)
    check_workers(workers)
    seed = check_master_seed(seed)
    resolved = model.resolve_params(params)
    players = model.players(model.make_config(resolved))
    filler = str(AgentSpec.parse(filler))
    model.make_agent(filler)
    if anchor is not None and anchor != MEAN:
        anchor = str(AgentSpec.parse(anchor))
        if anchor not in specs:
            raise InputError(f"anchor {anchor!r} is not one of the agents; allowed: {', '.join(specs)}, {MEAN}")
    pairings = _pairings(specs)
    engines: dict[tuple[str, str], str] = {}
    for a, b in pairings:  # every line-up is checked (and its engine chosen) before any game is played
        lineup = model.resolve_agents(_lineup(a, b, players, filler), resolved)
        engines[(a, b)] = model.resolve_engine(None, lineup, resolved)
    half, total = games // 2, len(pairings) * games
    done = 0
    bar = _bar(total, f"{model.name} ladder") if progress else None

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if bar is not None:
            bar.update(n)
        if on_progress is not None:
            on_progress(done, total)

    frames: list[pl.DataFrame] = []
    tallies: list[pl.DataFrame] = []  # the games of each part counted by winner as it finishes (_tally)
    finished = 0
    started = time.perf_counter()

    def keep(pair: list[pl.DataFrame], a: str, b: str) -> None:
        if pair:
            frames.append(pl.concat(pair, how="vertical").with_columns(
                pl.lit(f"{display_name(a)} vs {display_name(b)}").alias("pairing")))

    try:
        for a, b in pairings:
            if should_stop is not None and should_stop():
                break
            pair: list[pl.DataFrame] = []
            try:
                for first, second in ((a, b), (b, a)):
                    part = simulate(model, half, params=resolved, agents=_lineup(first, second, players, filler),
                                    seed=seed, workers=workers, backend=backend, scheduler=scheduler,
                                    progress=False, on_progress=tick, should_stop=should_stop)
                    pair.append(part.with_columns(pl.lit(first).alias("ladder_p1"),
                                                  pl.lit(second).alias("ladder_p2")))
                    tallies.append(_tally(part, first, second))
            except RunInterrupted as exc:  # the pairing under way keeps the games it finished
                if exc.partial is not None and exc.partial.height:
                    pair.append(exc.partial.with_columns(pl.lit(first).alias("ladder_p1"),
                                                         pl.lit(second).alias("ladder_p2")))
                    tallies.append(_tally(exc.partial, first, second))
                keep(pair, a, b)
                raise
            keep(pair, a, b)
            finished += 1
    except (RunInterrupted, KeyboardInterrupt):
        pass  # stopped: every finished game is rated (a pairing cut short with the games it finished)
    finally:
        if bar is not None:
            bar.close()
    frame = pl.concat(frames, how="vertical") if frames else pl.DataFrame()
    counts = _counts(pl.concat(tallies, how="vertical") if tallies else pl.DataFrame(), specs)
    score, played, _ = _matrices(counts, specs)
    fit = fit_bradley_terry(score, played, specs, anchor)
    settings = {"game": model.name, "rules_version": model.rules_version, "params": resolved, "seed": seed,
                "games_per_pairing": games, "agents": list(specs), "filler": filler if players > 2 else None,
                "anchor": fit.anchor, "virtual_draws": fit.virtual_draws, "players": players,
                "seconds": round(time.perf_counter() - started, 2)}
    return Ladder(model.name, specs, frame, pairwise_table(counts, specs, fit, players, engines),
                  ratings_table(fit, counts), fit, settings, len(pairings), finished)


def _bar(total: int, label: str) -> Any:
    from workbench.core.sim.progress import progress

    return progress(total, label)


# -- chart and report ----------------------------------------------------------------------------------
def ratings_chart(ratings: pl.DataFrame, title: str = "Ratings (Elo points, 95 % intervals)") -> Any:
    """Each agent's Elo rating as a point with its 95 % interval bar, best at the top (display names)."""
    import altair as alt

    data = ratings.filter(pl.col("elo").is_not_null()).select("rank", "agent", "elo", "elo_lower", "elo_upper",
                                                              "games")
    order = data.sort("rank").get_column("agent").to_list()
    y = alt.Y("agent:N", sort=order, title=None)
    tooltip = [alt.Tooltip("agent:N"), alt.Tooltip("elo:Q", format=".0f"), alt.Tooltip("elo_lower:Q", format=".0f"),
               alt.Tooltip("elo_upper:Q", format=".0f"), alt.Tooltip("games:Q", format=",")]
    bars = alt.Chart().mark_errorbar(ticks=True).encode(x=alt.X("elo_lower:Q", title="Elo points"),
                                                        x2="elo_upper:Q", y=y)
    points = alt.Chart().mark_point(filled=True, size=70).encode(x=alt.X("elo:Q", title="Elo points"), y=y,
                                                                 tooltip=tooltip)
    zero = alt.Chart().mark_rule(strokeDash=[4, 4], color="gray").encode(x=alt.datum(0))
    return alt.layer(bars, points, zero, data=data).properties(title=title, width=420,
                                                               height=max(60, 28 * data.height))


def ladder_charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
    """The ladder study's charts: the ratings with their intervals."""
    return {"ratings": ratings_chart(tables["ratings"])}


def _elo(x: float) -> str:
    return f"{round(x) + 0:+d}"


def _order_sign(row: dict[str, Any]) -> str:
    if row["separated_from_next"]:
        return " > "
    if row["gap_lower"] is not None and (row["gap_lower"] > 0 or row["gap_upper"] < 0):
        return " >* "
    return " ≥ "


def _summary_text(ratings: pl.DataFrame) -> str:
    rated = ratings.filter(pl.col("rank").is_not_null()).sort("rank")
    if rated.height == 0:
        return "No pairing finished: nothing to rate."
    rows = list(rated.iter_rows(named=True))
    text = ""
    for k, r in enumerate(rows):
        text += f"{r['agent']} {_elo(r['elo'])} [{_elo(r['elo_lower'])}, {_elo(r['elo_upper'])}]"
        text += _order_sign(r) if k + 1 < len(rows) else ""
    return (f"Order, best first, in Elo points with 95 % intervals: {text} "
            "(`>`: the intervals do not overlap; `>*`: they overlap but the gap's own interval excludes 0; "
            "`≥`: the order is not established).")


def ladder_section(rep: Any, tables: dict[str, pl.DataFrame], settings: dict[str, Any] | None = None,
                   title: str = "Ratings: a round robin of the agents", prefix: str = "ladder") -> Any:
    """Add the ladder's section to a :class:`~workbench.core.present.report.Report`: method, order, tables, chart.

    ``tables`` are a ladder's (``ratings``, ``pairwise``); item names start with ``prefix``, so a
    report can hold several ladders (one per game variant).
    """
    s = settings or {}
    anchor = s.get("anchor") or "random (or the mean when random does not play)"
    anchor_text = "the mean rating" if anchor == MEAN else display_name(anchor)
    games = s.get("games_per_pairing")
    filler = f" Seats beyond the second are played by {display_name(s['filler'])}; a game a filler wins counts " \
             "as a draw between the two." if s.get("filler") else ""
    rep.section(title, (
        f"Every pair of agents plays {f'{games:,} games' if games else 'the same number of games'}, half with each "
        "agent in the first seat, all pairings on the same game seeds (common random numbers)." + filler +
        " Ratings are Bradley–Terry strengths (a draw is half a win for each side; one virtual drawn game per "
        "pairing keeps a clean sweep finite: n wins in n games rate ln(2n + 1) apart, so the gap to an agent that "
        f"never scored says more about n than about skill), anchored at {anchor_text} = 0 and shown as Elo points "
        f"({ELO_PER_UNIT:.1f} points per unit; +200 points ≈ a 76 % score). Intervals are 95 % Wald intervals from "
        "the Fisher information. *Separated from the next*: the agent's interval does not overlap the next "
        "agent's; *gap to next* is the difference itself with its interval (from the ratings' covariance), "
        "which can exclude 0 where the intervals overlap (two agents measured against one anchor move together)."))
    rep.text(_summary_text(tables["ratings"]))
    rep.table(f"{prefix}_ratings", tables["ratings"], caption="Ratings, best first: Elo and Bradley–Terry rating "
              "with 95 % intervals, the overall score (draws count half) with its Wilson interval")
    rep.chart(f"{prefix}_ratings_chart", ratings_chart(tables["ratings"]),
              caption="Elo rating of each agent with its 95 % interval")
    rep.table(f"{prefix}_pairwise", tables["pairwise"], max_rows=60, caption=(
        "Each pairing from the first agent's side: games, wins, draws, losses; the score (draws count half) with "
        "its Wilson interval; the exact two-sided test of wins against losses at 50 %; the Bradley–Terry fitted "
        "score"))
    return rep


def write_ladder_report(ladder: Ladder, out_dir: str | Path, force: bool = False) -> Path:
    """Write the ladder as a small report (tables as CSV and Parquet, the chart) plus ``games.parquet``."""
    from workbench.core.present.report import Report, check_target
    from workbench.core.sim.store import write_atomic

    out = check_target(out_dir, force)
    model = get_game(ladder.game)
    s = ladder.settings
    meta = {"rules_version": s["rules_version"], "seed": s["seed"],
            "games": f"{s['games_per_pairing']:,} per pairing ({ladder.games.height:,} in all)",
            "agents": ", ".join(display_name(a) for a in ladder.agents),
            "params": {k: v for k, v in s["params"].items() if v != model.param(k).default} or "all at their defaults",
            "anchor": s["anchor"], "filler": s["filler"] or "none (two seats)",
            "status": "complete" if not ladder.stopped else
                      f"stopped: {ladder.finished} of {ladder.pairings} pairings finished"}
    rep = Report(f"{model.title}: ratings of its agents", meta, game=model.name)
    ladder_section(rep, ladder.tables(), s)
    path = rep.write(out, force)
    if ladder.games.height:
        write_atomic(path / "games.parquet", lambda tmp: ladder.games.write_parquet(tmp))
    return path


# -- the declared study ---------------------------------------------------------------------------------
def default_ladder_agents(model: GameModel) -> str:
    """The agents a ladder rates by default: the compiled engine's where there is one, else the game's own."""
    if model.fast_agents:
        return ",".join(model.fast_agents)
    own = {d.name for d in model.agent_types}
    return ",".join(name for name in model.agents if name == "random" or name in own)


def _ladder_run(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
                on_progress: Callable[[int, int], None] | None,
                should_stop: Callable[[], bool] | None) -> dict[str, pl.DataFrame]:
    ladder = run_ladder(model, settings["agents"], settings["games"], params=params, seed=seed, workers=workers,
                        filler=settings["filler"], anchor=settings["anchor"], progress=False, on_progress=on_progress,
                        should_stop=should_stop)
    if ladder.stopped:  # the stop protocol: what finished, and how many of the games asked
        total = ladder.pairings * settings["games"]
        raise RunInterrupted(ladder.tables() if ladder.games.height else None, ladder.games.height, total)
    return ladder.tables()


def _ladder_check(model: GameModel, settings: dict[str, Any], params: dict[str, Any]) -> None:
    """The ladder study's own refusals, before any game: an odd number of games per pairing, an unknown agent."""
    if settings["games"] % 2:
        raise SettingError("games", f"games {settings['games']} is odd; allowed: an even number (half with each "
                                    "agent in the first seat)")
    try:
        parse_agents(model, settings["agents"])
    except InputError as exc:
        raise SettingError("agents", str(exc)) from None


def study_declaration(model: GameModel) -> dict[str, Any]:
    """The ``ladder`` study every game has, as the keyword arguments of ``core.studies.study.Study``.

    A round robin of agents with Bradley–Terry ratings and intervals.  Given as data (``study.py``
    builds ``Study(**study_declaration(model))``) so this module never imports ``study.py``, which
    imports it: the import graph stays without cycles.
    """
    seats = model.max_players
    filler_help = "the agent in the seats beyond the second" if seats > 2 else \
        "the agent in seats beyond the second (unused: this game has two seats)"
    return {"name": "ladder", "title": "Ratings: a round robin of agents, Bradley–Terry with intervals",
            "run": _ladder_run, "charts": ladder_charts, "check": _ladder_check,
            "size": lambda settings, _params: len(_pairings(parse_agents(model, settings["agents"])))
            * settings["games"],
            "settings": (Param("agents", default_ladder_agents(model), str, "the agents to rate, comma-separated "
                               f"(any spec, e.g. greedy:tower=2); allowed: {', '.join(model.agents)}"),
                         Param("games", 400, int, "games per pairing, half with each agent in the first seat (even)",
                               2, 10**8),
                         Param("filler", DEFAULT_FILLER, str, filler_help),
                         Param("anchor", None, str, "the agent rated 0 (none: random when it plays, else the mean)",
                               optional=True)),
            "help": "Every pair of agents plays on the same seeds in both seats; ratings are Bradley–Terry strengths "
                    "(draws count half) with 95 % intervals, also as Elo points."}
