"""Fair shuffle (duel-deal-v1): commit before play, reveal the seed after, anyone verifies."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from scipy.stats import chisquare

from tests.games.duel.events import play_game
from workbench.core.errors import InputError
from workbench.games.duel import shuffle
from workbench.games.duel.agents import GreedyAgent
from workbench.games.duel.data import load_battlefields, load_cards
from workbench.games.duel.rules import Config
from workbench.games.duel.shuffle import VerificationError

CONFIG = Config(cards=load_cards(), battlefield=load_battlefields()["crystal_garden"])


def test_commitment_is_the_documented_sha256():
    seed = 123456789
    expected = hashlib.sha256(b"duel-deal-v1" + seed.to_bytes(8, "big")).hexdigest()
    assert shuffle.commit(seed) == expected
    assert shuffle.commit(seed) == shuffle.commit(seed)  # deterministic
    assert len(expected) == 64


def test_different_seeds_give_different_commitments_and_deals():
    seeds = [0, 1, 2, 2**63, 2**64 - 1]
    assert len({shuffle.commit(s) for s in seeds}) == len(seeds)
    assert len({shuffle.deal(s) for s in seeds}) == len(seeds)


def test_a_deal_is_a_permutation_and_reproducible():
    order = shuffle.deal(42)
    assert sorted(order) == list(range(102))
    assert shuffle.deal(42) == order


@pytest.mark.parametrize("seed", [0, 7, 2**64 - 1])
def test_verify_passes_on_the_true_seed_and_deal(seed):
    shuffle.verify(seed, shuffle.commit(seed), shuffle.deal(seed))
    shuffle.verify(seed, shuffle.commit(seed).upper(), list(shuffle.deal(seed)))  # hex case does not matter
    unlimited = shuffle.deal(seed, deck="unlimited", draws=30)
    shuffle.verify(seed, shuffle.commit(seed), unlimited, deck="unlimited")


def test_verify_fails_on_a_wrong_seed():
    with pytest.raises(VerificationError, match="commitment mismatch"):
        shuffle.verify(8, shuffle.commit(7), shuffle.deal(7))


def test_verify_fails_on_a_changed_order():
    order = list(shuffle.deal(7))
    order[10], order[11] = order[11], order[10]
    with pytest.raises(VerificationError, match="deal mismatch at position 10"):
        shuffle.verify(7, shuffle.commit(7), order)
    with pytest.raises(VerificationError, match="deal mismatch"):
        shuffle.verify(7, shuffle.commit(7), shuffle.deal(7)[:-1])


def test_verify_fails_on_a_changed_commitment():
    commitment = shuffle.commit(7)
    tampered = ("0" if commitment[0] != "0" else "1") + commitment[1:]
    with pytest.raises(VerificationError, match="commitment mismatch"):
        shuffle.verify(7, tampered, shuffle.deal(7))
    with pytest.raises(VerificationError):
        shuffle.verify(7, None, shuffle.deal(7))


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "7", True])
def test_bad_seeds_are_rejected(seed):
    with pytest.raises(InputError, match="0..2\\*\\*64-1"):
        shuffle.commit(seed)


def test_unknown_deck_is_rejected():
    with pytest.raises(InputError, match="allowed: regular, unlimited"):
        shuffle.deal(1, deck="endless")


@pytest.mark.parametrize("seed", [3, 99, 2**40 + 5])
def test_the_deal_is_what_play_game_deals(seed):
    events = []
    play_game(CONFIG, [GreedyAgent(), GreedyAgent()], seed, "p1",
                   on_event=lambda kind, state, detail: events.append(state) if kind == "deal" else None)
    state = events[0]
    order = shuffle.deal(seed)
    assert state.hands == (order[:6], order[6:12])  # p1 gets the first hand, p2 the next
    assert state.deck == order[12:]
    unlimited = CONFIG._replace(deck="unlimited")
    events.clear()
    play_game(unlimited, [GreedyAgent(), GreedyAgent()], seed, "p1",
                   on_event=lambda kind, state, detail: events.append(state) if kind == "deal" else None)
    draws = shuffle.deal(seed, deck="unlimited", draws=12)
    assert events[0].hands == (draws[:6], draws[6:])


def test_shuffle_is_uniform_position_of_card_chi_square():
    """Over 3000 seeds, card 0 (and card 101) lands in each of the 102 positions equally often."""
    n_seeds = 3060
    first_card = np.zeros(102, dtype=int)
    last_card = np.zeros(102, dtype=int)
    top = np.zeros(102, dtype=int)
    for seed in range(n_seeds):
        order = shuffle.deal(seed)
        first_card[order.index(0)] += 1
        last_card[order.index(101)] += 1
        top[order[0]] += 1
    for counts in (first_card, last_card, top):
        assert counts.sum() == n_seeds
        assert chisquare(counts).pvalue > 0.001
