"""Presentation: charts, the report document and its summary, the rules pages, a game played out as text.

What a person reads, in display names and percents.  Imports the root modules, ``model``, ``sim`` and
``stats``; never ``skill``, ``design`` or ``studies``, which use it.
"""
