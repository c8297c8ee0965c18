"""The metagame: which decks a competitive field would play, from a deck-against-deck matchup matrix.

A matrix of SCORES (the row deck's score against the column deck over every game between them,
both seats pooled, a draw counting half; a mirror is 1/2) is a symmetric zero-sum game once 1/2 is
taken off: two players each pick a deck, the payoff is the row deck's score − 1/2.  Its solution
(:func:`equilibrium`, an exact linear program: ``scipy.optimize.linprog``, HiGHS) is the mix of
decks no deck beats on average: every deck it plays scores exactly 1/2 against it, every deck it
leaves out at most 1/2.  The game value is 0 (the game is symmetric); the mix need not be unique,
so for each deck a second linear program finds the largest weight *any* equilibrium gives it
(and the smallest): a deck is *in no equilibrium* when that largest weight is below
:data:`PLAYED_TOL` — or when some equilibrium beats it by more than :data:`SCORE_TOL` (a third
program; on an exact solution the two say the same, and the second does not read round-off as a
tiny weight).

The scores are measured, so the mix is uncertain: :func:`metagame` resamples every pairing's
games (a parametric bootstrap: wins / draws / losses drawn from a multinomial with the pairing's
observed shares and its n, seeded from ``seed``), solves each resample, and gives each deck's
weight a 95 % percentile interval and the share of resamples that play it above
:data:`PLAYED_SHARE`.  :func:`metagame_table` is the table a person reads, :func:`metagame_sentence`
its one plain sentence, and :func:`metagame_study` the study any game with two deck parameters
(``deck_p1`` / ``deck_p2``) can declare.  :func:`matrix_game` solves any finite two-player
zero-sum matrix game (the die game's optimal play uses it too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from workbench.core.errors import InputError, RunInterrupted
from workbench.core.lazy import lazy
from workbench.core.model import GameModel, Param
from workbench.core.stats.rates import wilson

optimize = lazy("scipy.optimize")  # imported at the first linear program (~0.35 s), not with core

__all__ = ["PLAYED_SHARE", "PLAYED_TOL", "RESAMPLES", "Equilibrium", "Metagame", "equilibrium", "matrix_game",
           "metagame", "metagame_sentence", "metagame_study", "metagame_table", "pair_counts", "score_matrix"]

PLAYED_TOL = 1e-6  # a deck is in some equilibrium when some equilibrium gives it more weight than this...
SCORE_TOL = 1e-9  # ...and no equilibrium beats it by more than this (a score; the solver's round-off: ~1e-10)
TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}  # HiGHS's default: 1e-7
PLAYED_SHARE = 0.01  # a resample "plays" a deck when its mix gives it more than 1 %
RESAMPLES = 1000
COUNT_COLUMNS = ("deck", "opponent", "wins", "draws", "losses")


# -- exact solutions ---------------------------------------------------------------------------------------
def matrix_game(a: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Value and optimal mixed strategies (row maximises, column minimises) of a matrix game.

    A saddle point (pure strategies) is checked first; otherwise one linear program (HiGHS) gives
    the row player's strategy and, from its dual values, the column player's.
    """
    row_min, col_max = a.min(axis=1), a.max(axis=0)
    i, j = int(row_min.argmax()), int(col_max.argmin())
    if row_min[i] >= col_max[j] - 1e-12:  # a saddle point: pure strategies are optimal
        x, y = np.zeros(a.shape[0]), np.zeros(a.shape[1])
        x[i], y[j] = 1.0, 1.0
        return float(a[i, j]), x, y
    m, n = a.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0  # maximise v
    a_ub = np.hstack([-a.T, np.ones((n, 1))])  # v - sum_i a_ij x_i <= 0 for every column j
    a_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    res = optimize.linprog(c, A_ub=a_ub, b_ub=np.zeros(n), A_eq=a_eq, b_eq=[1.0],
                           bounds=[(0, None)] * m + [(None, None)], method="highs")
    if res.status != 0:  # pragma: no cover - HiGHS solves every finite matrix game
        raise RuntimeError(f"linprog failed on a matrix game: {res.message}")
    x = np.clip(res.x[:m], 0, None)
    y = np.clip(-np.asarray(res.ineqlin.marginals), 0, None)
    return float(res.x[-1]), x / x.sum(), y / y.sum()


