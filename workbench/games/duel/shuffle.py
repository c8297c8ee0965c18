"""Fair shuffle: a deal derived from a seed by a documented, versioned algorithm.

Algorithm ``duel-deal-v1`` (the seed is an integer in 0..2**64-1):

1. ``rng = SplitMix64(stream_seed(seed, 1))`` — stream 1 of the game seed is the deck stream
   (``workbench/core/rng.py`` documents SplitMix64, ``below`` and ``stream_seed``).
2. Regular deck: Fisher–Yates over the card indexes ``0..n-1``: for ``i`` from ``n-1`` down to
   ``1``, swap positions ``i`` and ``rng.below(i + 1)``.  The result, first card first, is the
   draw order: p1 is dealt the first hand, p2 the second, play draws from the rest.
   Unlimited deck: the deal is the sequence of draws ``rng.below(n)``.
3. Commitment published before play: ``sha256(b"duel-deal-v1" || seed as 8 bytes big-endian)``
   in hex.  After play the seed is revealed; anyone recomputes the commitment and the deal.
"""

from __future__ import annotations

import argparse
import hashlib

from workbench.core.errors import InputError, WorkbenchError
from workbench.core.rng import SplitMix64
from workbench.core.study import Command

ALGORITHM = "duel-deal-v1"


class VerificationError(WorkbenchError):
    """A fair-shuffle commitment or deal did not verify."""

DECK_STREAM = 1


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise InputError(f"a deal seed must be an integer in 0..2**64-1, got {seed!r}")
    return seed


def commit(seed: int) -> str:
    """The SHA-256 commitment to a seed, published before play."""
    seed = _check_seed(seed)
    return hashlib.sha256(ALGORITHM.encode() + seed.to_bytes(8, "big")).hexdigest()


def deal(seed: int, n_cards: int = 102, deck: str = "regular", draws: int | None = None) -> tuple[int, ...]:
    """The card order a seed produces (card indexes, first card first)."""
    seed = _check_seed(seed)
    rng = SplitMix64.for_stream(seed, DECK_STREAM)
    if deck == "regular":
        return tuple(rng.shuffle(list(range(n_cards))))
    if deck == "unlimited":
        return tuple(rng.below(n_cards) for _ in range(n_cards if draws is None else draws))
    raise InputError(f"unknown deck {deck!r}; allowed: regular, unlimited")


def verify(seed: int, commitment: str, order: tuple[int, ...] | list[int], n_cards: int = 102,
           deck: str = "regular") -> None:
    """Recompute commitment and deal from the revealed seed; raise VerificationError on any mismatch."""
    expected = commit(seed)
    if not isinstance(commitment, str) or commitment.strip().lower() != expected:
        raise VerificationError(f"commitment mismatch: the seed {seed} commits to {expected}, "
                                f"not {commitment!r} — the seed or the commitment was changed")
    order = tuple(int(c) for c in order)
    recomputed = deal(seed, n_cards, deck, draws=len(order))
    if len(order) != len(recomputed):
        raise VerificationError(f"deal mismatch: the published deal has {len(order)} cards, the seed deals "
                                f"{len(recomputed)}")
    if order != recomputed:
        first = next(i for i, (a, b) in enumerate(zip(order, recomputed, strict=True)) if a != b)
        raise VerificationError(f"deal mismatch at position {first}: the seed gives card index "
                                f"{recomputed[first]}, the published deal has {order[first]}")


# -- the `workbench shuffle` command (declared by the duel model) --------------------------------------
def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("commit", "deal", "verify"))
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--commitment", help="published commitment (verify)")
    parser.add_argument("--deal", help="published deal: comma-separated card indexes (verify)")
    parser.add_argument("--deck", choices=("regular", "unlimited"), default="regular")


def _run(args: argparse.Namespace) -> int:
    if args.action == "commit":
        print(commit(args.seed))
    elif args.action == "deal":
        print(",".join(map(str, deal(args.seed, deck=args.deck))))
    else:
        if not args.commitment or args.deal is None:
            raise InputError("verify needs --commitment and --deal")
        try:
            order = [int(x) for x in args.deal.split(",") if x.strip()]
        except ValueError:
            raise InputError("--deal must be comma-separated card indexes") from None
        verify(args.seed, args.commitment, order, deck=args.deck)
        print("verified: the commitment and the deal match the seed")
    return 0


COMMAND = Command("shuffle", "duel fair shuffle: commit, deal, verify", _arguments, _run)
