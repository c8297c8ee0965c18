"""Two paths, one answer: the duel's compiled kernel against the reference engine, beyond the harness.

The parity harness (``tests/test_parity.py``) plays every battlefield × deck type under the duel's
declared variants (``fast.VARIANTS``) on both engines.  Here: a coverage test that traces every
ending and rules branch on the reference engine and asks the kernel for the same frame, a
hypothesis test that edits card costs and effect amounts at random (up to the allowed maximum 999)
with valued cards — budget ``DUEL_FAST_EXAMPLES`` (default 10) examples of ``DUEL_FAST_GAMES``
(default 30) games, e.g. ``DUEL_FAST_EXAMPLES=500 DUEL_FAST_GAMES=40`` for a thorough run — and the
edited-file, chunking, small-hand and default-study checks.
"""

from __future__ import annotations

import os

import numpy as np
import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from workbench.core.model import CHANCE, AgentSpec
from workbench.core.sim.play import play_game, rows_to_frame
from workbench.core.sim.runner import simulate
from workbench.core.sim.seeding import game_seeds
from workbench.games.duel import rules, studies
from workbench.games.duel.data import CARDS_CSV, CardSet, load_battlefields, load_cards
from workbench.games.duel.effects import MAX_AMOUNT, RESOURCES, Cond, Effect, Op, Statement
from workbench.games.duel.engine import fast
from workbench.games.duel.model import BATTLEFIELD_KEYS, MODEL, build_config
from workbench.games.duel.results import RESULT_SCHEMA
from workbench.games.duel.rules import MISS, Config

EXAMPLES = int(os.environ.get("DUEL_FAST_EXAMPLES", "10"))
GAMES_PER_EXAMPLE = int(os.environ.get("DUEL_FAST_GAMES", "30"))

# one rules variant per cell, rotating so every reading meets both deck types (the parity table's own)
VARIANTS = list(fast.RULE_VARIANTS)
CELLS = [(b, d) for b in BATTLEFIELD_KEYS for d in ("regular", "unlimited")]


def _reference(config: Config, agents: tuple[str, ...], seeds: np.ndarray) -> pl.DataFrame:
    """Core's reference loop on a config built here (edited card sets have no file)."""
    players = [MODEL.make_agent(a) for a in agents]
    return rows_to_frame([MODEL.result_row(config, play_game(MODEL, config, players, int(s))) for s in seeds],
                         RESULT_SCHEMA)


def compare(config: Config, agents: tuple[str, ...], seeds: np.ndarray, first: str) -> int:
    """Assert identical frames on both engines; returns the number of games compared."""
    config = config._replace(first=first)
    specs = tuple(AgentSpec.parse(a) for a in agents)
    quick = fast.play_chunk(config, specs, seeds, first)
    assert quick.schema == pl.Schema(RESULT_SCHEMA)
    assert_frame_equal(_reference(config, agents, seeds), quick)
    return len(seeds)


# ------------------------------------------------------------------------------- coverage of the rules
# The sample the coverage test plays on both engines: per cell (with its variant) random vs random and
# greedy vs greedy games (greedy reaches the battlefields' tower and resource goals); two stretches of the
# Coastal Fortress cell that hold its rare events (both players winning at once, "draw", about one random
# game in 300; greedy building the tower to 150); and one-card hands, where "play again" empties the hand.
COVERAGE_GAMES = {"random": 40, "greedy": 12}
COASTAL = CELLS.index(("coastal_fortress", "regular"))
COVERAGE_EXTRA = [(COASTAL, {}, ("random", "random"), 800, 900), (COASTAL, {}, ("greedy", "greedy"), 20_170, 20_190),
                  (0, {"hand_size": 1, "deck": "unlimited"}, ("random", "random"), 0, 40)]


def _coverage_sample():
    """(params, config, agents, seeds) of the coverage sample."""
    def cell_params(cell: int, extra: dict) -> dict:
        battlefield, deck = CELLS[cell]
        return MODEL.resolve_params({"battlefield": battlefield, "deck": deck, **VARIANTS[cell % len(VARIANTS)],
                                     **extra})

    runs = [(cell, {}, ("random", "random"), 0, COVERAGE_GAMES["random"]) for cell in range(len(CELLS))]
    runs += [(cell, {}, ("greedy", "greedy"), 20_000, 20_000 + COVERAGE_GAMES["greedy"]) for cell in range(len(CELLS))]
    for cell, extra, agents, start, stop in runs + COVERAGE_EXTRA:
        params = cell_params(cell, extra)
        yield params, build_config(params)._replace(first=params["first"]), agents, game_seeds(1000 + cell, start, stop)


