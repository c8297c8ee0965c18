"""Two paths, one answer, for every game with a compiled engine (STYLE.md layer 5): one parity harness.

Each game declares its parity table on its engine (``CompiledEngine.variants``, resolved by
``GameModel.engine_variants``): every rules variant and agent pairing, with a label.  Here, for every
registered game with an engine and every declared variant, the same seeds play on both engines through
core's ``play_chunk`` and the frames must be identical (``assert_frame_equal``, exact).  Then:

* **edited cards** (hypothesis): for every game with a ``card_table``, random edits of random cards —
  a whole-number column within the range the shipped file uses (doubled at the top; the game's own
  loader rejects what its rules forbid), a text column (keywords, card texts, effects) copied from
  another card — played on both engines under a random declared variant;
* **coverage**: over the parity sample, every card was played, every end reason reached, and for
  Babylon every trigger, effect verb, target and keyword of the shipped cards' effect language fired
  on the reference engine (traced step by step), for Babel every nation ability and the universal
  ability was used; an assertion names what did not fire.

Games per variant (``GAMES``) are the fewest that still fire every keyword, trigger, effect and ending the
coverage check asks for (Babel's endings need 12, Babylon's effects 15): the reference engines are the slow side
(Babylon's greedy about 2 games/s, a 1-ply look-ahead through every attack).  ``make bench`` plays the long run,
``PARITY_SCALE=10`` (ten times as many games a variant); ``PARITY_EDIT_EXAMPLES`` / ``PARITY_EDIT_GAMES`` set the
property test's budget (default 6 examples of 16 games per game).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import NamedTuple

import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from workbench.core.design.cardtable import card_table, column_kinds, edited_cards, read_cards
from workbench.core.errors import InputError
from workbench.core.model import game_names, get_game
from workbench.core.sim.play import play_chunk
from workbench.core.sim.seeding import game_seeds

SCALE = float(os.environ.get("PARITY_SCALE", "1"))
EXAMPLES = int(os.environ.get("PARITY_EDIT_EXAMPLES", "6"))
EDIT_GAMES = int(os.environ.get("PARITY_EDIT_GAMES", "16"))
GAMES = {"duel": 30, "babel": 12, "babylon": 15, "dietower": 200}  # games per declared variant (× PARITY_SCALE)
ENGINE_GAMES = [g for g in game_names() if get_game(g).engine is not None]
CARD_GAMES = [g for g in ENGINE_GAMES if card_table(g) is not None]


def _group(game: str) -> pytest.MarkDecorator:
    return pytest.mark.xdist_group(f"parity_{game}")  # one worker per game: its pairs of frames are cached


class Played(NamedTuple):
    """One variant played on both engines, and what fired on the reference engine (traced games only)."""

    fast: pl.DataFrame
    reference: pl.DataFrame
    fired: frozenset[str]


def _specs(model, variant, params):
    specs = model.resolve_agents(variant.agents, params)
    assert model.fast_supports(specs, params), f"{model.name} {variant.label}: the compiled engine cannot play it"
    return specs


@cache
def played(game: str, index: int) -> Played:
    """Variant ``index`` of ``game`` on both engines, once per process (seeds: master 900 + index)."""
    model = get_game(game)
    variant = model.engine_variants()[index]
    params = model.resolve_params(variant.params)
    specs = _specs(model, variant, params)
    seeds = game_seeds(900 + index, 0, max(1, round(GAMES.get(game, 20) * SCALE)))
    fired: set[str] = set()
    with TRACERS.get(game, _no_trace)(fired):
        reference = play_chunk(model, params, specs, seeds, "reference")
    return Played(play_chunk(model, params, specs, seeds, "fast"), reference, frozenset(fired))


CASES = [pytest.param(g, i, id=f"{g}-{v.label}", marks=_group(g))
         for g in ENGINE_GAMES for i, v in enumerate(get_game(g).engine_variants())]


def test_every_game_with_an_engine_declares_labelled_variants():
    assert {"duel", "babel", "babylon", "dietower"} <= set(ENGINE_GAMES)
    for game in ENGINE_GAMES:
        variants = get_game(game).engine_variants()
        labels = [v.label for v in variants]
        assert len(variants) >= 4 and len(set(labels)) == len(labels) and all(labels), game
        model = get_game(game)
        used = {s.name for v in variants for s in model.resolve_agents(v.agents, model.resolve_params(v.params))}
        assert used == set(model.fast_agents), (game, used)  # every agent the compiled engine plays is compared


@pytest.mark.parametrize(("game", "index"), CASES)
def test_fast_frame_equals_the_reference_frame(game, index):
    quick, reference, _ = played(game, index)
    model = get_game(game)
    assert reference.height == max(1, round(GAMES.get(game, 20) * SCALE))
    assert quick.schema == reference.schema == pl.Schema(model.result_schema(model.resolve_params(
        model.engine_variants()[index].params)))
    assert_frame_equal(quick, reference, check_exact=True)


# ------------------------------------------------------------------------------------------ edited cards
@st.composite
def card_edits(draw: st.DrawFn, game: str) -> dict[str, dict[str, str]]:
    """1–6 random cell edits of the shipped card table (whole numbers in the shipped range, texts of other cards)."""
    table = card_table(game)
    cards = read_cards(table)
    kinds = column_kinds(cards, table.editable)
    edits: dict[str, dict[str, str]] = {}
    for _ in range(draw(st.integers(1, 6))):
        row = cards.row(draw(st.integers(0, cards.height - 1)), named=True)
        column = draw(st.sampled_from(table.editable))
        if not row[column].strip() and kinds[column] is int:
            continue  # a blank number is a stat the card does not have
        filled = [c for c in cards[column].to_list() if c.strip()]
        if kinds[column] is int:
            numbers = [int(c) for c in filled]
            value = str(draw(st.integers(min(numbers), 2 * max(numbers))))
        else:
            value = draw(st.sampled_from(sorted(set(filled) | {""})))
        edits.setdefault(row[table.row_key], {})[column] = value
    return edits


def _edited_parity(game: str, data: st.DataObject, tmp_path_factory) -> None:
    model = get_game(game)
    table = card_table(game)
    edits = data.draw(card_edits(game), label="edits")
    try:
        path = edited_cards(table, edits, directory=tmp_path_factory.getbasetemp() / f"parity-{game}")
    except InputError:
        assume(False)  # the game's loader forbids it (a Witchery's text on a Minion, a specific cost above the cost)
    variant = data.draw(st.sampled_from(model.engine_variants()), label="variant")
    params = model.resolve_params({**variant.params, table.param: str(path)})
    specs = _specs(model, variant, params)
    seeds = game_seeds(data.draw(st.integers(0, 2**32), label="seed"), 0, EDIT_GAMES)
    quick = play_chunk(model, params, specs, seeds, "fast")
    assert_frame_equal(quick, play_chunk(model, params, specs, seeds, "reference"), check_exact=True)


@pytest.mark.parametrize("game", [pytest.param(g, marks=_group(g)) for g in CARD_GAMES])
def test_edited_cards_give_identical_frames(game, tmp_path_factory):
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(data=st.data())
    def check(data):
        _edited_parity(game, data, tmp_path_factory)

    check()


def test_the_card_games_are_the_duel_and_babylon():
    assert set(CARD_GAMES) == {"duel", "babylon"}


# ------------------------------------------------------------------------------------------ coverage
@contextmanager
def _no_trace(fired: set[str]) -> Iterator[None]:
    yield


@contextmanager
def _trace_babylon(fired: set[str]) -> Iterator[None]:
    """Record, while core's loop applies a real move, each clause's trigger, verbs and targets and each keyword.

    Rules functions are wrapped in ``rules``' namespace (where the rules call them); the greedy agent's
    look-ahead runs them too, outside ``apply``, so nothing is recorded then.  A keyword fires when it
    changes what happens: Lethal on a strike, Twinstrike with a second minion to hit, Tunnel with a
    blocker it got past, Thief stealing a level, Crush with excess over the blocker's health, Retreating
    moving a surviving attacker back, Regenerating healing damage at the start of its owner's turn.
    """
    from workbench.games.babylon import rules as r

    model = get_game("babylon")
    live = [False]
    real_apply = model.apply

    def apply(config, state, action):
        live[0] = True
        try:
            return real_apply(config, state, action)
        finally:
            live[0] = False

    def run_clause(orig, cfg, s, controller, card, clause, chosen):
        if live[0]:
            fired.add(f"trigger {clause.trigger}")
            for act in clause.actions:
                fired.add(f"verb {act.verb}")
                fired.update([f"target {act.target}"] if act.target else [])
                fired.update([f"per {act.per}"] if act.per else [])
        return orig(cfg, s, controller, card, clause, chosen)

    def damage(orig, cfg, s, uid, n, lethal=False):
        if live[0] and lethal and n > 0 and r.minion(s, uid) is not None:
            fired.add("keyword Lethal")
        return orig(cfg, s, uid, n, lethal)

    def twin_options(orig, cfg, s):
        found = orig(cfg, s)
        if live[0] and found:
            fired.add("keyword Twinstrike")
        return found

    def block_options(orig, cfg, s):
        found = orig(cfg, s)
        att = s.attack
        a = r.minion(s, att.attacker) if att is not None else None
        if (live[0] and not found and a is not None and att.target == r.TOWER_TARGET and cfg.cards[a.card].tunnel
                and any(m.status != r.EXHAUSTED for m in r.minions_of(s, 1 - a.owner, r.RAMPARTS))):
            fired.add("keyword Tunnel")
        return found

    def hit_tower(orig, cfg, s, attacker, amount):
        after = orig(cfg, s, attacker, amount)
        if live[0] and after.sides[attacker.owner].tally[r.T_STOLEN] > s.sides[attacker.owner].tally[r.T_STOLEN]:
            fired.add("keyword Thief")
        return after

    def clash(orig, cfg, s):
        att = s.attack
        a = r.minion(s, att.attacker)
        if live[0] and a is not None and not att.ended and cfg.cards[a.card].crush:
            partner = r._clash_partner(s)
            p = r.minion(s, partner) if partner != r.NO_TARGET else None
            if p is not None and partner == att.blocker and cfg.cards[a.card].might > r.health_left(cfg, p):
                fired.add("keyword Crush")
        return orig(cfg, s)

    def after_attack(orig, cfg, s, attacker, partner):
        after = orig(cfg, s, attacker, partner)
        before, now = r.minion(s, attacker), r.minion(after, attacker)
        if live[0] and now is not None and cfg.cards[now.card].retreating and before.zone != r.RAMPARTS:
            fired.add("keyword Retreating")
        return after

    def begin_turn(orig, cfg, s, seat):
        if live[0] and any(m.owner == seat and m.damage > 0 and cfg.cards[m.card].regenerating for m in s.minions):
            fired.add("keyword Regenerating")
        return orig(cfg, s, seat)

    wrappers: dict[str, Callable] = {"run_clause": run_clause, "_damage": damage, "twin_options": twin_options,
                                     "block_options": block_options, "_hit_tower": hit_tower, "_clash": clash,
                                     "_after_attack": after_attack, "_begin_turn": begin_turn}
    originals = {name: getattr(r, name) for name in wrappers}
    for name, wrapper in wrappers.items():
        setattr(r, name, lambda *a, _w=wrapper, _o=originals[name], **k: _w(_o, *a, **k))
    model.apply = apply
    try:
        yield
    finally:
        for name, original in originals.items():
            setattr(r, name, original)
        del model.apply


TRACERS = {"babylon": _trace_babylon}


def _babylon_language() -> set[str]:
    """Every trigger, verb, target, count and keyword the shipped cards' texts and keyword lists use."""
    from workbench.games.babylon.cards import load_cards

    out: set[str] = set()
    for card in load_cards():
        out |= {f"keyword {k}" for k in card.keywords}
        for clause in card.effect.clauses:
            out.add(f"trigger {clause.trigger}")
            out |= {f"verb {a.verb}" for a in clause.actions}
            out |= {f"target {a.target}" for a in clause.actions if a.target}
            out |= {f"per {a.per}" for a in clause.actions if a.per}
    return out


