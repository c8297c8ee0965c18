"""``rebalance``: the smallest edits of cards or parameters that reach a balance target, verified on fresh seeds.

A game declares its balance **metrics** (:class:`Metric`: named rates computed from a played frame,
each item with its n, wins and draws; a draw counts half, as in every balance score here) and the
parameter **cells** a candidate is played in (:class:`Targets`, on the model as ``targets``).  A
designer gives a **target** — a percent band per metric, ``"deck_vs_field=48..52, first_seat=48.5..51.5"``
(:func:`parse_target`) — and an **edit space** — whole-number steps of card columns and numeric
parameters, ``"power_cost:-1..+1, might:-1..+1"`` over the cards ``"F*,S*"`` (:func:`edit_space`);
``second_bonus_wall:0..+8@battlefield`` gives one parameter per battlefield.  Every value a step can
reach is checked by the game's own loader (a card table's ``validate``) or the parameter's range.

**The search** (:func:`rebalance`) minimises three objectives at once: the distance outside the
bands (percentage points, summed over the targeted items of a tier — and, searched at several tiers, the
*worst tier's* sum, :func:`worst_tier`), the number of edits and their total size.  Why the worst tier, not
the strongest fast tier with the others as constraints: the target is met only when it is met at every
tier, so a candidate is exactly as far from it as its worst tier; a sum over tiers let a gain at one tier
buy a loss at another (Babylon's best proposal searched at greedy: greedy 8.7 → 2.0 points outside on
held-out seeds, greedy@tuned 15.1 → 17.1), and constraints would leave the racing and the additive
model no distance to rank candidates by until every constraint held.  The search plays the fast tiers
only (every one with ``Targets.search_tiers``, else the first): a game at a search tier costs about a
thousand fast ones, so that tier is verified, not searched.  It uses Optuna's NSGA-II sampler: a
well-kept, documented multi-objective optimiser whose journal storage (``<out>/search.jsonl``,
:class:`SearchJournal`) records every trial, so an interrupted search resumes where it stopped, and whose
ask/tell interface leaves seeds and sample sizes to the objective.  (pymoo's
NSGA-II would do the search as well, but has no storage: resumption would be ours to write.)
Determinism: the sampler is re-seeded before every trial from the search seed and the number of
finished trials, and reads its population only from the storage, so the same seed gives the same
proposals and a resumed search the same proposals as an uninterrupted one.  A large edit space is
searched sparsely — a candidate is at most ``max_edits`` slots, each one edit (which, by how much)
— so candidates are few-edit from the start; a small one (at most ``max_edits`` steps) densely.  After
the baseline, every one-edit candidate is played first (``screen``): the optimiser's first
generations are each edit's own effect, which crossover then combines.  A child NSGA-II proposes that was
raced as far as it goes already (its children are often a parent again, the unchanged game among them) is
pruned, as Optuna's FAQ prunes a duplicate, and its nearest candidate not raced yet is played in its place
(:func:`~workbench.core.design.rebalance.nearest._unraced_near`: one edit's step moved, an edit dropped or
added, the additive model ranking the moves): no trial is spent playing nothing, and a space whose every
candidate is raced ends the search.

**The additive model** (:func:`_additive_step`, sparse spaces): once every single edit is played, each one's
effect on every targeted item is read against the unedited game on the same games, and a mixed-integer
program (SciPy's ``milp``, HiGHS) finds, exactly, the combinations of at most ``max_edits`` single edits
whose summed effects put the items nearest their bands — over every combination, which no sampler can
enumerate (Babylon: 1.47 billion).  The single edits the best combination holds are first played on to the
last stage (their effects then read on every search game) and the model solved again; then its best
``ADDITIVE_TOP`` combinations are played to the last stage, then rounds of its best changes around the
best candidate measured (predicted from that candidate's measured rates), and NSGA-II goes on from there.
Measured distances, not the model's, decide what is proposed; the result keeps the model's ranking beside
the measurements and a note of what was covered (:func:`_additive_evidence`) — the evidence of a search that
finds nothing inside the bands.

A **separable** space is searched part by part instead (:func:`_separable`): when every edit is a
parameter scoped to some cells (``second_bonus_wall@battlefield``) and each targeted item is counted in
one part's cells only, the distance is a sum over the parts and each part is moved by its own edits
alone.  Every combination of a part's steps is played at the first stage, the better half (by the part's
own robust distance — how far its 95 % intervals reach outside the bands — then fewer edits, then room
inside the bands) goes on stage by stage, and the best of every part is composed into one candidate; its
one-step neighbours follow, and the search ends there (every other candidate is a choice among options
already measured).  The duel's start values per battlefield
and Babel's hands per variant are searched this way.

Every candidate is played on **common random numbers** — the same game seeds, from one master seed,
in every cell (a card edit only in the cells whose games can use the card, when the game declares
``Targets.uses_card``; the others are the unedited game's, read from the memo) — and **raced**: a
first stage of ``games`` games per cell, then ``factor`` times more only while the candidate's 50 %
intervals could still beat the best distance found so far and its distance is among the best
``1/factor`` at its stage (asynchronous successive halving; the baseline
is always played to the last stage first).  Games are played through the runner's
:func:`~workbench.core.sim.runner.execute`, so ``workers`` and ``backend="dask"`` work as for ``simulate``
and give the same counts.  ``should_stop()`` (the studio's Stop) or Ctrl-C ends the search keeping
every finished trial (the result says it was stopped; ``resume`` continues it).

**The budget bounds the whole run**: ``verify_share`` of it (the game's, 0.25 unless it says) is kept for the
held-out check and its re-tunes, the search plays the rest and never starts a stage it could not pay for
(a cell read from the memo costs nothing); the check sizes itself to what is left (:func:`verify_plan`:
fewer proposals, then fewer games a cell with the wider margin said, then the search tier left out), so
a run plays at most ``budget`` games.  :func:`run_size` gives the whole run's size before it runs.
``verify_share=0`` is the earlier reading: the budget is the search's, the held-out check on top.

**Verification**: the Pareto set (at most ``verify`` proposals) and the baseline are re-played on
held-out seeds — a master seed no search stage used; the game seeds of both are compared and must
be disjoint — with games per cell chosen so every targeted item has n for ±``margin`` at 50 %, at
every skill tier (``core/skill/tiers.py``; default every declared tier, the search tier included: there the
unchanged game and the best proposal replay ``slow_games`` a cell, a floor).  Each item's status at a
tier is inside or outside its band; a tier played on fewer games than the margin asks reads the 95 %
interval instead, and an item whose interval crosses a band's edge is *undecided* — the table says so
rather than count it either way.  A proposal holds only when every tier reads inside.  A tier's weight set tuned for
the shipped cards plays the edited cards with the same weights — or, with ``retune=N``, with weights
re-tuned for each proposal (``core/design/cardtable.py``'s :func:`~workbench.core.design.cardtable.retune_weights`:
N games from the set, on the proposal's cells, seeds asserted disjoint from the search's and the
held-out ones); the verification then names the weights each row played (``Targets.retune``: on by
default for the duel, Babel and Babylon — edited cards change best play; left out, and said, when the
re-tunes would crowd out the held-out games).  Each metric is shown before → after with its interval and
status, and each proposal gets a verdict: meets the target at every tier, only at some tiers (the others
outside, undecided or not replayed, named), only on the search seeds, or misses it.

**Output** (:class:`RebalanceResult`): polars frames of proposals and of the held-out measurements,
each proposal's card set saved as a CSV under ``<out>/proposals/`` (never over a shipped file), and
:func:`report_section` for a report.  The CLI is ``workbench rebalance`` (``workbench/cli/rebalance.py``).
"""

