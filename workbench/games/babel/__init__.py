"""Babel: two-player temple building on five sites with five nations (rules: ``docs/rules/babel.md``)."""