def _holds(cond: Cond, me: int, players) -> bool:
    """An effect condition, read from data/duel/EFFECTS.md (written here, not taken from the rules)."""
    side = {"self": me, "enemy": 1 - me}
    lhs = getattr(players[side[cond.who]], cond.stat)
    rhs = getattr(players[side[cond.rhs_who]], cond.rhs_stat) if cond.rhs_who else cond.rhs_const
    return {"<": lhs < rhs, "<=": lhs <= rhs, ">": lhs > rhs, ">=": lhs >= rhs, "==": lhs == rhs,
            "!=": lhs != rhs}[cond.cmp]


def _card_branches(config: Config, me: int, players, card, seen: set[str]) -> None:
    """The branches one played card takes: each condition's side, each special target and rounding."""
    players = list(players)
    players[me] = players[me]._replace(**{card.resource: getattr(players[me], card.resource) - card.cost})
    players = tuple(players)
    for statement in card.effect.statements:
        ops = statement.then
        if statement.cond is not None:
            taken = _holds(statement.cond, me, players)
            seen.add(f"card {card.key}: {'then' if taken else 'else'}")
            ops = statement.then if taken else statement.orelse
        for op in ops:
            if op.who == "everyone":
                seen.add(f"lightning={config.lightning}: everyone.damage")
            if op.who == "lower_wall":
                mine, theirs = players[me].wall, players[1 - me].wall
                seen.add("lower_wall: one lower wall" if mine != theirs else
                         f"lower_wall: equal walls, groundwater={config.groundwater}")
            if op.kind == "steal" and min(getattr(players[1 - me], op.stat), op.amount) % 2:
                seen.add(f"steal: odd loss halved, thief_rounding={config.thief_rounding}")
            if op.kind == "damage":
                hit = [1 - me] if op.who == "enemy" else [me, 1 - me] if op.who in ("all", "everyone") else [me]
                if any(op.amount > players[s].wall for s in hit if op.who != "everyone" or
                       config.lightning == "everyone" or s != me):
                    seen.add("damage: through the wall to the tower")
            players = rules.apply_op(players, me, op, config)


def _trace(config: Config, params: dict, seen: set[str]):
    """An observer for core's loop that names each rules branch a step takes."""
    cards = config.cards.cards

    def observe(before, who, action, after) -> None:
        g, h = before.game, after.game
        if len(h.deck) > len(g.deck):
            seen.add("regular deck: the discard pile reshuffled")
        if who == CHANCE:
            if action == MISS:
                seen.add(f"missed turn: worst card by {params['worst_card']}")
            elif g.missed[g.current] > 0:
                seen.add("on time after a miss: the run of misses resets")
            if h.outcome is not None and action != MISS:
                seen.add("a win at the start of a turn (production)")
            return
        me = g.current
        if action.kind == rules.DISCARD:
            if g.pending_discard:
                source = cards[g.played[me][-1]]
                seen.add("draw_discard: the discard" + (", then play again" if source.effect.again and
                                                        h.outcome is None and h.current == me else ""))
            return
        card = cards[g.hands[me][action.slot]]
        seen.add(f"card played: {card.key}")
        _card_branches(config, me, g.players, card, seen)
        if h.outcome is None and card.effect.draw_discard:
            seen.add("draw_discard: a card drawn, a discard owed")
        elif h.outcome is None and card.effect.again:
            seen.add("again: one more action" if h.current == me else "again with an empty hand: the turn ends")

    return observe


def _frame_branches(frame: pl.DataFrame, config: Config, seen: set[str]) -> None:
    """What a result frame shows of the rules: endings, cards played, misses, reshuffles, battlefield goals."""
    bf, key = config.battlefield, {c.id: c.key for c in config.cards.cards}
    for row in frame.iter_rows(named=True):
        seen.add(f"ending: {row['reason']}")
        seen |= {f"card played: {key[c]}" for c in row["played_p1"] + row["played_p2"]}
        if row["missed_p1"] + row["missed_p2"]:
            seen.add("missed turn")
        if config.deck == "regular" and len(row["drawn_p1"]) + len(row["drawn_p2"]) > len(config.cards):
            seen.add("regular deck: the discard pile reshuffled")
        if row["winner"] in ("p1", "p2"):
            won = row["winner"]
            if row["reason"] == "tower_built" and row[f"tower_{won}"] >= bf.win_tower:
                seen.add(f"{bf.key}: tower built to {bf.win_tower}")
            if row["reason"] == "resources" and max(row[f"{r}_{won}"] for r in RESOURCES) >= bf.win_resources:
                seen.add(f"{bf.key}: {bf.win_resources} of a resource")