from __future__ import annotations

from workbench.core.design.rebalance.additive import EDIT_PENALTY, additive_table
from workbench.core.design.rebalance.play import TIER_SEP, measure, metric_counts, worst_tier
from workbench.core.design.rebalance.report import (
    REPORT_SEARCH,
    add_report_section,
    budget_progress,
    full_command,
    proposals_table,
    report_section,
    retunes_table,
    search_label,
    searched_text,
    verification_table,
)
from workbench.core.design.rebalance.result import RebalanceResult
from workbench.core.design.rebalance.run import rebalance
from workbench.core.design.rebalance.space import Candidate, Dim, edit_space, parse_edit
from workbench.core.design.rebalance.targets import (
    DB,
    LEGACY_DB,
    Band,
    Metric,
    Targets,
    check_measurable,
    first_seat_metric,
    one_card_set,
    parse_target,
    score_counts,
    targets_of,
)
from workbench.core.design.rebalance.verify import run_size, verify_plan

__all__ = ["Band", "Candidate", "DB", "Dim", "EDIT_PENALTY", "LEGACY_DB", "Metric", "REPORT_SEARCH",
           "RebalanceResult", "TIER_SEP", "Targets", "add_report_section", "additive_table", "budget_progress",
           "check_measurable", "edit_space", "first_seat_metric", "full_command", "measure", "metric_counts",
           "one_card_set", "parse_edit", "parse_target", "proposals_table", "rebalance", "report_section",
           "retunes_table", "run_size", "score_counts", "search_label", "searched_text", "targets_of",
           "verification_table", "verify_plan", "worst_tier"]
