"""Fair shuffle (duel-deal-v2): commit to a generated 256-bit secret, reveal it after play, anyone verifies."""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pytest
from scipy.stats import chisquare

from tests.games.duel.events import play_game
from workbench.cli import main
from workbench.core.errors import InputError
from workbench.core.present import playthrough
from workbench.games.duel import shuffle
from workbench.games.duel.agents import GreedyAgent
from workbench.games.duel.data import load_battlefields, load_cards
from workbench.games.duel.rules import Config
from workbench.games.duel.shuffle import VerificationError

CARDS = load_cards()
CONFIG = Config(cards=CARDS, battlefield=load_battlefields()["crystal_garden"])
V = b"duel-deal-v2"
SECRET = "00112233445566778899aabbccddeeff" "0123456789abcdef" "fedcba9876543210"  # a fixed test secret
HEX64 = re.compile(r"\b[0-9a-f]{64}\b")


def small(i: int) -> str:
    """The secret a user who picks the number ``i`` would have to type: ``i`` zero-padded to 64 hex digits."""
    return f"{i:064x}"


# -- the documented algorithm ------------------------------------------------------------------------
def test_commitment_and_game_seed_are_the_documented_sha256():
    raw = bytes.fromhex(SECRET)
    assert shuffle.commit(SECRET) == hashlib.sha256(V + raw).hexdigest()
    assert shuffle.game_seed(SECRET) == int.from_bytes(hashlib.sha256(V + b"seed" + raw).digest()[:8], "big")
    assert shuffle.commit(raw) == shuffle.commit(SECRET) == shuffle.commit(SECRET.upper()) == shuffle.commit(
        f"  {SECRET}\n")  # bytes, any hex case, surrounding whitespace
    assert shuffle.commit(small(42)) == hashlib.sha256(V + (42).to_bytes(32, "big")).hexdigest()
    assert shuffle.ALGORITHM == "duel-deal-v2"


def test_generated_secrets_have_256_bits_and_differ_each_call():
    made = [shuffle.generate_secret() for _ in range(64)]
    assert all(re.fullmatch(r"[0-9a-f]{64}", s) for s in made)  # 32 bytes, printed as 64 hex digits
    assert len(set(made)) == len(made)
    assert len({shuffle.commit(s) for s in made}) == len(made)
    # every bit position takes both values across the samples (no stuck bits); 64 samples: P(fail) ~ 256 / 2**63
    ones = [sum(int(s, 16) >> b & 1 for s in made) for b in range(256)]
    assert 0 < min(ones) and max(ones) < len(made)


def brute_force(targets: set[str], limit: int) -> dict[str, int]:
    """Commitments in ``targets`` whose secret is one of the integers 0..limit-1 (typed as 64 hex digits)."""
    sha, found = hashlib.sha256, {}
    for i in range(limit):
        digest = sha(V + i.to_bytes(32, "big")).hexdigest()
        if digest in targets:
            found[digest] = i
    return found


def test_brute_force_over_small_secrets_cannot_find_a_generated_secrets_commitment():
    """The attack of the issue (v1's seed 42 fell in 0.07 s), run over the first 10**6 integer secrets.

    ``brute_force`` hashes exactly what ``commit`` hashes (checked first), so the search is real: it does
    find the commitment of a small chosen secret, and it does not find a generated secret's (about 0.6 s).
    """
    limit = 10**6
    for i in (0, 1, 42, limit - 1):
        assert brute_force({shuffle.commit(small(i))}, i + 1) == {shuffle.commit(small(i)): i}
    generated = [shuffle.commit(shuffle.generate_secret()) for _ in range(3)]
    chosen = shuffle.commit(small(424_242))  # the control: a user-chosen small secret is found
    found = brute_force({*generated, chosen}, limit)
    assert found == {chosen: 424_242}, "a generated secret's commitment was found among small secrets"