def _expected_branches(cards) -> set[str]:
    """Every branch the rules and the card data declare (what the coverage test claims is reached)."""
    out = {f"ending: {r}" for r in rules.REASONS}
    out |= {f"card played: {c.key}" for c in cards}
    out |= {f"card {c.key}: {side}" for c in cards for s in c.effect.statements if s.cond for side in ("then", "else")}
    out |= {f"{b.key}: tower built to {b.win_tower}" for b in load_battlefields().values()}
    out |= {f"{b.key}: {b.win_resources} of a resource" for b in load_battlefields().values()}
    out |= {"regular deck: the discard pile reshuffled", "missed turn: worst card by value",
            "missed turn: worst card by cost", "on time after a miss: the run of misses resets",
            "a win at the start of a turn (production)", "lightning=everyone: everyone.damage",
            "lightning=enemy: everyone.damage", "lower_wall: one lower wall",
            "lower_wall: equal walls, groundwater=both",
            "lower_wall: equal walls, groundwater=nobody", "steal: odd loss halved, thief_rounding=up",
            "steal: odd loss halved, thief_rounding=down", "damage: through the wall to the tower",
            "draw_discard: a card drawn, a discard owed", "draw_discard: the discard, then play again",
            "again: one more action", "again with an empty hand: the turn ends"}
    return out


def test_every_ending_and_branch_is_reached():
    """The parity variants reach every ending and every rules branch, on both engines.

    The reference engine is traced step by step (each condition's then/else side, Lightning's and
    Groundwater's readings, Thief's rounding, play again, draw-and-discard, the timer's misses,
    reshuffles, production wins, each battlefield's goals); the compiled kernel plays the same games
    to identical frames, and its own frames show every ending, every card played, missed turns,
    reshuffles and every battlefield goal.  A branch missing is named.
    """
    cards = build_config(MODEL.resolve_params()).cards.cards
    expected = _expected_branches(cards)
    traced: set[str] = set()
    shown_ref: set[str] = set()
    shown_fast: set[str] = set()
    for params, config, agents, seeds in _coverage_sample():
        players = [MODEL.make_agent(a) for a in agents]
        observe = _trace(config, params, traced)
        rows = []
        for seed in seeds:
            initial = MODEL.initial_state(config, int(seed)).game
            if initial.players[0] != initial.players[1]:
                traced.add("second mover's bonus")
            final = play_game(MODEL, config, players, int(seed), observer=observe)
            rows.append(MODEL.result_row(config, final))
            traced.add(f"ending: {final.game.outcome[1]}")
        reference = rows_to_frame(rows, RESULT_SCHEMA)
        quick = fast.play_chunk(config, tuple(AgentSpec.parse(a) for a in agents), seeds, params["first"])
        assert_frame_equal(reference, quick)  # the kernel played the very games the branches fired in
        _frame_branches(reference, config, shown_ref)
        _frame_branches(quick, config, shown_fast)
    traced |= shown_ref
    missing = sorted(expected - traced)
    assert not missing, f"rules branches never reached on the reference engine: {missing}"
    visible = {b for b in expected if b.startswith(("ending:", "card played:", "regular deck:"))
               or ": tower built to " in b or " of a resource" in b} | {"missed turn"}
    missing_fast = sorted(visible - shown_fast)
    assert not missing_fast, f"never reached by the compiled kernel: {missing_fast}"
    assert "second mover's bonus" in traced


# ------------------------------------------------------------------------------------ edited cards
def _edit_amount(op: Op, amount: int) -> Op:
    if op.kind == "add":
        return op._replace(amount=amount if op.amount >= 0 else -amount)
    if op.kind in ("damage", "steal"):
        return op._replace(amount=amount)
    return op


def _edit_effect(effect: Effect, amounts: list[int]) -> Effect:
    it = iter(amounts)
    statements = []
    for s in effect.statements:
        cond = s.cond
        if isinstance(cond, Cond) and not cond.rhs_who:
            cond = cond._replace(rhs_const=next(it, cond.rhs_const))
        statements.append(Statement(cond, tuple(_edit_amount(o, next(it, o.amount)) for o in s.then),
                                    tuple(_edit_amount(o, next(it, o.amount)) for o in s.orelse)))
    return effect._replace(statements=tuple(statements))