@dataclass(frozen=True)
class Equilibrium:
    """A symmetric deck game's solution: one equilibrium mix, the value, and every deck's range over all of them.

    ``weights`` is the mix the solver found (probabilities per deck); ``value`` the game value of
    score − 1/2 (0 up to round-off); ``max_weights`` / ``min_weights`` the largest / smallest weight
    any equilibrium gives each deck; ``beaten_by`` the most any equilibrium mix beats each deck by
    (its score against that mix below 1/2; 0 for a deck no equilibrium beats).
    """

    weights: np.ndarray
    value: float
    max_weights: np.ndarray
    min_weights: np.ndarray
    beaten_by: np.ndarray

    @property
    def played(self) -> np.ndarray:
        """Per deck: does some equilibrium play it (above :data:`PLAYED_TOL`, and no equilibrium beats it)?

        The two agree on an exact solution (Goldman–Tucker: a deck is in no equilibrium exactly when
        some equilibrium beats it); asking both keeps a deck that loses to the mix by a hair (a few
        thousandths of a point, where the solver's round-off is a weight of 1e-6) out.
        """
        return (self.max_weights > PLAYED_TOL) & (self.beaten_by <= SCORE_TOL)


def check_scores(matrix: Any) -> np.ndarray:
    """The scores as a float array, or an :class:`InputError`: square, in [0, 1], S + Sᵀ = 1 (mirrors 1/2)."""
    s = np.asarray(matrix, dtype=float)
    if s.ndim != 2 or s.shape[0] != s.shape[1] or s.shape[0] < 1:
        raise InputError(f"a matchup matrix must be square (deck × deck), got shape {s.shape}")
    if not np.isfinite(s).all() or (s < 0).any() or (s > 1).any():
        raise InputError("a matchup matrix holds scores between 0 and 1 (a draw counts half)")
    bad = np.argwhere(np.abs(s + s.T - 1) > 1e-9)
    if bad.size:
        i, j = bad[0]
        raise InputError(f"matchup matrix cells ({i}, {j}) = {s[i, j]:.4g} and ({j}, {i}) = {s[j, i]:.4g} must add "
                         "up to 1: both read the same games (both seats pooled), and a mirror is 0.5")
    return s


def _face(a: np.ndarray, c: np.ndarray) -> tuple[float, np.ndarray]:
    """Minimise ``c · x`` over the equilibria of the symmetric game ``a`` (value 0): mixes no deck beats."""
    k = a.shape[0]
    res = optimize.linprog(c, A_ub=a, b_ub=np.zeros(k), A_eq=np.ones((1, k)), b_eq=[1.0], bounds=[(0, None)] * k,
                           method="highs", options=TIGHT)
    if res.status != 0:  # pragma: no cover - the solver's own mix lies on the face
        raise RuntimeError(f"linprog failed on the optimal face: {res.message}")
    return float(res.fun), np.clip(res.x, 0.0, 1.0)


def equilibrium(matrix: Any) -> Equilibrium:
    """Solve the symmetric zero-sum game of a score matrix exactly (the payoff is score − 1/2).

    Besides one equilibrium mix, three linear programs per deck over the optimal face (the mixes no
    deck beats: every deck scores at most 1/2 against them) give its largest and smallest weight in
    any equilibrium and the most any equilibrium beats it by.
    """
    a = check_scores(matrix) - 0.5
    value, x, _ = matrix_game(a)
    k = a.shape[0]
    unit = np.eye(k)
    high = np.array([-_face(a, -unit[i])[0] for i in range(k)])
    low = np.array([_face(a, unit[i])[0] for i in range(k)])
    beaten = np.array([max(0.0, -_face(a, a[i])[0]) for i in range(k)])
    return Equilibrium(x, value, np.clip(np.maximum(high, x), 0, 1), np.clip(np.minimum(low, x), 0, 1), beaten)