def _played_cards(frames: list[pl.DataFrame]) -> set[str]:
    return {f"card {c}" for f in frames for col in ("played_p1", "played_p2") for c in f[col].explode().drop_nulls()}


def _expected(game: str) -> set[str]:
    """What the parity sample must reach, worked out from the games' data and declared names."""
    if game == "duel":
        from workbench.games.duel import rules
        from workbench.games.duel.data import load_cards

        return {f"card {c.id}" for c in load_cards().cards} | {f"ending {r}" for r in rules.REASONS}
    if game == "babylon":
        from workbench.games.babylon import rules
        from workbench.games.babylon.cards import load_cards

        return ({f"card {c.id}" for c in load_cards()} | {f"ending {r}" for r in rules.REASONS}
                | _babylon_language())
    if game == "babel":
        from workbench.games.babel import rules

        return ({f"ability {n.lower()}" for n in rules.NATIONS} | {"ability universal"}
                | {f"ending {r}" for r in rules.REASONS})
    if game == "dietower":
        return {"ending six_win", "ending score", "ending draw"}
    return set()


def _reached(game: str, sample: list[Played]) -> set[str]:
    frames = [p.reference for p in sample]
    out = {f"ending {r}" for f in frames for r in f["reason"]} | {x for p in sample for x in p.fired}
    if game in ("duel", "babylon"):
        out |= _played_cards(frames)
    if game == "babel":
        from workbench.games.babel import rules

        for nation in [n.lower() for n in rules.NATIONS] + ["universal"]:
            if sum(f[f"{nation}_p1"].sum() + f[f"{nation}_p2"].sum() for f in frames):
                out.add(f"ability {nation}")
    return out


@pytest.mark.parametrize("game", [pytest.param(g, marks=_group(g)) for g in ENGINE_GAMES])
def test_the_parity_sample_fires_every_card_keyword_and_trigger(game):
    sample = [played(game, i) for i in range(len(get_game(game).engine_variants()))]
    expected = _expected(game)
    assert expected, f"{game}: say what its parity sample must reach"
    missing = sorted(expected - _reached(game, sample))
    assert not missing, f"{game}: never fired in the parity sample: {missing}"