def test_a_deal_is_a_permutation_determined_by_the_secret():
    order = shuffle.deal_for_secret(SECRET)
    assert sorted(order) == list(range(102))
    assert shuffle.deal_for_secret(SECRET) == order == shuffle.deal_for_secret(SECRET.upper())
    assert shuffle.deal_for_secret(SECRET) == shuffle.deal(shuffle.game_seed(SECRET))
    assert shuffle.commit(SECRET) == shuffle.commit(SECRET)
    others = [small(1), small(2), shuffle.generate_secret(), "f" * 64]
    assert len({shuffle.deal_for_secret(s) for s in [SECRET, *others]}) == 5
    assert len({shuffle.game_seed(s) for s in [SECRET, *others]}) == 5
    assert shuffle.card_ids(order[:3], CARDS) == tuple(CARDS.cards[i].id for i in order[:3])


@pytest.mark.parametrize("secret", [SECRET, small(0), "f" * 64])
def test_the_deal_is_what_a_played_game_deals(secret):
    """The secret's game seed, played by the engine, deals exactly ``deal`` (both decks)."""
    seed = shuffle.game_seed(secret)
    events = []
    play_game(CONFIG, [GreedyAgent(), GreedyAgent()], seed, "p1",
              on_event=lambda kind, state, detail: events.append(state) if kind == "deal" else None)
    state = events[0]
    order = shuffle.deal_for_secret(secret)
    assert state.hands == (order[:6], order[6:12])  # p1 gets the first hand, p2 the next
    assert state.deck == order[12:]
    unlimited = CONFIG._replace(deck="unlimited")
    events.clear()
    play_game(unlimited, [GreedyAgent(), GreedyAgent()], seed, "p1",
              on_event=lambda kind, state, detail: events.append(state) if kind == "deal" else None)
    draws = shuffle.deal_for_secret(secret, deck="unlimited", draws=12)
    assert events[0].hands == (draws[:6], draws[6:])


def test_the_printed_replay_command_replays_the_deal():
    """``python -m workbench.core.present.playthrough duel --seed <game seed>`` deals p1 the secret's first hand."""
    text = playthrough.render("duel", {"max_turns": 1}, "greedy,greedy", shuffle.game_seed(SECRET))
    dealt = re.search(r"^p1 is dealt: (.*)$", text, re.M).group(1)
    assert [re.sub(r" \(\d+ \w+\)$", "", x).split("] ", 1)[1] for x in dealt.split(", [")] == [
        CARDS.cards[i].name_en for i in shuffle.deal_for_secret(SECRET)[:6]]


@pytest.mark.parametrize("secret", [SECRET, small(7)])
def test_verify_passes_on_the_true_secret_and_deal(secret):
    ids = shuffle.card_ids(shuffle.deal_for_secret(secret))
    shuffle.verify(secret, shuffle.commit(secret), ids)
    shuffle.verify(secret.upper(), shuffle.commit(secret).upper(), list(ids))  # hex case does not matter
    draws = shuffle.card_ids(shuffle.deal_for_secret(secret, deck="unlimited", draws=30))
    shuffle.verify(secret, shuffle.commit(secret), draws, deck="unlimited")


# -- tampering: every kind fails loudly, saying what and where ---------------------------------------------
def flip(hex_text: str, at: int) -> str:
    return hex_text[:at] + ("0" if hex_text[at] != "0" else "1") + hex_text[at + 1:]


IDS = shuffle.card_ids(shuffle.deal_for_secret(SECRET))
COMMITMENT = shuffle.commit(SECRET)


def test_verify_fails_on_a_wrong_secret():
    with pytest.raises(VerificationError, match="commitment mismatch: the secret commits to"):
        shuffle.verify(flip(SECRET, 63), COMMITMENT, IDS)
    with pytest.raises(VerificationError, match="commitment mismatch"):
        shuffle.verify(shuffle.generate_secret(), COMMITMENT, IDS)


def test_verify_fails_on_an_edited_commitment():
    with pytest.raises(VerificationError, match="commitment mismatch.*differ from hex digit 10"):
        shuffle.verify(SECRET, flip(COMMITMENT, 9), IDS)
    for bad in (None, COMMITMENT[:-1], COMMITMENT[:-1] + "g", ""):
        with pytest.raises(VerificationError, match="must be 64 hex digits"):
            shuffle.verify(SECRET, bad, IDS)


