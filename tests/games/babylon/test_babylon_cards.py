"""Towers of Babylon's data layer: the starter pool and precons load as the pool says; bad input fails clearly.

Known values come from the starter pool's design (``docs/rules/babylon.md``); rows are numbered as a
spreadsheet shows them (the header is row 1, card F1 row 2).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from workbench.core.errors import DataError
from workbench.games.babylon.cards import CARD_COLUMNS, CARDS_CSV, DECKS_TOML, FACTIONS, load_cards, load_decks
from workbench.games.babylon.effects import (
    Action,
    EffectSyntaxError,
    format_keywords,
    format_text,
    parse_keywords,
    parse_text,
)

CARD_LINES = CARDS_CSV.read_text(encoding="utf-8").splitlines()
POOL = load_cards()

# id: (name, faction, type, power cost, specific cost, tp cost, construction, might, health, kind, rarity)
SPOT_CHECKS = {
    "F4": ("Scarlet Elder", "Fire", "Minion", 5, 2, None, 3, 4, 3, "Human Mage", "R"),
    "F7": ("Pyre Drake", "Fire", "Minion", 6, 3, None, 0, 6, 5, "Dragon", "S"),
    "F12": ("Backdraft", "Fire", "Witchery", None, None, 2, None, None, None, "", "R"),
    "L3": ("Sun Blessed Paladin", "Light", "Minion", 4, 2, None, 1, 3, 4, "Human Knight", "R"),
    "L8": ("Seraph of the Ziggurat", "Light", "Minion", 7, 3, None, 4, 5, 6, "Angel", "S"),
    "L12": ("Divine Aegis", "Light", "Witchery", None, None, 3, None, None, None, "", "U"),
    "E4": ("Quarry Giant", "Earth", "Minion", 5, 2, None, 4, 3, 4, "Giant", "U"),
    "E8": ("Master Mason of Babel", "Earth", "Minion", 6, 3, None, 6, 1, 5, "Human Worker", "S"),
    "E10": ("Harvest Offering", "Earth", "Command", 1, 1, None, None, None, None, "", "C"),
    "W6": ("Euphrates Leviathan", "Water", "Minion", 7, 3, None, 2, 6, 7, "Leviathan", "S"),
    "W8": ("Harbor Guard", "Water", "Minion", 4, 1, None, 1, 3, 4, "Human Soldier", "C"),
    "W11": ("Rising Waters", "Water", "Invocation", 3, 1, None, None, None, None, "", "C"),
    "S5": ("Ziggurat Usurper", "Shadow", "Minion", 5, 2, None, 2, 4, 3, "Human Rogue", "R"),
    "S12": ("Ambush", "Shadow", "Witchery", None, None, 1, None, None, None, "", "R"),
}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _cards_with(tmp_path: Path, row: int, column: str, value: str) -> Path:
    """The shipped cards.csv with one cell changed (row in spreadsheet numbering)."""
    lines = list(CARD_LINES)
    cells = lines[row - 1].split(",")
    cells[CARD_COLUMNS.index(column)] = value
    lines[row - 1] = ",".join(cells)
    return _write(tmp_path, "cards.csv", "\n".join(lines) + "\n")


def _decks_with(tmp_path: Path, old: str, new: str) -> Path:
    text = DECKS_TOML.read_text(encoding="utf-8")
    assert old in text
    return _write(tmp_path, "decks.toml", text.replace(old, new, 1))


# -- the shipped pool ---------------------------------------------------------------------------------
def test_pool_has_60_cards_twelve_per_faction_with_the_rarity_spread():
    assert len(POOL) == 60
    for faction in FACTIONS:
        cards = POOL.faction(faction)
        assert len(cards) == 12
        assert Counter(c.rarity for c in cards) == {"C": 7, "U": 2, "R": 2, "S": 1}
        assert Counter(c.type for c in cards) == {"Minion": 8, "Command": 2, "Invocation": 1, "Witchery": 1}


@pytest.mark.parametrize("card_id", SPOT_CHECKS)
def test_spot_checked_rows_match_the_pool_table(card_id):
    c = POOL[card_id]
    assert (c.name, c.faction, c.type, c.power_cost, c.specific_cost, c.tp_cost, c.construction, c.might, c.health,
            c.kind, c.rarity) == SPOT_CHECKS[card_id]


def test_keywords_and_texts_of_the_pool():
    assert POOL["F7"].keywords == ("Crush", "Twinstrike")
    assert POOL["L8"].keywords == ("Regenerating",)
    assert POOL["L8"].effect.triggers == ("swear",)
    assert POOL["S9"].effect.clauses[0].actions == (Action("sentence", "enemy_minion"), Action("damage", "it", 1))
    assert POOL["L11"].effect.clauses[0].actions == (Action("tower", "own_tower", 2, "friendly_builder"),)
    assert POOL["E6"].effect.clauses[0].actions == (Action("offering", "", 1, "", True),)
    assert POOL["F10"].effect.clauses[0].actions == (Action("tower", "enemy_tower", -4),)
    assert POOL["F1"].effect.clauses == () and POOL["F1"].text == ""


def test_every_text_and_keyword_list_round_trips_to_the_csv():
    cells = {line.split(",")[0]: line for line in CARD_LINES[1:]}
    for card in POOL:
        assert format_text(parse_text(card.text)) == card.text
        assert format_text(card.effect) == card.text
        assert cells[card.id].endswith("," + card.text)
        assert format_keywords(parse_keywords(format_keywords(card.keywords))) == format_keywords(card.keywords)


def test_every_trigger_verb_and_target_of_the_language_is_used_by_the_pool():
    from workbench.games.babylon.effects import KEYWORDS, TARGETS, TRIGGERS, VERBS
    actions = [a for c in POOL for clause in c.effect.clauses for a in clause.actions]
    # the two Witchery windows besides an attack are used by the test card set only (no shipped card has them)
    windows = {"friendly_enters", "any_time"}
    assert {t for c in POOL for t in c.effect.triggers} == set(TRIGGERS) - windows
    assert {a.verb for a in actions} == set(VERBS)
    assert {a.target for a in actions} - {""} == set(TARGETS) - {"entering"}
    assert {k for c in POOL for k in c.keywords} == set(KEYWORDS)
    test_set = load_cards(str(Path(__file__).parent / "witchery_windows.csv"))
    assert {t for c in test_set for t in c.effect.triggers} >= windows
    assert "entering" in {a.target for c in test_set for clause in c.effect.clauses for a in clause.actions}


def test_loading_is_cached_by_file():
    first = load_cards()  # (other tests in this process may have pushed the pool out of the 16-file cache)
    assert first == POOL
    assert load_cards() is first and load_cards(CARDS_CSV) is first  # read once, then looked up by file


# -- the shipped decks -------------------------------------------------------------------------------
def test_every_precon_is_legal_two_factions_60_cards_every_card_of_both():
    decks = load_decks()
    assert {d.name for d in decks.values()} == {"Siege of Ur", "Citadel of the Rivers", "Night Raid",
                                                  "Builders of Babel", "Tide of Whispers"}
    for deck in decks.values():
        assert len(deck) == 60 == len(deck.card_ids)
        assert len(deck.factions) == 2
        expected = {c.id: c.max_copies for f in deck.factions for c in POOL.faction(f)}
        assert dict(deck.counts) == expected
    assert decks["siege_of_ur"].factions == ("Fire", "Earth")
    assert decks["night_raid"].factions == ("Shadow", "Fire")


# -- bad input: one clear error each ------------------------------------------------------------------
def test_a_malformed_row_names_file_row_and_column(tmp_path):
    path = _cards_with(tmp_path, 5, "might", "four")  # row 5 = F4
    with pytest.raises(DataError) as err:
        load_cards(path)
    assert (err.value.row, err.value.column) == (5, "might")
    assert str(path) in str(err.value) and "'four' is not a whole number" in str(err.value)


def test_a_stat_on_a_spell_is_refused(tmp_path):
    with pytest.raises(DataError, match=r"row 10, column 'health': must be blank: only a Minion"):
        load_cards(_cards_with(tmp_path, 10, "health", "3"))  # row 10 = F9 Fireball


def test_an_unknown_keyword_is_named_with_the_allowed_ones(tmp_path):
    with pytest.raises(DataError, match=r"row 3, column 'keywords': unknown keyword 'Retreat'; allowed: Crush"):
        load_cards(_cards_with(tmp_path, 3, "keywords", "Retreat"))


def test_an_unknown_target_is_named_with_the_allowed_ones(tmp_path):
    with pytest.raises(DataError, match=r"row 10, column 'text': unknown target 'a_minion'; allowed: minion, "):
        load_cards(_cards_with(tmp_path, 10, "text", "play: damage a_minion 4"))


def test_an_unknown_trigger_is_named_with_the_allowed_ones(tmp_path):
    with pytest.raises(DataError, match=r"column 'text': unknown trigger 'death'; allowed: swear, shape, dying"):
        load_cards(_cards_with(tmp_path, 9, "text", "death: damage enemy_tower 2"))


def test_a_trigger_of_another_card_type_is_refused(tmp_path):
    with pytest.raises(DataError, match=r"trigger 'swear' is for a Minion; a Command may use play"):
        load_cards(_cards_with(tmp_path, 10, "text", "swear: damage minion 4"))


@pytest.mark.parametrize(("text", "message"), [
    ("play: blast minion 4", "unknown verb 'blast'; allowed: damage, tower"),
    ("play: damage minion", "'damage' needs an amount like 2; found nothing"),
    ("play: tower own_tower 4", "'tower' needs an amount like +3 or -4; found '4'"),
    ("play: tower minion +4", "'tower' cannot target 'minion'"),
    ("play: draw 2 cards", "unexpected 'cards' after 'draw'"),
    ("play: damage it 1", "target 'it' in 'damage it 1' needs an earlier action"),
    ("play: sentence attacker", "target 'attacker' exists only under enemy_attacks"),
    ("damage minion 4", "has no trigger"),
])
def test_text_errors_name_the_word_and_what_is_allowed(text, message):
    with pytest.raises(EffectSyntaxError, match=message.replace("(", r"\(").replace("+", r"\+")):
        parse_text(text)


def test_a_59_card_deck_is_refused_naming_the_deck(tmp_path):
    path = _decks_with(tmp_path, "F1 = 3", "F1 = 2")
    with pytest.raises(DataError, match=r"deck \[siege_of_ur\], cards: has 59 cards; a deck must have exactly 60"):
        load_decks(path, POOL)


def test_too_many_copies_of_a_rare_names_deck_card_and_limit(tmp_path):
    path = _decks_with(tmp_path, "F4 = 2", "F4 = 3")
    with pytest.raises(DataError, match=r"deck \[siege_of_ur\], cards.F4: 3 copies of F4 \(Scarlet Elder\) is too "
                                        r"many; a R card allows at most 2"):
        load_decks(path, POOL)


def test_an_unknown_card_id_names_deck_and_card(tmp_path):
    path = _decks_with(tmp_path, "F1 = 3", "F99 = 3")
    with pytest.raises(DataError, match=r"deck \[siege_of_ur\], cards.F99: unknown card id 'F99'; the pool's ids"):
        load_decks(path, POOL)


def test_a_card_outside_the_deck_factions_is_refused(tmp_path):
    path = _decks_with(tmp_path, "F1 = 3", "W1 = 3")
    with pytest.raises(DataError, match=r"W1 \(Canal Scout\) is Water; this deck's factions are Fire, Earth"):
        load_decks(path, POOL)


def test_malformed_toml_is_one_data_error(tmp_path):
    with pytest.raises(DataError, match="not valid TOML"):
        load_decks(_write(tmp_path, "decks.toml", "[siege_of_ur\nname = 1\n"), POOL)