# -- counts from games ---------------------------------------------------------------------------------------
def pair_counts(frame: pl.DataFrame, decks: tuple[str, str] = ("deck_p1", "deck_p2"),
                seats: tuple[str, str] = ("p1", "p2")) -> pl.DataFrame:
    """Per ordered pair of different decks: the row deck's wins, draws and losses over every game between them.

    ``frame`` is a result frame with one deck column per seat (``decks``) and ``winner`` (a seat of
    ``seats`` or ``"draw"``); both seats are pooled, so (A, B) and (B, A) read the same games.
    """
    missing = [c for c in (*decks, "winner") if c not in frame.columns]
    if missing:
        raise InputError(f"a matchup frame needs the columns {', '.join(missing)}")
    parts = []
    for (me, other), (mine, theirs) in ((decks, seats), (decks[::-1], seats[::-1])):
        parts.append(frame.select(pl.col(me).alias("deck"), pl.col(other).alias("opponent"),
                                  (pl.col("winner") == mine).alias("won"), (pl.col("winner") == "draw").alias("drew"),
                                  (pl.col("winner") == theirs).alias("lost")))
    rows = pl.concat(parts).filter(pl.col("deck") != pl.col("opponent"))
    return (rows.group_by("deck", "opponent")
            .agg(pl.col("won").sum().cast(pl.Int64).alias("wins"), pl.col("drew").sum().cast(pl.Int64).alias("draws"),
                 pl.col("lost").sum().cast(pl.Int64).alias("losses"))
            .sort("deck", "opponent"))


def _cell_counts(counts: pl.DataFrame, decks: Sequence[str]) -> np.ndarray:
    """``(k, k, 3)`` wins / draws / losses of the row deck; mirrors empty; a missing pairing is an error."""
    missing = [c for c in COUNT_COLUMNS if c not in counts.columns]
    if missing:
        raise InputError(f"matchup counts need the columns {', '.join(COUNT_COLUMNS)}; missing {', '.join(missing)}")
    rank = {d: i for i, d in enumerate(decks)}
    if len(rank) != len(decks) or len(decks) < 2:
        raise InputError(f"a metagame needs at least two different decks, got {list(decks)}")
    out = np.zeros((len(decks), len(decks), 3), dtype=np.int64)
    for row in counts.iter_rows(named=True):
        i, j = rank.get(row["deck"]), rank.get(row["opponent"])
        if i is None or j is None or i == j:
            continue
        wdl = np.array([row["wins"], row["draws"], row["losses"]], dtype=np.int64)
        if (wdl < 0).any():
            raise InputError(f"matchup counts of {row['deck']} vs {row['opponent']} must not be negative")
        out[i, j] = wdl
    for i in range(len(decks)):
        for j in range(i + 1, len(decks)):
            if out[i, j].sum() == 0 and out[j, i].sum() == 0:
                raise InputError(f"no games between {decks[i]} and {decks[j]}: every pairing needs games")
            if out[i, j].sum() == 0:
                out[i, j] = out[j, i][::-1]
            elif out[j, i].sum() and not (out[j, i] == out[i, j][::-1]).all():
                raise InputError(f"{decks[i]} vs {decks[j]} and {decks[j]} vs {decks[i]} count different games; "
                                 "give each pairing's games once, both seats pooled")
            out[j, i] = out[i, j][::-1]
    return out


def score_matrix(counts: pl.DataFrame, decks: Sequence[str]) -> np.ndarray:
    """The row deck's score against the column deck (a draw counts half; mirrors 1/2) in the order of ``decks``."""
    return _scores(_cell_counts(counts, decks))


def _scores(cells: np.ndarray) -> np.ndarray:
    n = cells.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = (cells[..., 0] + cells[..., 1] / 2) / n
    k = cells.shape[-2]
    s[..., np.arange(k), np.arange(k)] = 0.5
    return s


# -- the metagame with its uncertainty -----------------------------------------------------------------------
@dataclass(frozen=True)
class Metagame:
    """The equilibrium of a measured matrix and its resamples: what :func:`metagame_table` shows."""

    decks: tuple[str, ...]
    names: tuple[str, ...]
    scores: np.ndarray  # (k, k) the measured scores
    games: np.ndarray  # (k, k) games per pairing (0 on the diagonal)
    solution: Equilibrium
    resampled: np.ndarray  # (resamples, k) each resample's equilibrium mix
    resampled_scores: np.ndarray  # (resamples, k) each deck's score against its resample's mix
    seed: int

    @property
    def resamples(self) -> int:
        """How many resamples were solved."""
        return int(self.resampled.shape[0])


