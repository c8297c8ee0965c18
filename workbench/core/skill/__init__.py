"""Skill: how strongly the games are played.

Each game's declared tiers and the verdicts at each, search, weight tuning, the raising loop, the ladder, the
flaw check.

How strongly the games are played, and whether a verdict holds as play improves.  Imports the root modules,
``model``, ``sim``, ``stats`` and ``present``.
"""
