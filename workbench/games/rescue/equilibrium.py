"""Equilibrium bidding in the Mercenary auction, solved backwards over its two stages.

The game: each seat's payoff is its surplus, ``value − price`` if it gets the Mercenary and 0
otherwise (the crystals it keeps are not counted twice: a loser keeps its bid).  It is not zero-sum.

A second auction among the seats ``T`` tied at ≥ 1 crystal is a subgame that does not depend on the
first-round bids (every crystal is still in hand), so the solve is subgame-perfect by construction:

1. every *second-round game* among ``T`` (|T| ≥ 2; a tie gives nobody anything) is solved first,
   giving each tied seat its continuation value ``w_T[i]``;
2. the *first-round game* among all seats is then a one-shot game where a tie at ``b ≥ 1`` among
   ``T`` pays ``w_T`` and a tie at 0 pays nothing.

Two seats (every two-seat stage, including two-seat second rounds of larger games): a Nash
equilibrium of the bimatrix game by mixed-integer programming (Sandholm, Gilpin & Conitzer 2005:
regret of every used bid forced to 0 by one binary per bid; scipy ``milp``), selecting the
equilibrium with the largest total surplus, and among *symmetric* strategies when the two seats
have the same crystals and value (a symmetric game always has one).  The supports it finds are
then solved exactly in fractions (the indifference equations), so the equilibrium is exact and
no pure deviation gains anything; when the support system is degenerate the float solution is kept
and its gain reported.  Three to six seats: fictitious play (every seat best-responds to the
others' average strategies, ties to the lowest bid; the averages are the answer) with the remaining
exploitability reported: the largest gain of a unilateral deviation in the first round plus the
largest in any second round (an upper bound on the gain of any deviation in the whole game).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from workbench.core.errors import InputError
from workbench.core.sim.stopping import check as check_stop
from workbench.games.rescue.rules import Config, Plan, outcome

FP_ITERATIONS = 3000
Cont = Mapping[frozenset[int], Mapping[int, Any]]  # tied seats → each tied seat's continuation value


class Equilibrium(NamedTuple):
    """An equilibrium of one auction's parameters and how good it is."""

    plans: tuple[Plan, ...]  # one per seat
    values: tuple[float, ...]  # each seat's expected surplus under it
    exploitability: float  # bound on any seat's gain from deviating anywhere (0 for an exact solve)
    first_gap: float  # largest gain of a first-round deviation
    second_gap: float  # largest gain of a deviation in any second round
    method: str
    exact: bool  # True when every probability is a Fraction checked exactly


