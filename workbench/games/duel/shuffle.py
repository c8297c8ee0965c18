"""Fair shuffle: commit to a random secret before play, reveal it after, anyone verifies the deal.

Algorithm ``duel-deal-v2`` (``V = b"duel-deal-v2"``, ``||`` is byte concatenation):

1. Secret: 32 bytes (256 bits) from :func:`secrets.token_bytes`, written as 64 hex digits.
   ``workbench shuffle commit`` generates it; nobody chooses it, so it cannot be guessed.
2. Commitment, published before play: ``sha256(V || secret)`` in hex.  Searching it is searching
   2**256 secrets.  (``duel-deal-v1`` committed to ``sha256(V1 || seed)`` of a user-chosen 64-bit
   seed; small seeds were found from their commitment in a fraction of a second.  It is retired.)
3. Game seed (what the engine plays with): the first 8 bytes of ``sha256(V || b"seed" || secret)``
   read big-endian, an integer in 0..2**64-1.  Replay the game with it:
   ``python -m workbench.core.present.playthrough duel --seed GAME_SEED`` (with the agents and ``--param``
   used), or ``MODEL.initial_state(config, GAME_SEED)`` from Python.  It is *not* a ``simulate``
   master seed (``workbench/core/sim/seeding.py`` hashes those into game seeds).
4. Deal: ``rng = SplitMix64(stream_seed(game_seed, 1))`` — stream 1 of the game seed is the deck
   stream the engine uses (``workbench/core/rng.py`` documents SplitMix64, ``below`` and
   ``stream_seed``).  Regular deck: Fisher–Yates over the card indexes ``0..n-1``: for ``i`` from
   ``n-1`` down to ``1``, swap positions ``i`` and ``rng.below(i + 1)``.  The result, first card
   first, is the draw order: p1 is dealt the first hand, p2 the second, play draws from the rest.
   Unlimited deck: the deal is the sequence of draws ``rng.below(n)``.  (:func:`deal` of a game
   seed, :func:`deal_for_secret` of a secret.)
5. After play the secret is revealed; anyone recomputes the commitment, the game seed and the deal.

Card indexes are the engine's (0-based positions in ``data/duel/cards.csv``); what is printed and
published is the card ``id`` column (with the English and Indonesian names).
"""

from __future__ import annotations

import argparse
import hashlib
import secrets
from collections import Counter
from collections.abc import Sequence

from workbench.core.errors import InputError, WorkbenchError
from workbench.core.rng import SplitMix64
from workbench.core.studies.study import Command
from workbench.games.duel.data import CardSet, load_cards
from workbench.games.duel.rules import DECK_STREAM

ALGORITHM = "duel-deal-v2"
SECRET_BYTES = 32
DECKS = ("regular", "unlimited")
HAND_SIZE = 6  # the duel's default ``hand_size`` (only marks the hands in ``deal``'s listing)
_HEX = frozenset("0123456789abcdef")


class VerificationError(WorkbenchError):
    """A fair-shuffle commitment or deal did not verify."""


# -- the algorithm ----------------------------------------------------------------------------------
def generate_secret() -> str:
    """A fresh 256-bit secret from the OS's CSPRNG, as 64 hex digits."""
    return secrets.token_bytes(SECRET_BYTES).hex()


def parse_secret(secret: str | bytes) -> bytes:
    """The 32 secret bytes of ``secret`` (64 hex digits, any case, or 32 raw bytes); else InputError."""
    if isinstance(secret, (bytes, bytearray)):
        if len(secret) != SECRET_BYTES:
            raise InputError(f"a secret must be {SECRET_BYTES} bytes, got {len(secret)}")
        return bytes(secret)
    if not isinstance(secret, str):
        raise InputError(f"a secret must be 64 hex digits, got a {type(secret).__name__}")
    text = secret.strip().lower()
    bad = next(((i, ch) for i, ch in enumerate(text) if ch not in _HEX), None)
    if len(text) != 2 * SECRET_BYTES or bad is not None:
        why = f"{len(text)} characters"
        if bad is not None:
            why += f"; {bad[1]!r} at character {bad[0] + 1} is not a hex digit"
        raise InputError(f"a secret must be 64 hex digits (256 bits, as `workbench shuffle commit` prints it), "
                         f"got {why}")
    return bytes.fromhex(text)


def commit(secret: str | bytes) -> str:
    """The commitment to publish before play: ``sha256(V || secret)`` in hex."""
    return hashlib.sha256(ALGORITHM.encode() + parse_secret(secret)).hexdigest()


def game_seed(secret: str | bytes) -> int:
    """The engine's 64-bit game seed: first 8 bytes of ``sha256(V || b"seed" || secret)``, big-endian."""
    digest = hashlib.sha256(ALGORITHM.encode() + b"seed" + parse_secret(secret)).digest()
    return int.from_bytes(digest[:8], "big")


