"""The card text language of Towers of Babylon (documented for designers in data/babylon/EFFECTS.md).

A card's ``text`` is blank (no text) or clauses separated by ``;``; a clause is a trigger and the
actions it runs, in order, joined by ``&``::

    text    := "" | clause (";" clause)*
    clause  := TRIGGER ":" action ("&" action)*
    action  := ["may"] VERB [TARGET] [AMOUNT] ["per" COUNT]

Each verb has one fixed shape (see :data:`VERBS`): which targets it takes, whether it has an
amount and whether that amount is signed (``+3`` / ``-4``) or a plain count (``2``).  The target
``it`` is the minion chosen by the previous action of the same clause; ``attacker`` and ``blocker``
exist only under the attack Witchery triggers, ``entering`` (the minion that entered) only under
``friendly_enters``.  Abilities (Crush, Tunnel, ...) are not text but the
separate ``keywords`` column, parsed by :func:`parse_keywords`.  Parsing is strict: every error
names the offending word and what is allowed there, and :func:`format_text` writes the canonical
spelling back, so ``format_text(parse_text(t)) == t`` for every canonical ``t``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Trigger -> the card type that may carry it.
TRIGGERS = {
    "swear": "Minion",                # Swear Allegiance: when the minion enters the game
    "shape": "Minion",                # Shape: when the minion builds
    "dying": "Minion",                # Dying Words: when the minion dies
    "play": "Command",                # a Command's effect, when it is played
    "start_next": "Invocation",       # at the start of your next turn
    "enemy_attacks": "Witchery",      # play when an enemy minion attacks (anything)
    "enemy_attacks_tower": "Witchery",  # play when an enemy minion attacks your tower
    "friendly_enters": "Witchery",    # play when a friendly minion enters the game
    "any_time": "Witchery",           # play at any time (your main phase, and any Witchery window open to you)
}
ATTACK_TRIGGERS = ("enemy_attacks", "enemy_attacks_tower")
WITCHERY_TRIGGERS = ATTACK_TRIGGERS + ("friendly_enters", "any_time")

MINION_TARGETS = ("minion", "enemy_minion", "friendly_minion", "it", "attacker", "blocker", "entering")
GROUP_TARGETS = ("each_enemy_raider", "each_enemy_defender")
TOWER_TARGETS = ("enemy_tower", "own_tower")
TARGETS = MINION_TARGETS + GROUP_TARGETS + TOWER_TARGETS
COUNTS = ("friendly_builder",)  # what ``per`` may multiply by
KEYWORDS = ("Crush", "Twinstrike", "Tunnel", "Lethal", "Thief", "Retreating", "Regenerating")

NONE, COUNT, SIGNED = "none", "count", "signed"  # amount shapes


class Verb(NamedTuple):
    """A verb's shape: the targets it accepts (empty: none) and its amount (none/count/signed)."""

    targets: tuple[str, ...]
    amount: str


_ANY_MINIONS = MINION_TARGETS + GROUP_TARGETS
VERBS = {
    "damage": Verb(_ANY_MINIONS + ("enemy_tower",), COUNT),  # deal N damage
    "tower": Verb(TOWER_TARGETS, SIGNED),            # the tower gains (+N) or loses (-N) levels
    "draw": Verb((), COUNT),                          # draw N cards
    "offering": Verb((), COUNT),                      # make N Offerings
    "sentence": Verb(_ANY_MINIONS, NONE),             # put a Sentence marker on it
    "exhaust": Verb(_ANY_MINIONS, NONE),
    "ready": Verb(_ANY_MINIONS, NONE),
    "heal": Verb(_ANY_MINIONS, NONE),                 # remove all damage
    "destroy": Verb(_ANY_MINIONS, NONE),
    "return_hand": Verb(_ANY_MINIONS, NONE),          # to its owner's hand; damage and markers removed
    "to_ramparts": Verb(_ANY_MINIONS, NONE),          # move to its owner's Ramparts
    "health": Verb(MINION_TARGETS, SIGNED),           # +N / -N health until end of turn
    "no_tower_damage": Verb(("attacker",), NONE),     # the attack deals no damage to the tower
    "end_attack": Verb((), NONE),                     # the current attack ends
}
MAX_AMOUNT = 99

_SIGNED = re.compile(r"[+-][0-9]+")
_COUNT = re.compile(r"[0-9]+")


class EffectSyntaxError(ValueError):
    """A card text or keyword list does not parse; the message names the word and what is allowed."""


class Action(NamedTuple):
    """One action: ``verb`` on ``target`` ("" when none) with ``amount`` (signed for tower/health).

    ``per`` is a count the amount is multiplied by ("" when none); ``optional`` is the ``may`` prefix.
    """

    verb: str
    target: str = ""
    amount: int = 0
    per: str = ""
    optional: bool = False


class Clause(NamedTuple):
    """A trigger and the actions it runs, in order."""

    trigger: str
    actions: tuple[Action, ...]


class Effect(NamedTuple):
    """A parsed card text: its clauses (none for a card without text)."""

    clauses: tuple[Clause, ...] = ()

    @property
    def triggers(self) -> tuple[str, ...]:
        """The clauses' triggers, in order."""
        return tuple(c.trigger for c in self.clauses)


def _allowed(words: object) -> str:
    return ", ".join(words)  # type: ignore[arg-type]


def parse_keywords(text: str) -> tuple[str, ...]:
    """Parse a ``;``-separated keyword list (``"Crush;Twinstrike"``); blank is no keywords."""
    if not text.strip():
        return ()
    words = tuple(w.strip() for w in text.split(";"))
    for word in words:
        if word not in KEYWORDS:
            raise EffectSyntaxError(f"unknown keyword {word!r}; allowed: {_allowed(KEYWORDS)}")
    if len(set(words)) != len(words):
        raise EffectSyntaxError(f"a keyword is listed twice in {text.strip()!r}")
    return words