# -- two seats: bimatrix Nash by MILP, then exact support solve --------------------------------------
def _solve_exact(rows: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    """The unique solution of an over- or exactly-determined linear system, or None."""
    n = len(rows[0])
    m = [list(r) + [b] for r, b in zip(rows, rhs, strict=True)]
    pivot_row = 0
    for col in range(n):
        pick = next((r for r in range(pivot_row, len(m)) if m[r][col] != 0), None)
        if pick is None:
            return None  # a free variable: not unique
        m[pivot_row], m[pick] = m[pick], m[pivot_row]
        lead = m[pivot_row][col]
        m[pivot_row] = [v / lead for v in m[pivot_row]]
        for r in range(len(m)):
            if r != pivot_row and m[r][col] != 0:
                f = m[r][col]
                m[r] = [a - f * b for a, b in zip(m[r], m[pivot_row], strict=True)]
        pivot_row += 1
    if any(row[-1] != 0 for row in m[n:]):
        return None  # inconsistent
    return [m[i][-1] for i in range(n)]


def _indifference(mat: list[list[Fraction]], rows: list[int], cols: list[int],
                  size: int) -> tuple[Fraction, ...] | None:
    """The opponent mix on ``cols`` making every row in ``rows`` equally good (exact), or None."""
    system = [[Fraction(mat[i][j]) for j in cols] + [Fraction(-1)] for i in rows]
    system.append([Fraction(1)] * len(cols) + [Fraction(0)])
    sol = _solve_exact(system, [Fraction(0)] * len(rows) + [Fraction(1)])
    if sol is None or any(p < 0 for p in sol[:-1]):
        return None
    out = [Fraction(0)] * size
    for j, p in zip(cols, sol[:-1], strict=True):
        out[j] = p
    return tuple(out)


def bimatrix_gaps(a: Sequence[Sequence[Any]], b: Sequence[Sequence[Any]], x: Sequence[Any],
                  y: Sequence[Any]) -> tuple[Any, Any]:
    """Each seat's largest gain from a pure deviation (row seat payoffs ``a``, column seat ``b``)."""
    rows = [sum(a[i][j] * y[j] for j in range(len(y))) for i in range(len(x))]
    cols = [sum(b[i][j] * x[i] for i in range(len(x))) for j in range(len(y))]
    return (max(rows) - sum(r * p for r, p in zip(rows, x, strict=True)),
            max(cols) - sum(c * q for c, q in zip(cols, y, strict=True)))


def bimatrix_nash(a: Sequence[Sequence[Any]], b: Sequence[Sequence[Any]],
                  symmetric: bool = False) -> tuple[tuple[Any, ...], tuple[Any, ...], bool]:
    """A welfare-maximising Nash equilibrium ``(x, y, exact)`` of a bimatrix game (see the module docstring)."""
    from scipy.optimize import Bounds, LinearConstraint, milp  # here: the model imports this module, scipy ~0.4 s

    af, bf = np.array(a, dtype=float), np.array(b, dtype=float)
    m, n = af.shape
    big_a, big_b = float(af.max() - af.min()) + 1.0, float(bf.max() - bf.min()) + 1.0
    nv = 2 * (m + n) + 2
    ix, iy, iu, iv, is_, it = 0, m, m + n, m + n + 1, m + n + 2, 2 * m + n + 2
    rows, lo, hi = [], [], []

    def add(coef: dict[int, float] | np.ndarray, low: float, high: float) -> None:
        row = np.zeros(nv)
        if isinstance(coef, dict):
            for k, v in coef.items():
                row[k] += v
        else:
            row[:] = coef
        rows.append(row)
        lo.append(low)
        hi.append(high)

    add({ix + i: 1.0 for i in range(m)}, 1, 1)
    add({iy + j: 1.0 for j in range(n)}, 1, 1)
    for i in range(m):
        pay = np.zeros(nv)
        pay[iy:iy + n] = af[i]
        add(pay - _unit(nv, iu), -np.inf, 0)  # u ≥ every row's payoff
        add(_unit(nv, iu) - pay - big_a * _unit(nv, is_ + i), -np.inf, 0)  # a row with regret is unused ...
        add({ix + i: 1.0, is_ + i: 1.0}, -np.inf, 1)  # ... x_i = 0 when s_i = 1
    for j in range(n):
        pay = np.zeros(nv)
        pay[ix:ix + m] = bf[:, j]
        add(pay - _unit(nv, iv), -np.inf, 0)
        add(_unit(nv, iv) - pay - big_b * _unit(nv, it + j), -np.inf, 0)
        add({iy + j: 1.0, it + j: 1.0}, -np.inf, 1)
    if symmetric:
        for i in range(m):
            add({ix + i: 1.0, iy + i: -1.0}, 0, 0)
    lower = np.r_[np.zeros(m + n), -np.inf, -np.inf, np.zeros(m + n)]
    upper = np.r_[np.ones(m + n), np.inf, np.inf, np.ones(m + n)]
    cost = np.zeros(nv)
    cost[iu] = cost[iv] = -1.0
    integrality = np.r_[np.zeros(m + n + 2), np.ones(m + n)]
    res = milp(cost, constraints=LinearConstraint(np.array(rows), lo, hi), bounds=Bounds(lower, upper),
               integrality=integrality, options={"mip_rel_gap": 1e-9})
    if res.x is None:
        raise RuntimeError(f"the equilibrium MILP failed: {res.message}")
    # lexicographic tie-break: among the welfare-maximising equilibria, the lowest expected bids
    add({iu: 1.0, iv: 1.0}, float(res.x[iu] + res.x[iv]) - 1e-7, np.inf)
    cost = np.zeros(nv)
    cost[ix:ix + m], cost[iy:iy + n] = np.arange(m), np.arange(n)
    again = milp(cost, constraints=LinearConstraint(np.array(rows), lo, hi), bounds=Bounds(lower, upper),
                 integrality=integrality, options={"mip_rel_gap": 1e-9})
    res = again if again.x is not None else res
    xf, yf = res.x[ix:ix + m], res.x[iy:iy + n]
    sx, sy = [i for i in range(m) if xf[i] > 1e-7], [j for j in range(n) if yf[j] > 1e-7]
    aq = [[Fraction(v) for v in r] for r in a]
    bt = [[Fraction(b[i][j]) for i in range(m)] for j in range(n)]
    y = _indifference(aq, sx, sy, n)
    x = _indifference(bt, sy, sx, m)
    if x is not None and y is not None and bimatrix_gaps(aq, [list(r) for r in zip(*bt, strict=True)], x, y) == (0, 0):
        return x, y, True
    xs, ys = xf.clip(0) / xf.clip(0).sum(), yf.clip(0) / yf.clip(0).sum()
    x, y = _rounded(xs), _rounded(ys)  # a degenerate support: try the nearest simple fractions
    if bimatrix_gaps(aq, [list(r) for r in zip(*bt, strict=True)], x, y) == (0, 0):
        return x, y, True
    return tuple(float(v) for v in xs), tuple(float(v) for v in ys), False


def _rounded(mix: np.ndarray, denominator: int = 10_000) -> tuple[Fraction, ...]:
    out = [Fraction(float(p)).limit_denominator(denominator) for p in mix]
    out[int(np.argmax(mix))] += 1 - sum(out)
    return tuple(out)


def _unit(n: int, k: int) -> np.ndarray:
    out = np.zeros(n)
    out[k] = 1.0
    return out


def stage_matrices(config: Config, seats: tuple[int, int], cont: Cont | None) -> tuple[list, list]:
    """The bimatrix of one two-seat stage: ``cont`` given → a first round (ties at ≥1 pay ``cont``), else a second."""
    i, j = seats
    tie = cont.get(frozenset(seats)) if cont is not None else None
    loss = -1 if config.payoff == "relative" else 0  # a rival's win at surplus s scores loss · s
    a, b = [], []
    for bi in range(config.budgets[i] + 1):
        ra, rb = [], []
        for bj in range(config.budgets[j] + 1):
            if bi > bj:
                ra.append(config.values[i] - bi)
                rb.append(loss * (config.values[i] - bi))
            elif bj > bi:
                ra.append(loss * (config.values[j] - bj))
                rb.append(config.values[j] - bj)
            elif tie is not None and bi >= 1:
                ra.append(tie[i])
                rb.append(tie[j])
            else:
                ra.append(0)
                rb.append(0)
        a.append(ra)
        b.append(rb)
    return a, b


# -- any number of seats: deviation values and fictitious play ---------------------------------------
def deviation_values(config: Config, seat: int, mixes: Mapping[int, np.ndarray], cont: Cont | None) -> np.ndarray:
    """Expected surplus of ``seat`` for each bid 0..its crystals against the others' mixes (floats).

    ``mixes`` holds every seat of the stage (``seat`` included, ignored); ``cont`` as :func:`stage_matrices`.
    """
    width = config.budgets[seat] + 1
    bids = np.arange(width)
    others = [s for s in sorted(mixes) if s != seat]
    at = {s: _pad(mixes[s], width) for s in others}
    below = {s: np.r_[0.0, np.cumsum(at[s])[:-1]] for s in others}
    out = (config.values[seat] - bids) * np.prod([below[s] for s in others], axis=0)
    if cont is None:
        return out
    for r in range(1, len(others) + 1):
        for tied in itertools.combinations(others, r):
            pay = float(cont[frozenset((seat, *tied))][seat])
            prob = np.prod([at[s] if s in tied else below[s] for s in others], axis=0)
            out = out + np.where(bids >= 1, pay * prob, 0.0)
    return out


def _pad(mix: Sequence[Any], width: int) -> np.ndarray:
    arr = np.zeros(width)
    vals = np.asarray([float(p) for p in mix[:width]])
    arr[:len(vals)] = vals
    return arr


def stage_gaps(config: Config, mixes: Mapping[int, Sequence[Any]], cont: Cont | None) -> dict[int, float]:
    """Each seat's largest gain from a unilateral deviation in one stage (floats)."""
    arrays = {s: np.asarray([float(p) for p in m]) for s, m in mixes.items()}
    gaps = {}
    for s in mixes:
        vals = deviation_values(config, s, arrays, cont)
        gaps[s] = float(vals.max() - vals @ arrays[s])
    return gaps


def fictitious_play(config: Config, seats: tuple[int, ...], cont: Cont | None,
                    iterations: int = FP_ITERATIONS) -> dict[int, tuple[float, ...]]:
    """Average strategies of simultaneous fictitious play from uniform bids.

    Each round every seat best-responds (the first best bid) to the others' averages, by
    :func:`_best_bid`: :func:`deviation_values`' float operations in the same order on plain floats
    (a stage has a handful of bids, where numpy's cost per call was nine tenths of the work).
    """
    avg = {s: [1.0 / (config.budgets[s] + 1)] * (config.budgets[s] + 1) for s in seats}
    plans = {s: _deviation_plan(config, s, seats, cont) for s in seats}
    for t in range(1, iterations + 1):
        if not t % 256:
            check_stop()  # the studio's Stop, between steps of the solve
        best = {s: _best_bid(plans[s], avg) for s in seats}
        keep, step = t / (t + 1), 1 / (t + 1)
        for s in seats:
            mix = [p * keep for p in avg[s]]
            mix[best[s]] += step
            avg[s] = mix
    return {s: tuple(avg[s]) for s in seats}


class _DeviationPlan(NamedTuple):
    """What :func:`deviation_values` needs of one seat that does not change between rounds."""

    gains: tuple[float, ...]  # value − bid, per bid
    others: tuple[int, ...]  # the other seats, in order
    ties: tuple[tuple[float, tuple[bool, ...]], ...]  # (continuation value, which others tie) per tied set


def _deviation_plan(config: Config, seat: int, seats: tuple[int, ...], cont: Cont | None) -> _DeviationPlan:
    others = tuple(s for s in sorted(seats) if s != seat)
    ties = () if cont is None else tuple(
        (float(cont[frozenset((seat, *tied))][seat]), tuple(s in tied for s in others))
        for r in range(1, len(others) + 1) for tied in itertools.combinations(others, r))
    return _DeviationPlan(tuple(float(config.values[seat] - b) for b in range(config.budgets[seat] + 1)), others, ties)


def _best_bid(plan: _DeviationPlan, mixes: Mapping[int, Sequence[float]]) -> int:
    """``argmax(deviation_values(...))`` (the first best bid), with the same float operations in the same order."""
    width = len(plan.gains)
    at, below = [], []
    for s in plan.others:
        mix = list(mixes[s][:width]) + [0.0] * (width - len(mixes[s]))  # _pad
        run, cum = 0.0, [0.0]
        for p in mix[:-1]:  # numpy's cumsum, left to right (0.0 + p is p: a mix holds no -0.0)
            run += p
            cum.append(run)
        at.append(mix)
        below.append(cum)
    out = []
    for b in range(width):
        prod = 1.0  # np.prod(..., axis=0): the rows multiplied in order (1.0 · x is x)
        for cum in below:
            prod *= cum[b]
        out.append(plan.gains[b] * prod)
    for pay, tied in plan.ties:
        for b in range(width):
            prob = 1.0
            for k, is_tied in enumerate(tied):
                prob *= at[k][b] if is_tied else below[k][b]
            out[b] = out[b] + (pay * prob if b >= 1 else 0.0)
    return out.index(max(out))


def _stage_value(config: Config, seat: int, mixes: Mapping[int, Sequence[Any]], cont: Cont | None) -> Any:
    """Exact (Fraction-preserving) expected surplus of ``seat`` in one stage."""
    if all(isinstance(p, (int, Fraction)) for m in mixes.values() for p in m) and len(mixes) == 2:
        i, j = sorted(mixes)
        a, b = stage_matrices(config, (i, j), cont)
        mat = a if seat == i else b
        return sum(mat[x][y] * mixes[i][x] * mixes[j][y] for x in range(len(mixes[i])) for y in range(len(mixes[j])))
    arrays = {s: np.asarray([float(p) for p in m]) for s, m in mixes.items()}
    return float(deviation_values(config, seat, arrays, cont) @ arrays[seat])


def solve_stage(config: Config, seats: tuple[int, ...], cont: Cont | None,
                iterations: int = FP_ITERATIONS) -> tuple[dict[int, tuple[Any, ...]], bool]:
    """Equilibrium mixes of one stage among ``seats``; True when exact."""
    if len(seats) == 2:
        a, b = stage_matrices(config, seats, cont)
        i, j = seats
        same = config.budgets[i] == config.budgets[j] and config.values[i] == config.values[j]
        x, y, exact = bimatrix_nash(a, b, symmetric=same)
        return {seats[0]: x, seats[1]: y}, exact
    return fictitious_play(config, seats, cont, iterations), False


def solve(config: Config, iterations: int = FP_ITERATIONS) -> Equilibrium:
    """The equilibrium of the whole auction (second rounds first, then the first round)."""
    return _solve_cached(config, iterations)


@lru_cache(maxsize=64)
def _solve_cached(config: Config, iterations: int) -> Equilibrium:
    if config.payoff != "surplus" and config.players != 2:
        raise InputError(f"the equilibrium with payoff {config.payoff!r} is solved for 2 players, not "
                         f"{config.players}; allowed: payoff 'surplus' with 2..6 players, 'relative' with 2")
    seats = tuple(range(config.players))
    second: dict[frozenset[int], dict[int, tuple[Any, ...]]] = {}
    cont: dict[frozenset[int], dict[int, Any]] = {}
    exact, second_gap = True, 0.0
    solved: dict[tuple, tuple] = {}  # seats with the same crystals and values play the same second round
    for r in range(2, config.players + 1):
        for tied in itertools.combinations(seats, r):
            sig = tuple((config.budgets[s], config.values[s]) for s in tied)
            if sig not in solved:
                mixes, ok = solve_stage(config, tied, None, iterations)
                solved[sig] = ([mixes[s] for s in tied], [_stage_value(config, s, mixes, None) for s in tied], ok,
                               max(stage_gaps(config, mixes, None).values()))
            order, worth, ok, gap = solved[sig]
            key = frozenset(tied)
            second[key], cont[key] = dict(zip(tied, order, strict=True)), dict(zip(tied, worth, strict=True))
            exact, second_gap = exact and ok, max(second_gap, gap)
    first, ok = solve_stage(config, seats, cont, iterations)
    exact = exact and ok
    first_gap = max(stage_gaps(config, first, cont).values())
    plans = tuple(Plan(first[s], first[s], {k: m[s] for k, m in second.items() if s in m}) for s in seats)
    values = tuple(float(_stage_value(config, s, first, cont)) for s in seats)
    method = "MILP + exact support solve" if config.players == 2 else f"fictitious play, {iterations} iterations"
    if exact:
        first_gap = second_gap = 0.0
    return Equilibrium(plans, values, first_gap + second_gap, first_gap, second_gap, method, exact)


def sample(mix: Sequence[Any], u: float) -> int:
    """The bid of ``mix`` at uniform draw ``u`` in [0, 1) (inverse of the cumulative distribution)."""
    total = 0.0
    for b, p in enumerate(mix):
        total += float(p)
        if u < total:
            return b
    return max(b for b, p in enumerate(mix) if p > 0)


def exact_gaps(config: Config, eq: Equilibrium) -> list[Any]:
    """For two seats: every stage's (row, column) pure-deviation gains computed exactly (all zero when exact)."""
    gaps = []
    tied = frozenset((0, 1))
    x2, y2 = eq.plans[0].second_for(tied), eq.plans[1].second_for(tied)
    a, b = stage_matrices(config, (0, 1), None)
    gaps.extend(bimatrix_gaps(a, b, x2, y2))
    cont = {tied: {0: _stage_value(config, 0, {0: x2, 1: y2}, None), 1: _stage_value(config, 1, {0: x2, 1: y2}, None)}}
    a, b = stage_matrices(config, (0, 1), cont)
    gaps.extend(bimatrix_gaps(a, b, eq.plans[0].first, eq.plans[1].first))
    return gaps



# -- every equilibrium of a two-seat stage: vertex enumeration ----------------------------------------
def _vertices(mat: np.ndarray, exact: list[list[Fraction]], outer: bool) -> list[tuple[tuple[Fraction, ...],
                                                                                      frozenset[int]]]:
    """Every non-zero vertex of a best-response polytope, exact, with its labels.

    ``outer`` false: ``Q = {y ≥ 0 : A y ≤ 1}`` for the row seat's payoffs ``A`` (m×n, positive), labels
    ``i`` (row ``i`` tight) and ``m + j`` (``y_j = 0``).  ``outer`` true: ``P = {x ≥ 0 : Bᵀ x ≤ 1}``
    given ``mat = Bᵀ`` (n×m), labels ``i`` (``x_i = 0``) and ``m + j`` (column ``j`` tight), so that a
    pair of vertices is an equilibrium exactly when their labels cover ``0..m+n−1`` (von Stengel 2007).
    Candidates come from float solves of every choice of tight constraints; each is then solved
    again in fractions from all its tight constraints and checked exactly.
    """
    rows_n, dim = mat.shape  # constraints mat·z ≤ 1 and z ≥ 0, z of size dim
    cons = np.vstack([mat, -np.eye(dim)])
    rhs = np.r_[np.ones(rows_n), np.zeros(dim)]
    found: dict[tuple[Fraction, ...], frozenset[int]] = {}
    seen: set[tuple[float, ...]] = set()
    for tried, tight in enumerate(itertools.combinations(range(rows_n + dim), dim)):
        if not tried % 256:
            check_stop()  # the studio's Stop, between steps of the enumeration
        sub = cons[list(tight)]
        if abs(np.linalg.det(sub)) < 1e-9:
            continue
        z = np.linalg.solve(sub, rhs[list(tight)])
        near = tuple(np.round(z, 7))
        if near in seen or (cons @ z > rhs + 1e-9).any() or not z.any():
            continue
        seen.add(near)
        on = [k for k in range(rows_n + dim) if abs(cons[k] @ z - rhs[k]) < 1e-9]
        system = [list(exact[k]) if k < rows_n else [Fraction(-(c == k - rows_n)) for c in range(dim)] for k in on]
        sol = _solve_exact(system, [Fraction(1) if k < rows_n else Fraction(0) for k in on])
        if sol is None or any(p < 0 for p in sol) or any(sum(r[c] * sol[c] for c in range(dim)) > 1 for r in exact):
            continue
        key = tuple(sol)
        if key not in found:
            tight_rows = {k for k in range(rows_n) if sum(exact[k][c] * sol[c] for c in range(dim)) == 1}
            zero = {c for c in range(dim) if sol[c] == 0}
            found[key] = frozenset(tight_rows | {rows_n + c for c in zero}) if not outer else \
                frozenset(zero | {dim + k for k in tight_rows})
    return list(found.items())


def extreme_equilibria(a: Sequence[Sequence[Any]], b: Sequence[Sequence[Any]]
                       ) -> list[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]:
    """Every extreme Nash equilibrium ``(x, y)`` of a bimatrix game with rational payoffs, in fractions.

    Vertex enumeration (Avis, Rosenberg, Savani & von Stengel 2010): every pair of a vertex of the row
    seat's best-response polytope and one of the column seat's whose labels are complementary,
    normalised to probabilities.  Correct for degenerate games, where an equilibrium component is
    the product of the convex hulls of its extreme strategies: every equilibrium is then a convex
    combination, inside one component, of pairs this list holds.
    """
    aq = [[Fraction(v) for v in r] for r in a]
    bq = [[Fraction(v) for v in r] for r in b]
    m, n = len(aq), len(aq[0])
    shift_a = 1 - min(min(r) for r in aq)
    shift_b = 1 - min(min(r) for r in bq)
    ap = [[v + shift_a for v in r] for r in aq]  # positive payoffs: the polytopes are bounded
    bt = [[bq[i][j] + shift_b for i in range(m)] for j in range(n)]
    xs = _vertices(np.array(bt, dtype=float), bt, outer=True)
    ys = _vertices(np.array(ap, dtype=float), ap, outer=False)
    every = frozenset(range(m + n))
    out = []
    for x, lx in xs:
        for y, ly in ys:
            if lx | ly == every:
                out.append((tuple(p / sum(x) for p in x), tuple(q / sum(y) for q in y)))
    return out


class Span(NamedTuple):
    """Lowest and highest P(nobody) and payoff of each seat over a set of equilibria, exact."""

    nobody: tuple[Fraction, Fraction]
    values: tuple[tuple[Fraction, Fraction], ...]  # per seat
    first_mixes: tuple[int, ...]  # each seat's distinct extreme first-round mixes
    equilibria: int  # extreme equilibria counted (first round × second auction)


class EquilibriumRange(NamedTuple):
    """Every equilibrium of a two-seat auction beside the selected one (see :func:`equilibrium_range`)."""

    selected_nobody: Any
    selected_values: tuple[Any, ...]
    given_second: Span  # every first round, the second auction played as selected
    every: Span  # every first round, for every extreme equilibrium of the second auction
    second_equilibria: int  # extreme equilibria of the second auction


def equilibrium_range(config: Config) -> EquilibriumRange:
    """The range over the two-seat auction's equilibria (P(nobody), each seat's payoff) beside the selected one.

    Subgame-perfect, as :func:`solve`: a second auction's equilibrium fixes each seat's continuation
    value and the chance of a second tie; the first round is then a bimatrix game whose every
    extreme equilibrium :func:`extreme_equilibria` lists.  P(nobody) and the payoffs are bilinear in
    the two seats' mixes, so over each component of equilibria their extremes sit at its extreme
    pairs: the range is exact over every first-round equilibrium, for the selected second auction
    (``given_second``) and for each extreme equilibrium of the second auction (``every``; a second
    auction mixing two of its extreme equilibria with different values is not enumerated).
    """
    return _range_cached(config)


@lru_cache(maxsize=32)
def _range_cached(config: Config) -> EquilibriumRange:
    if config.players != 2:
        raise InputError(f"the range over every equilibrium is enumerated for 2 players, not {config.players}")
    seats, tied = (0, 1), frozenset((0, 1))
    a2, b2 = stage_matrices(config, seats, None)
    second = extreme_equilibria(a2, b2)
    by_cont: dict[tuple[Fraction, Fraction], list[Fraction]] = {}
    for x2, y2 in second:
        cont = (_bilinear(a2, x2, y2), _bilinear(b2, x2, y2))
        by_cont.setdefault(cont, []).append(sum((p * q for p, q in zip(x2, y2, strict=False)), Fraction(0)))
    eq = solve(config)
    x2, y2 = eq.plans[0].second_for(tied), eq.plans[1].second_for(tied)
    chosen = (_bilinear(a2, x2, y2), _bilinear(b2, x2, y2))
    chosen_tie = sum((Fraction(p) * Fraction(q) for p, q in zip(x2, y2, strict=False)), Fraction(0))
    given = _span(config, [(chosen, [chosen_tie])])
    every = _span(config, list(by_cont.items()))
    return EquilibriumRange(outcome(config, eq.plans).nobody, eq.values, given, every, len(second))


def _span(config: Config, seconds: list[tuple[tuple[Fraction, Fraction], list[Fraction]]]) -> Span:
    """The extremes over every first-round equilibrium for each (continuation values, second-tie chances)."""
    seats, tied = (0, 1), frozenset((0, 1))
    nobody: list[Fraction] = []
    values: tuple[list[Fraction], list[Fraction]] = ([], [])
    mixes: tuple[set, set] = (set(), set())
    count = 0
    for cont, ties in seconds:
        a, b = stage_matrices(config, seats, {tied: dict(zip(seats, cont, strict=True))})
        for x, y in extreme_equilibria(a, b):
            count += len(ties)
            at0 = x[0] * y[0]  # a tie at 0: nobody; a tie above: a second auction, nobody if it ties again
            above = sum((p * q for p, q in zip(x[1:], y[1:], strict=False)), Fraction(0))
            nobody += [at0 + above * min(ties), at0 + above * max(ties)]
            values[0].append(_bilinear(a, x, y))
            values[1].append(_bilinear(b, x, y))
            mixes[0].add(x)
            mixes[1].add(y)
    return Span((min(nobody), max(nobody)), tuple((min(v), max(v)) for v in values), tuple(len(m) for m in mixes),
                count)


def _bilinear(mat: Sequence[Sequence[Any]], x: Sequence[Any], y: Sequence[Any]) -> Fraction:
    return sum((Fraction(mat[i][j]) * Fraction(x[i]) * Fraction(y[j]) for i in range(len(x)) for j in range(len(y))
                if x[i] and y[j]), Fraction(0))