def deal(seed: int, n_cards: int = 102, deck: str = "regular", draws: int | None = None) -> tuple[int, ...]:
    """The card order (engine card indexes, first card first) the engine deals for game seed ``seed`` (step 4)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise InputError(f"a game seed must be an integer in 0..2**64-1, got {seed!r}")
    rng = SplitMix64.for_stream(seed, DECK_STREAM)
    if deck == "regular":
        return tuple(rng.shuffle(list(range(n_cards))))
    if deck == "unlimited":
        return tuple(rng.below(n_cards) for _ in range(n_cards if draws is None else draws))
    raise InputError(f"unknown deck {deck!r}; allowed: {', '.join(DECKS)}")


def deal_for_secret(secret: str | bytes, n_cards: int = 102, deck: str = "regular",
                    draws: int | None = None) -> tuple[int, ...]:
    """The card order (engine card indexes, first card first) a secret produces: ``deal(game_seed(secret))``."""
    return deal(game_seed(secret), n_cards, deck, draws)


def card_ids(order: Sequence[int], cards: CardSet | None = None) -> tuple[int, ...]:
    """Engine card indexes → the published card ids (``cards.csv`` column ``id``)."""
    cards = load_cards() if cards is None else cards
    return tuple(cards.cards[i].id for i in order)


def _slot(position: int, hand_size: int, deck: str = "regular") -> str:
    """Where the card at 0-based ``position`` goes (p1's hand, p2's hand, the rest)."""
    if position < hand_size:
        return "p1's hand"
    if position < 2 * hand_size:
        return "p2's hand"
    return "draw pile" if deck == "regular" else "later draws"


def verify(secret: str | bytes, commitment: str, ids: Sequence[int], deck: str = "regular",
           cards: CardSet | None = None, hand_size: int = HAND_SIZE) -> None:
    """Recompute commitment and deal from the revealed secret; VerificationError on any difference.

    ``ids`` is the published deal as card ids (first card first): every card for the regular deck,
    the draws so far for the unlimited deck.  Positions in the messages count from 1.
    """
    expected = commit(secret)
    if not ids:
        raise InputError("the published deal is empty; give its card ids, first card first")
    given = commitment.strip().lower() if isinstance(commitment, str) else None
    if given is None or len(given) != 64 or not set(given) <= _HEX:
        raise VerificationError(f"the published commitment must be 64 hex digits (a SHA-256), got {commitment!r}")
    if given != expected:
        where = next(i for i, (a, b) in enumerate(zip(given, expected, strict=True)) if a != b) + 1
        raise VerificationError(f"commitment mismatch: the secret commits to {expected}, the published commitment "
                                f"is {given} (they differ from hex digit {where}) — the secret or the commitment "
                                "was changed")
    cards = load_cards() if cards is None else cards
    ids = tuple(int(c) for c in ids)
    by_id = {c.id: c for c in cards.cards}
    draws = len(ids) if deck == "unlimited" else None
    recomputed = card_ids(deal_for_secret(secret, len(cards), deck, draws), cards)

    def name(card_id: int) -> str:
        card = by_id.get(card_id)
        return f"card {card_id} {card.name_en}" if card else f"card id {card_id}, which is not in {cards.source}"

    first = next((i for i, (a, b) in enumerate(zip(ids, recomputed, strict=False)) if a != b), None)
    if first is not None:
        raise VerificationError(f"deal mismatch at position {first + 1} ({_slot(first, hand_size, deck)}): the secret "
                                f"deals {name(recomputed[first])}, the published deal has {name(ids[first])}")
    if len(ids) != len(recomputed):  # a prefix of the true deal: cards missing at the end (or extra ones)
        missing = sorted((Counter(recomputed) - Counter(ids)).elements())
        extra = sorted((Counter(ids) - Counter(recomputed)).elements())
        detail = (f"; missing from position {len(ids) + 1}: {', '.join(name(c) for c in missing)}" if missing
                  else f"; extra from position {len(recomputed) + 1}: {', '.join(name(c) for c in extra)}")
        raise VerificationError(f"deal mismatch: the published deal has {len(ids)} cards, the secret deals "
                                f"{len(recomputed)}{detail}")


# -- the `workbench shuffle` command (declared by the duel model) --------------------------------------
_USAGE = """\
  workbench shuffle commit                      generate a secret; prints it once and the commitment to publish
  workbench shuffle commit --secret HEX         recompute the commitment and game seed of a secret (replays)
  workbench shuffle deal --secret HEX           the deal, one card a line, and the game seed to replay it
  workbench shuffle verify --secret HEX --commitment HEX --deal ID,ID,...