def _resample(cells: np.ndarray, resamples: int, seed: int,
              support: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every pairing's games redrawn ``resamples`` times (multinomial, observed shares and n), each re-solved.

    ``support`` (the decks the measured mix plays) is tried first: :func:`_on_support`.
    """
    rng = np.random.default_rng(seed)
    k = cells.shape[0]
    drawn = np.zeros((resamples, k, k, 3), dtype=np.int64)
    for i in range(k):
        for j in range(i + 1, k):
            n = int(cells[i, j].sum())
            drawn[:, i, j] = rng.multinomial(n, cells[i, j] / n, size=resamples)
            drawn[:, j, i] = drawn[:, i, j, ::-1]
    scores = _scores(drawn)
    mixes = np.empty((resamples, k))
    for b, s in enumerate(scores):
        found = _on_support(s - 0.5, support) if support is not None else None
        mixes[b] = found if found is not None else matrix_game(s - 0.5)[1]
    return mixes, np.einsum("bij,bj->bi", scores, mixes)


def _on_support(a: np.ndarray, support: np.ndarray) -> np.ndarray | None:
    """The equilibrium of the symmetric game ``a`` that plays exactly ``support``, if there is one (else None).

    A resample's equilibrium nearly always plays the decks the measured matrix's does: the mix that
    makes every deck of the support score 1/2 against it (a linear system) is checked to be one —
    no negative weight, no deck above 1/2 against it — and the linear program is asked only when it
    is not.  Either way the mix is an exact equilibrium (to 1e-12).
    """
    t = int(support.sum())
    sub = np.vstack([a[np.ix_(support, support)], np.ones((1, t))])
    rhs = np.zeros(t + 1)
    rhs[-1] = 1.0
    x_t, *_ = np.linalg.lstsq(sub, rhs, rcond=None)
    if np.abs(sub @ x_t - rhs).max() > 1e-10 or x_t.min() < -1e-12:
        return None
    x = np.zeros(a.shape[0])
    x[support] = np.clip(x_t, 0.0, None)
    x /= x.sum()
    return x if (a @ x).max() <= 1e-12 else None


def metagame(counts: pl.DataFrame, decks: Sequence[str], names: dict[str, str] | None = None, *,
             resamples: int = RESAMPLES, seed: int = 0) -> Metagame:
    """The equilibrium of the matrix ``counts`` gives (:func:`pair_counts`' columns) and ``resamples`` resamples.

    ``names`` maps a deck key to its display name.  The same ``seed`` gives the same numbers.
    """
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise InputError(f"resamples must be a positive whole number, got {resamples!r}")
    cells = _cell_counts(counts, decks)
    scores = _scores(cells)
    solution = equilibrium(scores)
    mixes, against = _resample(cells, resamples, seed, solution.weights > PLAYED_TOL)
    shown = tuple((names or {}).get(d, d) for d in decks)
    return Metagame(tuple(decks), shown, scores, cells.sum(axis=-1), solution, mixes, against, seed)


def metagame_table(game: Metagame) -> pl.DataFrame:
    """One row per deck, most weight first: the mix with its interval, resamples playing it, its score against it.

    Columns: ``deck`` (display name), ``key``, ``weight`` with ``weight_low``/``weight_high`` (95 %
    percentile interval over the resamples), ``resamples_playing`` (share of resamples whose mix
    gives it more than 1 %), ``some_equilibrium`` (some equilibrium of the measured matrix plays
    it), ``most_weight`` (the largest weight any equilibrium gives it), ``score_vs_mix`` with its
    interval (its score against the mix: 1/2 for a deck the mix plays, below for one it leaves
    out) and ``games`` (games it played against the other decks).
    """
    sol = game.solution
    w_lo, w_hi = np.percentile(game.resampled, [2.5, 97.5], axis=0)
    s_lo, s_hi = np.percentile(game.resampled_scores, [2.5, 97.5], axis=0)
    table = pl.DataFrame({
        "deck": list(game.names), "key": list(game.decks), "weight": sol.weights, "weight_low": w_lo,
        "weight_high": w_hi, "resamples_playing": (game.resampled > PLAYED_SHARE).mean(axis=0),
        "some_equilibrium": sol.played, "most_weight": sol.max_weights, "score_vs_mix": game.scores @ sol.weights,
        "score_vs_mix_low": s_lo, "score_vs_mix_high": s_hi, "games": game.games.sum(axis=1).astype(np.int64)})
    return table.sort(["weight", "most_weight", "score_vs_mix"], descending=True, maintain_order=True)


def _listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _percent(x: float) -> str:
    return "<1" if 0 < x < 0.005 else f"{100 * x:.0f}"


def metagame_sentence(table: pl.DataFrame, resamples: int) -> str:
    """The table in one plain sentence: the mix with intervals, then the decks no equilibrium plays."""
    rows = list(table.iter_rows(named=True))
    mixed = [r for r in rows if r["weight"] > PLAYED_TOL]
    parts = [f"{r['deck']} {_percent(r['weight'])} % [{_percent(r['weight_low'])}–{_percent(r['weight_high'])}] "
             f"(in {round(r['resamples_playing'] * resamples):,}{f' of {resamples:,} resamples' if i == 0 else ''})"
             for i, r in enumerate(mixed)]
    text = f"A competitive field would play {_listed(parts)}"
    also = [r["deck"] for r in rows if r["weight"] <= PLAYED_TOL and r["some_equilibrium"]]
    if also:
        text += f"; {_listed(also)} {'is' if len(also) == 1 else 'are'} played in other equilibria"
    never = [r for r in rows if not r["some_equilibrium"]]
    if never:
        counts = [round(r["resamples_playing"] * resamples) for r in never]
        verb = "is" if len(never) == 1 else "are"
        if len(set(counts)) == 1:
            them = "it" if len(never) == 1 else "them"
            how = f"{counts[0]:,} of {resamples:,} resamples play {them} above 1 %"
        else:
            each = [f"{r['deck']} {'is played above 1 % ' if i == 0 else ''}in {c:,}"
                    for i, (r, c) in enumerate(zip(never, counts, strict=True))]
            how = f"of {resamples:,} resamples, {_listed(each)}"
        text += f"; {_listed([r['deck'] for r in never])} {verb} in no equilibrium ({how})"
    elif not also:
        text += "; every deck is in the equilibrium"
    return text + "."


# -- the study ------------------------------------------------------------------------------------------------
def _complete(frame: pl.DataFrame, decks: Sequence[str], columns: tuple[str, str], per_pair: int) -> list[str]:
    """The longest prefix of ``decks`` whose every pairing has all its ``per_pair`` games in ``frame``."""
    met = frame.group_by(pl.min_horizontal(columns).alias("a"), pl.max_horizontal(columns).alias("b")).len()
    full = {(a, b) for a, b, n in met.iter_rows() if n >= per_pair}
    done: list[str] = []
    for d in decks:
        if not all((min(d, e), max(d, e)) in full for e in done):
            break
        done.append(d)
    return done


def _tables(model: GameModel, frame: pl.DataFrame | None, decks: Sequence[str], columns: tuple[str, str],
            seats: tuple[str, str], per_pair: int, resamples: int, seed: int,
            tier: str) -> dict[str, pl.DataFrame] | None:
    """The metagame of the decks whose pairings are all played (``per_pair`` games each; None for fewer than two)."""
    if frame is None or frame.is_empty():
        return None
    done = _complete(frame, decks, columns, per_pair)
    if len(done) < 2:
        return None
    names = {d: model.choice_label(columns[0], d) for d in done}
    counts = pair_counts(frame, columns, seats)
    game = metagame(counts, done, names, resamples=resamples, seed=seed)
    table = metagame_table(game)
    k = len(done)
    off = ~np.eye(k, dtype=bool)  # a mirror is 1/2 by definition and plays no game here
    n = game.games[off].astype(np.int64)
    low, high = wilson(np.round(2 * game.scores[off] * n) / 2, n)  # wins + draws / 2, in halves
    matrix = pl.DataFrame({"deck": [names[d] for d in done for e in done if e != d],
                           "opponent": [names[e] for d in done for e in done if e != d],
                           "score": game.scores[off], "score_low": low, "score_high": high, "n": n})
    sentence = metagame_sentence(table, game.resamples)
    finding = pl.DataFrame({"finding": [sentence], "tier": [tier], "decks": [k], "resamples": [game.resamples]})
    return {"metagame": table, "scores": matrix, "finding": finding}


def metagame_study(game: str | GameModel, decks: tuple[str, str] = ("deck_p1", "deck_p2"),
                   seats: tuple[str, str] = ("p1", "p2"), grid: dict[str, list[Any]] | None = None,
                   games: int = 500) -> dict[str, Any]:
    """The keyword arguments of a ``metagame`` study for ``game``, whose two seats each choose a deck.

    ``game`` is the model or its name (a game's study list may name itself before its model is
    built: the model is looked up when the study is sized or run); ``decks`` names the game's deck
    parameters (one per seat, their choices the decks), ``seats`` the ``winner`` value of each seat,
    ``grid`` what else every pairing plays through (Babylon: ``{"first": ["p1", "p2"]}``, each deck
    moving first and second).  Every deck meets every deck at one tier (default: the strongest
    declared fast tier), on one master seed; the study streams the decks whose pairings are all
    played and obeys Stop.
    """
    from workbench.core.skill.tiers import Tier, best_fast_policy, parse_tiers

    extra = dict(grid or {})
    seatings = int(np.prod([len(v) for v in extra.values()])) if extra else 1  # cells per ordered deck pair

    def chosen(model: GameModel, text: str, params: dict[str, Any]) -> list[str]:
        allowed = next(p for p in model.params_for(params) if p.name == decks[0]).choices or ()
        items = list(allowed) if text.strip() == "all" else list(dict.fromkeys(
            t.strip() for t in text.split(",") if t.strip()))
        bad = [t for t in items if t not in allowed]
        if len(items) < 2 or bad:
            raise InputError(f"setting 'decks': {', '.join(bad) or 'fewer than two decks'} given; allowed: all, or "
                             f"two or more of {', '.join(allowed)}")
        return items

    def size(settings: dict[str, Any], params: dict[str, Any]) -> int:
        from workbench.core.model import get_game

        return settings["games"] * len(chosen(get_game(game), settings["decks"], params)) ** 2 * seatings

    def run(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
            on_progress: Callable[[int, int], None] | None, should_stop: Callable[[], bool] | None,
            on_partial: Callable[[dict, int, int], None] | None = None) -> dict[str, pl.DataFrame]:
        from workbench.core.studies.study import play_grid

        tier: Tier = parse_tiers(model, [settings["tier"] or best_fast_policy(model)])[0]
        order = chosen(model, settings["decks"], params)
        fixed = {k: v for k, v in params.items() if k not in (*decks, *extra) and v != model.param(k).default}
        seat_count = model.players(model.make_config(model.resolve_params(
            {**fixed, decks[0]: order[0], decks[1]: order[1], **{k: v[0] for k, v in extra.items()}})))
        per_pair = 2 * settings["games"] * seatings  # A vs B and B vs A

        def tables(frame: pl.DataFrame | None) -> dict[str, pl.DataFrame] | None:
            return _tables(model, frame, order, decks, seats, per_pair, settings["resamples"], seed, tier.label)

        try:
            frame = play_grid(model, {decks[0]: order, decks[1]: order, **extra}, settings["games"], params=fixed,
                              agents=tier.lineup(seat_count), seed=seed, workers=workers, on_progress=on_progress,
                              should_stop=should_stop, on_partial=on_partial,
                              tables=lambda part: tables(part) or {},
                              group=lambda cell, _lineup: frozenset((cell[decks[0]], cell[decks[1]])))
        except RunInterrupted as exc:  # stopped: the metagame of the pairs finished, else the games themselves
            games = exc.partial if isinstance(exc.partial, pl.DataFrame) else None
            raise RunInterrupted(tables(games) or games, exc.done, exc.total) from None
        out = tables(frame)
        assert out is not None  # every pairing was played
        return out

    def charts(tables: dict[str, pl.DataFrame]) -> dict[str, Any]:
        from workbench.core.present.charts import rate_chart

        if "metagame" not in tables:
            return {}
        return {"metagame": rate_chart(tables["metagame"], "deck", rate="weight", low="weight_low",
                                       high="weight_high", reference=None, y_title="weight in the equilibrium mix",
                                       title="The equilibrium mix of decks (95 % interval over the resamples)")}

    return {"name": "metagame", "title": "The metagame: which decks would a competitive field play?",
            "run": run, "charts": charts,
            "size": size,
            "settings": (Param("tier", None, str, "the skill tier that plays every pairing (one agent spec, in every "
                               "seat; none: the strongest declared fast tier)", optional=True),
                         Param("games", games, int, "games per deck pairing and seating (the matrix of scores: a "
                               "draw counts half, both seats pooled)", 1, 10**8),
                         Param("decks", "all", str, "'all' or a comma list of two or more decks"),
                         Param("resamples", RESAMPLES, int, "bootstrap resamples of the matrix (each pairing's wins, "
                               "draws and losses redrawn, the game re-solved)", 1, 10**6)),
            "replaces": (*decks, *extra),
            "help": "The equilibrium mix of decks (an exact zero-sum solution of the matchup matrix), each deck's "
                    "weight with a 95 % interval over resamples of the games, and the decks no equilibrium plays."}

