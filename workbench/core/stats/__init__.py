"""Statistics: rates with their intervals and tests.

``rates`` (Wilson intervals, two-proportion and equivalence tests), paired comparisons, outcome metrics, card
rates, card values.

Every rate a user sees is estimated here, with its n and interval.  Imports the root modules, ``model`` and
``sim``; never a chart or a report (``present`` draws what this package computes).
"""