"""


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = f"Fair shuffle ({ALGORITHM}): commit to a random secret before play, reveal it after.\n"
    parser.epilog = _USAGE
    parser.add_argument("action", choices=("commit", "deal", "verify"))
    parser.add_argument("--secret", help="the 64-hex-digit secret `shuffle commit` printed (deal, verify; "
                                         "commit: recompute for a replay)")
    parser.add_argument("--commitment", help="the published commitment (verify)")
    parser.add_argument("--deal", help="the published deal: comma-separated card ids, first card first (verify)")
    parser.add_argument("--deck", choices=DECKS, default="regular")
    parser.add_argument("--draws", type=int, help="unlimited deck: how many draws to list (default: one per "
                                                  "card kind)")
    parser.add_argument("--hand-size", type=int, default=HAND_SIZE, help="marks the hands in `deal` (default 6)")
    parser.add_argument("--seed", help=argparse.SUPPRESS)  # duel-deal-v1, refused with a pointer to --secret


def _replay_hint(seed: int, deck: str = "DECK") -> str:
    return (f"game seed:  {seed}\n"
            f"replay:     python -m workbench.core.present.playthrough duel --seed {seed} --param deck={deck} "
            "--agents A,B\n"
            f"            (plus the --param values played; from Python MODEL.initial_state(config, {seed}); it is "
            "a game seed, not a `simulate --seed` master seed)")


def _run(args: argparse.Namespace) -> int:
    if args.seed is not None:
        raise InputError(f"--seed is no longer accepted: a commitment to a chosen seed can be brute-forced "
                         f"({ALGORITHM} replaced duel-deal-v1). Run `workbench shuffle commit` to generate a "
                         "secret, then use --secret HEX for deal and verify")
    for option, used_by in (("commitment", "verify"), ("deal", "verify")):
        if getattr(args, option) is not None and args.action != used_by:
            raise InputError(f"--{option} is only for `shuffle {used_by}`")
    if args.action != "commit" and args.secret is None:
        raise InputError(f"`shuffle {args.action}` needs --secret HEX (the secret `workbench shuffle commit` printed)")
    if args.action == "commit":
        _commit(args.secret)
    elif args.action == "deal":
        _deal(args.secret, args.deck, args.draws, args.hand_size)
    else:
        if not args.commitment or args.deal is None:
            raise InputError("`shuffle verify` needs --secret, --commitment and --deal")
        try:
            ids = [int(x) for x in args.deal.split(",") if x.strip()]
        except ValueError:
            raise InputError(f"--deal must be comma-separated card ids, got {args.deal!r}") from None
        verify(args.secret, args.commitment, ids, deck=args.deck, hand_size=args.hand_size)
        print(f"verified ({ALGORITHM}): the secret matches the commitment and deals exactly these {len(ids)} cards")
    return 0


def _commit(secret: str | None) -> None:
    if secret is None:
        secret = generate_secret()
        print(f"{ALGORITHM}: a new 256-bit secret was generated; it is shown only now and stored nowhere.")
        print(f"secret:     {secret}")
        print("            KEEP IT PRIVATE until the game is over: whoever has it knows the whole deal.")
        print(f"commitment: {commit(secret)}")
        print("            PUBLISH IT before play.")
        print("next: deal with `workbench shuffle deal --secret SECRET`; after the game reveal the secret and anyone "
              "checks it with `workbench shuffle verify --secret SECRET --commitment COMMITMENT --deal ID,ID,...`")
        return
    commitment, seed = commit(secret), game_seed(secret)  # validate before printing anything
    print(f"{ALGORITHM}: recomputed from the given secret (for replays; a new game needs `workbench shuffle "
          "commit` without --secret: a chosen secret is only as safe as it is random)")
    print(f"commitment: {commitment}")
    print(_replay_hint(seed))


def _deal(secret: str, deck: str, draws: int | None, hand_size: int) -> None:
    cards = load_cards()
    n = len(cards)
    if not 1 <= hand_size <= 20 or (deck == "regular" and 2 * hand_size > n):
        raise InputError(f"--hand-size must be in 1..20 (and leave a deck of {n} cards for two hands), "
                         f"got {hand_size}")
    if draws is not None and (deck != "unlimited" or draws < 1):
        raise InputError("--draws is only for --deck unlimited, and must be at least 1")
    seed = game_seed(secret)
    order = deal_for_secret(secret, n, deck, draws)
    print(f"{ALGORITHM}, {deck} deck ({n} card kinds), hands of {hand_size}: "
          + ("the draw order, first card first" if deck == "regular" else "the draws in order"))
    print(_replay_hint(seed, deck))
    width = max(len(f"{c.name_en} ({c.name_id})") for c in cards.cards)
    print(f"{'pos':>4}  {'id':>4}  {'card':<{width}}  dealt to")
    for pos, index in enumerate(order):
        card = cards.cards[index]
        print(f"{pos + 1:>4}  {card.id:>4}  {f'{card.name_en} ({card.name_id})':<{width}}  "
              f"{_slot(pos, hand_size, deck)}")
    print("deal (card ids, for `verify --deal`): " + ",".join(map(str, card_ids(order, cards))))


COMMAND = Command("shuffle", f"duel fair shuffle ({ALGORITHM}): commit to a generated secret, deal, verify",
                  _arguments, _run)
