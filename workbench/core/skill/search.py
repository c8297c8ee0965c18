"""One search agent for every game: flat Monte Carlo over determinised worlds, a heuristic prior, fast rollouts.

The game lends the search its hooks through the model (``GameModel.search``, a
:class:`~workbench.core.model.SearchHooks`), in the spirit of OpenSpiel's ``MCTSBot(game, evaluator)``:
the search knows only the protocol and the hooks, the game knows nothing of the search.

A decision, from what the seat observes and nothing else:

1. **Prior.**  The game's heuristic (greedy's score, ``hooks.prior``, with the weights of the ``prior``
   agent, by default the rollout agent, by default the game's best fast policy: ``rollout=best``, below) ranks
   the legal actions; actions the game calls the same
   (``hooks.key``: two copies of a card) count once.  One legal action, one candidate, or an immediate
   win (a score of at least ``hooks.win``) is played without search (the agent's stream is not touched).
2. **Worlds.**  ``budget // width`` worlds are dealt by the game's ``determinise`` from the seat's
   observation and the agent's own stream: the hidden cards (the opponent's hand, the deck order) and
   the game's random streams drawn afresh.  The search never sees the real state.  Where the game's
   compiled engine deals them (``hooks.deal``: Babylon, the duel) all of a decision's worlds are dealt in
   one call, with the same draws from the agent's stream (the same decisions, without a Python round trip
   per world; ``tests/test_search.py``).
3. **Rollouts.**  Every one of the ``width`` best candidates is played in *every* world, each world's
   rollout agents drawing from the same two seeds (common random numbers: a difference between two
   candidates comes from the action, not from the luck of the deal).  The game is played on by the
   ``rollout`` agent in both seats, to the end, or until ``horizon`` more turns have begun (then the
   game's ``value`` hook scores the position).  The rollout agent is by default ``best``: the game's best
   fast policy (:func:`best_rollout`: ``core/skill/tiers.py``'s ``best_fast_policy``, the strongest declared fast
   tier, e.g. ``greedy@raised`` written by ``core/skill/raising.py``, where the compiled rollouts play it), so a
   better fast policy raises the search; ``rollout=greedy`` (or any spec) plays another.  A won rollout is
   worth 1, a drawn one 0.5, a lost one 0.
   Where the game's compiled engine plays the rollout agent (``hooks.policies``), the rollouts run in
   it, all of one decision in one call (``hooks.rollout``, the kernel's continue-from-a-state entry,
   proven equal to :func:`play_on` in ``tests/test_search.py``); elsewhere core's reference loop plays them.
4. **Choice.**  The candidate with the highest mean; ties keep the prior's order.  With ``z > 0`` the
   search departs from the prior's first choice only when the best candidate's mean paired gain over it
   exceeds ``z`` standard errors (a handful of noisy rollouts must not overrule the heuristic).
5. **Racing** (``race > 0``; off by default).  The worlds are dealt and played in batches (a sixth of them,
   at least 8 a batch, in the order they are dealt without racing); after each batch a candidate whose
   mean paired loss to the leader exceeds ``race`` standard errors stops being played, and the search
   stops once one candidate is left.  Easy decisions then cost a fraction of the budget, and the time
   saved buys a larger budget for the close ones (the duel: about a third of the worlds saved at 3
   standard errors, the full search's choice kept in 99 % of the decisions).  The choice is step 4 over
   the candidates left (the best mean when the prior's choice has left).  With ``z <= race`` and all the
   worlds in one batch, the choice is the one without racing.

**Why flat Monte Carlo, not PUCT.**  ``mode=puct`` is MCTS with the prior at the root (PUCT: each
rollout goes to the candidate maximising ``Q + c·P·√N / (1 + n)``, a fresh world each).  On the duel
(Crystal Garden, regular deck; the same 100 seeds, both seats, against ``greedy@tuned``, budget 64,
``benchmarks/search.py``) flat Monte Carlo won 54.5 % [47.6, 61.3] at 0.071 s a game and PUCT 47.0 %
[40.2, 53.9] at 0.480 s a game.  Flat wins on both counts, and for reasons that hold in every game
here: the rollouts are where the time goes, and flat Monte Carlo runs all of a decision's rollouts in
one compiled call while PUCT must ask for them one at a time; and what limits strength is the noise of
each candidate's estimate, which common random numbers over the same worlds cut (every candidate meets
every world) while PUCT's steering gives the prior's weaker alternatives too few worlds to overrule it.
A deeper tree would be built over determinised worlds whose hidden cards each tree would see (strategy
fusion), so the search stays at the root.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from workbench.core.errors import InputError
from workbench.core.model import TERMINAL, AgentDecl, AgentSpec, GameModel, Param, SearchHooks, get_game
from workbench.core.rng import SplitMix64

__all__ = ["BEST", "SearchAgent", "best_rollout", "play_on", "provided_decl", "reference_rollouts", "search_decl"]

BEST = "best"  # the rollout option's default: the game's best fast policy (best_rollout)
# options every game's search has; a game's ``SearchHooks.options`` changes the defaults
DEFAULTS: dict[str, Any] = {"budget": 64, "width": 4, "horizon": 0, "rollout": BEST, "prior": None, "z": 0.0,
                            "mode": "flat", "c": 1.0, "race": 0.0}
MODES = ("flat", "puct")


def _hook(ref: str | None) -> Any:
    if ref is None:
        return None
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


def best_rollout(model: GameModel, hooks: SearchHooks) -> str:
    """The rollout (and prior) agent ``rollout=best`` names: the game's best fast policy.

    That is :func:`workbench.core.skill.tiers.best_fast_policy` (the strongest declared fast tier, e.g.
    ``greedy@raised`` once the raising loop wrote it, else ``greedy@tuned``) when the game's compiled
    rollouts play its agent (``hooks.policies``) or the game has none; else the strongest fast tier they
    play (rollouts at compiled speed beat a stronger policy played a hundred times slower).
    """
    from workbench.core.skill.tiers import best_fast_policy, fast_tiers

    best = best_fast_policy(model)
    if hooks.rollout is None or AgentSpec.parse(best).name in hooks.policies:
        return best
    played = [t.agent for t in fast_tiers(model) if AgentSpec.parse(t.agent).name in hooks.policies]
    return played[-1] if played else best


def play_on(model: GameModel, hooks: SearchHooks, config: Any, state: Any, agents: Sequence[Any],
            rngs: Sequence[SplitMix64], *, stop: int | None = None, max_steps: int = 10**6) -> Any:
    """Core's reference loop from ``state``: the game played on by ``agents`` (drawing from ``rngs``).

    It ends at the end of the game, or once the game's clock (``hooks.clock``, turns begun) reaches
    ``stop``.  Chance nodes are sampled from the game's own streams in the state, as ``core.sim.play`` does.
    """
    from workbench.core.sim.play import step

    clock = _hook(hooks.clock) if stop is not None else None
    for _ in range(max_steps):
        if model.current_player(config, state) == TERMINAL:
            return state
        if clock is not None and clock(config, state) >= stop:
            return state
        _, _, state = step(model, config, state, agents, rngs)
    raise RuntimeError(f"{model.name}: a rollout did not end within {max_steps} steps")


def reference_rollouts(model: GameModel, hooks: SearchHooks, config: Any, worlds: Sequence[Any],
                       actions: Sequence[Any], seat: int, policy: AgentSpec, horizon: int,
                       seeds: np.ndarray) -> np.ndarray:
    """``values[world, action]``: each action played in each world, then :func:`play_on` by ``policy`` in every seat.

    ``seeds[world]`` are the rollout agents' stream states, one per seat.  A finished game is worth 1
    for a win of ``seat``, 0.5 for a draw, 0 for a loss; a game cut after ``horizon`` turns the
    game's ``value`` hook.
    """
    clock, value = _hook(hooks.clock), _hook(hooks.value)
    players = model.players(config)
    out = np.zeros((len(worlds), len(actions)))
    for w, world in enumerate(worlds):
        stop = clock(config, world) + horizon if horizon > 0 else None
        for a, action in enumerate(actions):
            agents = [model.make_agent(policy) for _ in range(players)]
            rngs = [SplitMix64(int(seeds[w][s])) for s in range(players)]
            end = play_on(model, hooks, config, model.apply(config, world, action), agents, rngs, stop=stop)
            if model.current_player(config, end) == TERMINAL:
                out[w, a] = (model.returns(config, end)[seat] + 1.0) / 2.0
            else:
                out[w, a] = value(config, end, seat, policy)
    return out


class SearchAgent:
    """Flat Monte Carlo over determinised worlds with a heuristic prior (the module docstring)."""

    name = "search"

    def __init__(self, game: GameModel | str, hooks: SearchHooks | None, budget: int, width: int, horizon: int,
                 rollout: str, z: float, mode: str = "flat", c: float = 1.0, prior: str | None = None,
                 race: float = 0.0) -> None:
        model = get_game(game)
        hooks = hooks if hooks is not None else model.search
        if hooks is None:
            raise InputError(f"{model.name}: the game declares no search hooks (GameModel.search)")
        self.model, self.hooks = model, hooks
        self.budget, self.width, self.horizon, self.z, self.mode, self.c = budget, width, horizon, z, mode, c
        self.race = race
        self.rollout, self.prior_option = rollout, prior
        self.ready = False
        # every decision the flat search rolls out (not raced, not PUCT), when a caller sets a list here: (config,
        # candidates best first by the prior, the index played, each candidate's mean rollout value) — where the
        # search overrules its prior (benchmarks/search_departures.py); None (the default) keeps nothing
        self.trace: list[tuple[Any, list[Any], int, np.ndarray]] | None = None
        if rollout != BEST:  # an explicit agent is checked now; ``best`` at the first decision (it reads the
            self.resolve()   # game's tiers, and checking those builds this agent: a cycle)
        elif prior is not None and model.resolve_spec(prior).name == "search":
            raise InputError(f"{model.name}: search option 'prior': {prior!r} — the prior is a heuristic agent's "
                             f"score; allowed: an agent spec of {', '.join(a for a in model.agents if a != 'search')}")
        elif prior is not None:
            model.make_agent(model.resolve_spec(prior))  # an unknown prior is refused when the agent is built

    def resolve(self) -> None:
        """Resolve the rollout and prior agents (``best``: :func:`best_rollout`) and the rollout engine."""
        model, rollout, prior = self.model, self.rollout, self.prior_option
        if rollout == BEST:
            rollout = best_rollout(model, self.hooks)
        others = ", ".join(a for a in model.agents if a != "search")
        try:
            self.policy = model.resolve_spec(rollout)
            if self.policy.name == "search":
                raise InputError("search cannot roll out with itself")
            model.make_agent(self.policy)  # an unknown agent or option is refused here
        except InputError as exc:
            raise InputError(f"{model.name}: search option 'rollout': {rollout!r} is not a rollout agent ({exc}); "
                             f"allowed: an agent spec of {others}") from None
        self.prior_spec = self.policy if prior is None else model.resolve_spec(prior)
        if self.prior_spec.name == "search":
            raise InputError(f"{model.name}: search option 'prior': {prior!r} — the prior is a heuristic agent's "
                             f"score; allowed: an agent spec of {others}")
        model.make_agent(self.prior_spec)
        self.prior, self.key = _hook(self.hooks.prior), _hook(self.hooks.key)
        compiled = self.hooks.rollout is not None and self.policy.name in self.hooks.policies
        self.rollouts = _hook(self.hooks.rollout) if compiled else partial(reference_rollouts, model, self.hooks)
        self.dealer = _hook(self.hooks.deal) if compiled else None  # the worlds dealt in the compiled engine too
        self.ready = True

    def candidates(self, observation: Any, legal: Sequence[Any], config: Any) -> tuple[list[Any], bool]:
        """The prior's best distinct actions, best first, and whether the first wins at once."""
        if not self.ready:
            self.resolve()
        scores = self.prior(config, observation, legal, self.prior_spec)
        seen, ranked = set(), []
        for order in sorted(range(len(legal)), key=lambda i: (-scores[i], i)):
            key = order if self.key is None else self.key(config, observation, legal[order])
            if key not in seen:
                seen.add(key)
                ranked.append(legal[order])
        return ranked[:self.width], scores[legal.index(ranked[0])] >= self.hooks.win

    def act(self, observation: Any, legal: Sequence[Any], config: Any, rng: SplitMix64) -> Any:
        """Search, then play the best candidate (one legal action, or one candidate: no search)."""
        if len(legal) == 1:
            return legal[0]
        if not self.ready:
            self.resolve()
        candidates, wins = self.candidates(observation, legal, config)
        if wins or len(candidates) == 1:
            return candidates[0]
        if self.mode == "puct":
            return candidates[self.puct(observation, candidates, config, rng)]
        count = max(1, self.budget // len(candidates))
        if self.race > 0:
            return candidates[self.raced(observation, candidates, config, rng, count)]
        seat, worlds, seeds = self.deal(observation, config, rng, count)
        values = np.asarray(self.rollouts(config, worlds, candidates, seat, self.policy, self.horizon, seeds),
                            dtype=np.float64)
        pick = choose(values, self.z)
        if self.trace is not None:
            self.trace.append((config, candidates, pick, values.mean(axis=0)))
        return candidates[pick]

    def deal(self, observation: Any, config: Any, rng: SplitMix64, count: int) -> tuple[int, list[Any], np.ndarray]:
        """``count`` determinised worlds and their rollout agents' seeds (one per seat), from the agent's stream.

        Where the game's compiled engine deals them (``hooks.deal``) it does, with the same draws from ``rng``.
        """
        if self.dealer is not None:
            return self.dealer(config, observation, rng, count)
        worlds, seeds, seat = [], [], 0
        for _ in range(count):
            seat, world = self.model.determinise(config, observation, rng)
            worlds.append(world)
            seeds.append((rng.next_u64(), rng.next_u64()))
        return seat, worlds, np.array(seeds, dtype=np.uint64)

    def raced(self, observation: Any, candidates: list[Any], config: Any, rng: SplitMix64, count: int) -> int:
        """Step 5 of the module docstring: the index of the chosen candidate."""
        batch = max(8, -(-count // 6))
        alive = list(range(len(candidates)))
        rows: list[np.ndarray] = []  # per batch: values[world, candidate], NaN where a candidate was not played
        done = 0
        while done < count and len(alive) > 1:
            seat, worlds, seeds = self.deal(observation, config, rng, min(batch, count - done))
            block = np.full((len(worlds), len(candidates)), np.nan)
            block[:, alive] = self.rollouts(config, worlds, [candidates[i] for i in alive], seat, self.policy,
                                            self.horizon, seeds)
            rows.append(block)
            done += len(worlds)
            alive = survivors(np.vstack(rows)[:, alive], self.race, alive)
        if len(alive) == 1:
            return alive[0]
        # the prior's choice out of the race (3+ candidates) means a clear loss: z no longer protects it
        return alive[choose(np.vstack(rows)[:, alive], self.z if alive[0] == 0 else 0.0)]

    def puct(self, observation: Any, candidates: list[Any], config: Any, rng: SplitMix64) -> int:
        """Root PUCT: each of ``budget`` rollouts goes to the candidate maximising ``Q + c·P·√N / (1 + n)``.

        ``P`` is the prior by rank (the k-th best candidate ``∝ 1 / k``), ``Q`` a candidate's mean (0.5
        before its first rollout), ``n`` its rollouts, ``N`` all of them; each rollout is a fresh world.  The
        most visited candidate is played (ties keep the prior's order).
        """
        k = len(candidates)
        prior = np.array([1.0 / (i + 1) for i in range(k)])
        prior /= prior.sum()
        visits, totals = np.zeros(k), np.zeros(k)
        for done in range(max(k, self.budget)):
            mean = np.where(visits > 0, totals / np.maximum(visits, 1), 0.5)
            pick = int(np.argmax(mean + self.c * prior * math.sqrt(done + 1) / (1 + visits)))
            seat, world = self.model.determinise(config, observation, rng)
            seeds = np.array([(rng.next_u64(), rng.next_u64())], dtype=np.uint64)
            value = self.rollouts(config, [world], [candidates[pick]], seat, self.policy, self.horizon, seeds)
            visits[pick] += 1
            totals[pick] += float(np.asarray(value)[0, 0])
        return int(np.flatnonzero(visits == visits.max())[0])


def survivors(values: np.ndarray, race: float, alive: list[int]) -> list[int]:
    """The entries of ``alive`` (the columns of ``values``) still in the race.

    A column stays unless its mean paired loss to the best column exceeds ``race`` standard errors.
    """
    means = values.mean(axis=0)
    best = int(np.argmax(means))
    n = values.shape[0]
    kept = []
    for j, name in enumerate(alive):
        diffs = values[:, best] - values[:, j]
        gap = float(diffs.mean())
        error = math.sqrt(float(diffs.var(ddof=1)) / n) if n > 1 else math.inf
        if j == best or gap <= 0.0 or gap <= race * error:
            kept.append(name)
    return kept


def choose(values: np.ndarray, z: float = 0.0) -> int:
    """The column (candidate) with the highest mean over the rows (worlds); ties keep the first.

    With ``z > 0``, column 0 (the prior's choice) stays unless the best column's mean paired gain over it
    exceeds ``z`` standard errors.
    """
    means = values.mean(axis=0)
    best = int(np.flatnonzero(means >= means.max() - 1e-12)[0])
    if z <= 0.0 or best == 0:
        return best
    diffs = values[:, best] - values[:, 0]
    n = len(diffs)
    if n < 2:
        return 0
    error = math.sqrt(float(diffs.var(ddof=1)) / n)
    return best if float(diffs.mean()) > z * error else 0


def search_decl(game: GameModel | str, hooks: SearchHooks | None = None) -> AgentDecl:
    """Core's ``search`` agent for a game and its hooks (default: the model's ``search``), the game's option defaults.

    A game names itself (``search_decl("duel", HOOKS)`` in its agent declarations, the model being
    looked up when an agent is built) or hands its model (``GameModel.search`` declared).
    """
    if hooks is None:
        hooks = get_game(game).search
    if hooks is None:
        raise InputError(f"{game}: the game declares no search hooks")
    d = {**DEFAULTS, **dict(hooks.options)}
    options = (
        Param("budget", d["budget"], int, "rollouts per decision (shared by the candidates)", 1, 100_000),
        Param("width", d["width"], int, "candidate actions: the best by the heuristic's score", 1, 64),
        Param("horizon", d["horizon"], int, "turns begun after the decision before a rollout stops and the "
              "position is scored (0: play to the end)", 0, 1000),
        Param("rollout", d["rollout"], str, "the rollout agent for both seats (compiled where the engine plays it: "
              f"{', '.join(hooks.policies) or 'none'}); best: the game's best fast tier (core/skill/tiers.py "
              "best_fast_policy) the compiled rollouts play"),
        Param("prior", d["prior"], str, "the agent whose score ranks the candidates (none: the rollout agent)",
              optional=True),
        Param("z", d["z"], float, "standard errors a candidate's paired gain over the heuristic's choice must "
              "exceed (0: the best mean)", 0.0, 100.0),
        Param("mode", d["mode"], str, "flat: every candidate in every world; puct: rollouts steered by the prior "
              "(PUCT at the root)", choices=MODES),
        Param("c", d["c"], float, "PUCT's exploration constant", 0.0, 100.0),
        Param("race", d["race"], float, "flat: standard errors of paired loss to the leader after which a "
              "candidate stops being played, worlds dealt in batches (0: every candidate in every world)", 0.0,
              100.0))
    fast = f", rollouts in the compiled engine for {'/'.join(hooks.policies)}" if hooks.rollout else ""
    return AgentDecl("search", partial(SearchAgent, game, hooks),
                     f"flat Monte Carlo over determinised worlds, the heuristic as prior{fast}", options)


def provided_decl(model: GameModel) -> AgentDecl | None:
    """Core's search for a game that declares its ``search`` hooks (``AGENT_PROVIDERS``), else None."""
    return search_decl(model, model.search) if model.search is not None else None
