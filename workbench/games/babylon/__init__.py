"""Towers of Babylon: a two-player TCG of minions, zones and spells (rules: ``docs/rules/babylon.md``).

So far the data layer only: the starter card pool and precon decks (``data/babylon/``), loaded and
validated by :mod:`.cards`, with card texts in the small language of :mod:`.effects`.  The rules
model (``model.py``, which registers the game) comes later.
"""