def test_verify_fails_on_swapped_cards():
    ids = list(IDS)
    ids[10], ids[11] = ids[11], ids[10]
    name = re.escape(CARDS.cards[shuffle.deal_for_secret(SECRET)[10]].name_en)
    with pytest.raises(VerificationError, match=rf"deal mismatch at position 11 \(p2's hand\): the secret deals "
                                                rf"card {IDS[10]} {name}, the published deal has card {IDS[11]}"):
        shuffle.verify(SECRET, COMMITMENT, ids)


def test_verify_fails_on_a_missing_replaced_or_extra_card():
    with pytest.raises(VerificationError, match=rf"has 101 cards, the secret deals 102; missing from position 102: "
                                                rf"card {IDS[-1]} "):
        shuffle.verify(SECRET, COMMITMENT, IDS[:-1])
    with pytest.raises(VerificationError, match="deal mismatch at position 51 \\(draw pile\\)"):
        shuffle.verify(SECRET, COMMITMENT, IDS[:50] + IDS[51:])  # one card dropped in the middle
    with pytest.raises(VerificationError, match="deal mismatch at position 1 \\(p1's hand\\)"):
        shuffle.verify(SECRET, COMMITMENT, (IDS[1],) + IDS[1:])  # a duplicate in place of the first card
    with pytest.raises(VerificationError, match="card id 999, which is not in"):
        shuffle.verify(SECRET, COMMITMENT, (999,) + IDS[1:])
    with pytest.raises(VerificationError, match="has 103 cards.*extra from position 103"):
        shuffle.verify(SECRET, COMMITMENT, IDS + (IDS[0],))
    draws = list(shuffle.card_ids(shuffle.deal_for_secret(SECRET, deck="unlimited", draws=20)))
    draws[19] = draws[19] % 102 + 1
    with pytest.raises(VerificationError, match="deal mismatch at position 20 \\(later draws\\)"):
        shuffle.verify(SECRET, COMMITMENT, draws, deck="unlimited")
    with pytest.raises(InputError, match="empty"):
        shuffle.verify(SECRET, COMMITMENT, [])


@pytest.mark.parametrize(("secret", "why"), [
    ("42", "got 2 characters"), (SECRET[:-1], "got 63 characters"), (SECRET + "0", "got 65 characters"),
    (SECRET[:-1] + "g", "'g' at character 64 is not a hex digit"), ("0x" + SECRET[2:], "'x' at character 2"),
    (b"\x00" * 31, "32 bytes, got 31"), (42, "got a int"), (None, "got a NoneType")])
def test_bad_secrets_are_rejected(secret, why):
    with pytest.raises(InputError, match=re.escape(why)):
        shuffle.commit(secret)


def test_unknown_deck_and_bad_game_seeds_are_rejected():
    with pytest.raises(InputError, match="allowed: regular, unlimited"):
        shuffle.deal_for_secret(SECRET, deck="endless")
    for seed in (-1, 2**64, 1.5, "7", True):
        with pytest.raises(InputError, match="0..2\\*\\*64-1"):
            shuffle.deal(seed)


def test_shuffle_is_uniform_position_of_card_chi_square():
    """Over 3060 secrets, card 0 (and card 101) lands in each of the 102 positions equally often."""
    n = 3060
    first_card, last_card, top = (np.zeros(102, dtype=int) for _ in range(3))
    for i in range(n):
        order = shuffle.deal_for_secret(small(i))
        first_card[order.index(0)] += 1
        last_card[order.index(101)] += 1
        top[order[0]] += 1
    for counts in (first_card, last_card, top):
        assert counts.sum() == n
        assert chisquare(counts).pvalue > 0.001


# -- the CLI: workbench shuffle commit | deal | verify ------------------------------------------------------
def test_cli_commit_generates_prints_the_secret_once_and_the_commitment(capsys):
    assert main(["shuffle", "commit"]) == 0
    out = capsys.readouterr().out
    secret = re.search(r"^secret:\s+([0-9a-f]{64})$", out, re.M).group(1)
    commitment = re.search(r"^commitment:\s+([0-9a-f]{64})$", out, re.M).group(1)
    assert commitment == shuffle.commit(secret)
    assert out.count(secret) == 1 and HEX64.findall(out) == [secret, commitment]
    assert "KEEP IT PRIVATE until the game is over" in out and "PUBLISH IT before play" in out
    assert str(shuffle.game_seed(secret)) not in out  # the seed gives the deal away: not printed before play
    assert main(["shuffle", "commit"]) == 0
    assert re.search(r"^secret:\s+([0-9a-f]{64})$", capsys.readouterr().out, re.M).group(1) != secret


