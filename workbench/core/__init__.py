"""Core: everything the games share, grouped by concern in packages that import one way.

From the bottom up (a package imports only the ones before it, and the three root modules):

* ``errors``, ``lazy``, ``rng`` (root): the error types, heavy libraries imported on first use, and the
  SplitMix64 streams every game's randomness comes from;
* ``model``: what a game declares (its facts, its protocol, its capabilities), the registry, data files;
* ``sim``: playing games: the reference loop, seeds, the runner and its workers, sweeps and streams to
  Parquet, stopping and progress, output folders;
* ``stats``: rates with their intervals, paired comparisons, outcome metrics, card rates and values;
* ``present``: charts, the report document and its summary, rules pages, play-throughs as text;
* ``skill``: agents' strength: the declared tiers, search, tuning, the raising loop, the ladder, the flaw check;
* ``design``: changing the game: card edits and what-ifs, dead cards, auto-balance, rebalancing, readings;
* ``studies``: the study protocol and the studies core gives every game (verdicts, metagame, lessons).

Core never imports a game, the UI, the CLI or interop (``tests/test_layers.py`` checks all of it).
"""
