"""The compiled duel's effect tables, one rule sentence per row, and the card sets it refuses.

The parity harness proves whole games equal on both engines; here each operation the kernel folds into
one branch-free ``K_DELTA`` row (an add or a damage on self, enemy or both) is played on a hand-set
position and compared with the value worked out by hand from the rule text (docs/rules/duel.md).
"""

from __future__ import annotations

import numpy as np
import pytest

from workbench.games.duel.data import Card, CardSet, load_cards
from workbench.games.duel.effects import parse_effect
from workbench.games.duel.engine import fast
from workbench.games.duel.engine import kernel as K

# statistics in STATS order: tower, wall, mines, monasteries, barracks, ore, mana, troops
ME = (20, 3, 2, 2, 2, 10, 4, 6)
ENEMY = (15, 5, 1, 1, 1, 2, 8, 0)

# effect text, mover's position after, enemy's position after (worked out by hand from ME and ENEMY)
SCENARIOS = [
    ("enemy.damage 4", ME, (15, 1, 1, 1, 1, 2, 8, 0)),  # the wall absorbs all of it
    ("enemy.damage 9", ME, (11, 0, 1, 1, 1, 2, 8, 0)),  # 5 to the wall, the other 4 to the tower
    ("self.damage 30", (0, 0, 2, 2, 2, 10, 4, 6), ENEMY),  # 3 wall, 27 > 20 tower: both clamp at 0
    ("self.wall +3", (20, 6, 2, 2, 2, 10, 4, 6), ENEMY),
    ("enemy.troops -3", ME, ENEMY),  # troops already 0: a loss clamps at 0
    ("enemy.mana -3", ME, (15, 5, 1, 1, 1, 2, 5, 0)),
    ("all.ore -8", (20, 3, 2, 2, 2, 2, 4, 6), (15, 5, 1, 1, 1, 0, 8, 0)),  # both, each clamped
    ("all.damage 4", (19, 0, 2, 2, 2, 10, 4, 6), (15, 1, 1, 1, 1, 2, 8, 0)),
    ("self.tower +2 & self.tower -25", (0, 3, 2, 2, 2, 10, 4, 6), ENEMY),  # 22, then 22 - 25 clamps at 0
    ("self.tower -25 & self.tower +2", (2, 3, 2, 2, 2, 10, 4, 6), ENEMY),  # 0 first, then 2: order matters
    ("enemy.damage 2 & enemy.damage 4", ME, (14, 0, 1, 1, 1, 2, 8, 0)),  # wall 5 -> 3 -> 0, then 1 to the tower
]


def _card(index: int, text: str, cost: int = 0) -> Card:
    return Card(index, index + 1, f"c{index}", f"C{index}", f"C{index}", "red", cost, parse_effect(text), text)


def _played(text: str, me: int) -> np.ndarray:
    """The 16 statistics after seat ``me`` plays a card with ``text`` (cost 0) in the compiled kernel."""
    t = fast.compile_tables(CardSet((_card(0, text),), "test", text))
    p = np.zeros(16, np.int64)
    p[8 * me:8 * me + 8], p[8 * (1 - me):8 * (1 - me) + 8] = ME, ENEMY
    K._pay_and_play(p, me, 0, t.cards, t.stmts, t.ops, 1)
    return p


@pytest.mark.parametrize(("text", "mine", "theirs"), SCENARIOS, ids=[s[0] for s in SCENARIOS])
@pytest.mark.parametrize("me", [0, 1])
def test_adds_and_damage_follow_the_rule_text_from_either_seat(text, mine, theirs, me):
    p = _played(text, me)
    assert tuple(p[8 * me:8 * me + 8]) == mine
    assert tuple(p[8 * (1 - me):8 * (1 - me) + 8]) == theirs


def test_a_card_set_the_compiled_hand_cannot_hold_is_refused_by_name():
    cards = load_cards()
    dear = cards.cards[0]._replace(cost=K.MAX_KEY_COST + 1)
    with pytest.raises(ValueError, match=rf"costing at most {K.MAX_KEY_COST}.*highest cost {K.MAX_KEY_COST + 1}"):
        fast.compile_tables(CardSet((dear, *cards.cards[1:]), "test", "dear"))