def format_keywords(keywords: tuple[str, ...]) -> str:
    """The canonical keyword list (``;`` without spaces)."""
    return ";".join(keywords)


def parse_text(text: str) -> Effect:
    """Parse a whole card text into an :class:`Effect` (blank text: no clauses)."""
    if not text.strip():
        return Effect()
    return Effect(tuple(parse_clause(part) for part in text.split(";")))


def parse_clause(text: str) -> Clause:
    """Parse ``trigger: action & action``."""
    head, colon, body = text.partition(":")
    trigger = head.strip()
    if not colon:
        raise EffectSyntaxError(f"{text.strip()!r} has no trigger; write TRIGGER: ACTION with a trigger of "
                                f"{_allowed(TRIGGERS)}")
    if trigger not in TRIGGERS:
        raise EffectSyntaxError(f"unknown trigger {trigger!r}; allowed: {_allowed(TRIGGERS)}")
    actions: list[Action] = []
    for part in body.split("&"):
        action = parse_action(part, trigger)
        if action.target == "it" and not (actions and actions[-1].target in MINION_TARGETS):
            raise EffectSyntaxError(f"target 'it' in {part.strip()!r} needs an earlier action of the clause "
                                    f"that chose one minion ({_allowed(MINION_TARGETS[:3])})")
        actions.append(action)
    return Clause(trigger, tuple(actions))


def parse_action(text: str, trigger: str) -> Action:
    """Parse one action under ``trigger`` (which decides whether attacker/blocker exist)."""
    words = text.split()
    optional = bool(words) and words[0] == "may"
    words = words[1:] if optional else words
    if not words:
        raise EffectSyntaxError(f"an empty action after {trigger!r}; write a verb: {_allowed(VERBS)}")
    verb, shape, rest = words[0], VERBS.get(words[0]), words[1:]
    if shape is None:
        raise EffectSyntaxError(f"unknown verb {verb!r}; allowed: {_allowed(VERBS)}")
    target = ""
    if shape.targets:
        target = _target(verb, shape, rest[0] if rest else "", trigger)
        rest = rest[1:]
    amount = 0
    if shape.amount != NONE:
        amount = _amount(verb, shape.amount, rest[0] if rest else "")
        rest = rest[1:]
    per = ""
    if rest[:1] == ["per"]:
        if verb != "tower" or len(rest) < 2 or rest[1] not in COUNTS:
            raise EffectSyntaxError(f"'per' in {text.strip()!r}: only 'tower' takes it, followed by one of "
                                    f"{_allowed(COUNTS)}")
        per, rest = rest[1], rest[2:]
    if rest:
        raise EffectSyntaxError(f"unexpected {rest[0]!r} after {verb!r} in {text.strip()!r}; {_usage(verb, shape)}")
    return Action(verb, target, amount, per, optional)


def _target(verb: str, shape: Verb, word: str, trigger: str) -> str:
    if not word:
        raise EffectSyntaxError(f"{verb!r} needs a target; {_usage(verb, shape)}")
    if word not in TARGETS:
        raise EffectSyntaxError(f"unknown target {word!r}; allowed: {_allowed(TARGETS)}")
    if word not in shape.targets:
        raise EffectSyntaxError(f"{verb!r} cannot target {word!r}; {_usage(verb, shape)}")
    if word in ("attacker", "blocker") and trigger not in ATTACK_TRIGGERS:
        raise EffectSyntaxError(f"target {word!r} exists only under {_allowed(ATTACK_TRIGGERS)}, "
                                f"not under {trigger!r}")
    if word == "entering" and trigger != "friendly_enters":
        raise EffectSyntaxError(f"target 'entering' exists only under 'friendly_enters', not under {trigger!r}")
    return word


def _amount(verb: str, kind: str, word: str) -> int:
    pattern, example = (_SIGNED, "+3 or -4") if kind == SIGNED else (_COUNT, "2")
    if not pattern.fullmatch(word):
        found = f"found {word!r}" if word else "found nothing"
        raise EffectSyntaxError(f"{verb!r} needs an amount like {example}; {found}")
    value = int(word)
    if value == 0 or abs(value) > MAX_AMOUNT:
        raise EffectSyntaxError(f"{verb!r} amount {word} is out of range; allowed 1..{MAX_AMOUNT}")
    return value


def _usage(verb: str, shape: Verb) -> str:
    form = " ".join([verb, *(["TARGET"] if shape.targets else []),
                     *({SIGNED: ["+N|-N"], COUNT: ["N"], NONE: []}[shape.amount])])
    targets = f" with TARGET one of {_allowed(shape.targets)}" if shape.targets else ""
    return f"write {form!r}{targets}"


def format_action(action: Action) -> str:
    """The canonical spelling of one action."""
    shape = VERBS[action.verb]
    words = ["may"] if action.optional else []
    words.append(action.verb)
    if action.target:
        words.append(action.target)
    if shape.amount == SIGNED:
        words.append(f"{action.amount:+d}")
    elif shape.amount == COUNT:
        words.append(str(action.amount))
    if action.per:
        words += ["per", action.per]
    return " ".join(words)


def format_text(effect: Effect) -> str:
    """The canonical card text: ``trigger: action & action; trigger: ...``."""
    return "; ".join(f"{c.trigger}: " + " & ".join(format_action(a) for a in c.actions) for c in effect.clauses)