def test_cli_commit_with_a_secret_recomputes_for_replays(capsys):
    assert main(["shuffle", "commit", "--secret", SECRET.upper()]) == 0
    out = capsys.readouterr().out
    assert f"commitment: {COMMITMENT}" in out and SECRET not in out and "recomputed from the given secret" in out
    seed = shuffle.game_seed(SECRET)
    assert f"game seed:  {seed}" in out and f"workbench.core.present.playthrough duel --seed {seed}" in out


def test_cli_deal_prints_positions_ids_names_and_hands(capsys):
    assert main(["shuffle", "deal", "--secret", SECRET]) == 0
    out = capsys.readouterr().out
    order = shuffle.deal_for_secret(SECRET)
    rows = [line for line in out.splitlines() if re.match(r"^\s+\d+\s+\d+\s{2}", line)]
    assert len(rows) == 102
    first = CARDS.cards[order[0]]
    assert re.match(rf"^\s+1\s+{first.id}\s+{re.escape(first.name_en)} \({re.escape(first.name_id)}\)\s+p1's hand$",
                    rows[0])
    assert rows[6].endswith("p2's hand") and rows[11].endswith("p2's hand") and rows[12].endswith("draw pile")
    assert f"game seed:  {shuffle.game_seed(SECRET)}" in out
    listed = out.rsplit("deal (card ids, for `verify --deal`): ", 1)[1].strip()
    assert listed == ",".join(map(str, IDS))
    assert main(["shuffle", "deal", "--secret", SECRET, "--deck", "unlimited", "--draws", "15"]) == 0
    out = capsys.readouterr().out
    draws = shuffle.card_ids(shuffle.deal_for_secret(SECRET, deck="unlimited", draws=15))
    assert out.rstrip().endswith(",".join(map(str, draws)))
    assert "later draws" in out and "--param deck=unlimited" in out


def test_cli_verify_passes_and_fails_loudly(capsys):
    deal = ",".join(map(str, IDS))
    assert main(["shuffle", "verify", "--secret", SECRET, "--commitment", COMMITMENT, "--deal", deal]) == 0
    assert "verified" in capsys.readouterr().out
    swapped = [IDS[1], IDS[0], *IDS[2:]]
    cases = [
        (SECRET, COMMITMENT, ",".join(map(str, swapped)), "deal mismatch at position 1 (p1's hand)"),
        (SECRET, COMMITMENT, ",".join(map(str, IDS[:-1])), "the published deal has 101 cards"),
        (SECRET, flip(COMMITMENT, 0), deal, "commitment mismatch"),
        (flip(SECRET, 5), COMMITMENT, deal, "commitment mismatch"),
    ]
    for secret, commitment, ids, message in cases:
        assert main(["shuffle", "verify", "--secret", secret, "--commitment", commitment, "--deal", ids]) == 2
        captured = capsys.readouterr()
        assert message in captured.err and "verified" not in captured.out


@pytest.mark.parametrize(("argv", "message"), [
    (["commit", "--secret", "42"], "a secret must be 64 hex digits"),
    (["deal", "--secret", SECRET[:-1] + "z"], "'z' at character 64 is not a hex digit"),
    (["verify", "--secret", "", "--commitment", COMMITMENT, "--deal", "1"], "got 0 characters"),
    (["deal"], "needs --secret HEX"),
    (["commit", "--seed", "42"], "--seed is no longer accepted"),
    (["deal", "--seed", "42"], "use --secret HEX"),
    (["verify", "--secret", SECRET, "--commitment", COMMITMENT, "--deal", "1,x"], "comma-separated card ids"),
    (["deal", "--secret", SECRET, "--deal", "1"], "--deal is only for `shuffle verify`"),
    (["deal", "--secret", SECRET, "--draws", "5"], "--draws is only for --deck unlimited"),
])
def test_cli_rejects_bad_input_with_exit_code_2(capsys, argv, message):
    assert main(["shuffle", *argv]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""
