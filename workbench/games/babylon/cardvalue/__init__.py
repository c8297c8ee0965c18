"""Towers of Babylon's cards judged: per-card rates from played games and the static value model.

``cardstats`` gives per-card rates over the decks holding a card, ``valuation`` the exchange rates from a card's
features to its printed cost.
"""
