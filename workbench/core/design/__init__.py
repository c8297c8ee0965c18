"""Design: changing a game and judging the change.

Card edits and what-ifs, dead cards, auto-balance, rebalancing, readings.

Imports everything below it (root modules, ``model``, ``sim``, ``stats``, ``present``, ``skill``): a
proposal is judged at every skill tier.  Only ``studies`` imports it.
"""