edits = st.lists(st.tuples(st.integers(0, 101), st.integers(0, 60), st.lists(st.integers(0, 40), max_size=6),
                           st.booleans()), min_size=1, max_size=12)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=edits, battlefield=st.sampled_from(BATTLEFIELD_KEYS), deck=st.sampled_from(["regular", "unlimited"]),
       agents=st.sampled_from([("random", "random"), ("greedy", "random"), ("greedy", "greedy")]),
       variant=st.sampled_from(VARIANTS), valued=st.booleans(), seed=st.integers(0, 2**32))
def test_edited_cards_still_identical(edits, battlefield, deck, agents, variant, valued, seed):
    base = build_config(MODEL.resolve_params({"battlefield": battlefield, "deck": deck, **variant}))
    cards = list(base.cards.cards)
    for index, cost, amounts, huge in edits:
        card = cards[index]
        if huge:  # the top of the allowed ranges
            cost, amounts = min(999, cost * 16), [min(MAX_AMOUNT, a * 25) for a in amounts]
        cards[index] = card._replace(cost=cost, effect=_edit_effect(card.effect, amounts))
    values = tuple(float((7 * c.id) % 13) for c in cards) if valued else ()
    edited = CardSet(tuple(cards), base.cards.source, f"edited-{hash(tuple(cards)) & 0xFFFFFFFF:08x}")
    config = base._replace(cards=edited, card_values=values)
    first = variant.get("first", "random")
    compare(config, agents, game_seeds(seed, 0, GAMES_PER_EXAMPLE), first)


def test_edited_cards_file_is_played(tmp_path):
    """A designer's edited cards.csv reaches the fast path with no code change."""
    text = CARDS_CSV.read_text(encoding="utf-8")
    text = text.replace("72,fairy,Fairy,Peri,green,1,enemy.damage 2; again",
                        "72,fairy,Fairy,Peri,green,1,enemy.damage 9; steal.troops 4; again")
    text = text.replace("Tembok biasa,red,2,self.wall +3",
                        "Tembok biasa,red,0,if enemy.wall >= 7 then swap.wall else self.wall +3")
    path = tmp_path / "cards.csv"
    path.write_text(text, encoding="utf-8")
    assert load_cards(path).by_key("fairy").effect.statements[0].then[0].amount == 9
    params = MODEL.resolve_params({"cards": str(path), "battlefield": "free_steppe"})
    config = build_config(params)
    compare(config, ("greedy", "random"), game_seeds(5, 0, 150), "random")
    edited = simulate("duel", 150, params={"cards": str(path), "battlefield": "free_steppe"},
                      agents="greedy,random", seed=5, progress=False)
    plain = simulate("duel", 150, params={"battlefield": "free_steppe"}, agents="greedy,random", seed=5,
                     progress=False)
    assert not edited["length"].equals(plain["length"])


# --------------------------------------------------------------------------------- engine plumbing
def test_chunking_and_buffer_growth_do_not_change_games():
    params = {"battlefield": "free_steppe", "hand_size": 8, "max_turns": 2000}
    whole = simulate("duel", 40, params=params, agents="greedy,greedy", seed=9, progress=False, engine="fast")
    single = simulate("duel", 40, params=params, agents="greedy,greedy", seed=9, progress=False, engine="fast",
                      chunk_size=1)  # one-game chunks start with small id buffers that must grow
    assert_frame_equal(whole, single)
    config = build_config(MODEL.resolve_params(params))
    compare(config, ("greedy", "greedy"), game_seeds(9, 0, 6), "random")


def test_small_hands_that_run_empty():
    """Play-again chains can use up a small hand (the turn then ends): still the same games."""
    config = build_config(MODEL.resolve_params({"hand_size": 2, "deck": "unlimited"}))
    compare(config, ("greedy", "greedy"), game_seeds(1, 0, 150), "random")
    config = build_config(MODEL.resolve_params({"hand_size": 1, "battlefield": "wind_square"}))
    compare(config, ("random", "greedy"), game_seeds(2, 0, 150), "random")


def test_default_study_shape_and_workers():
    one = studies.default_study(games_per_seating=3, workers=1)
    two = studies.default_study(games_per_seating=3, workers=2)
    assert_frame_equal(one, two)
    assert one.height == 8 * 2 * 2 * 3
    assert one.select(pl.struct("battlefield", "deck", "first").n_unique()).item() == 32
    cell = {"battlefield": "crystal_garden", "deck": "unlimited", "first": "p2"}
    alone = simulate("duel", 3, params=cell, agents="greedy,greedy", seed=0, progress=False, engine="fast")
    assert_frame_equal(one.filter(**cell), alone)
