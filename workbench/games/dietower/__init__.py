"""Tower of Babel (rules: ``docs/rules/dietower.md``): simultaneous card play with a die streak.

Modules: ``rules`` (pure rules over an immutable state), ``agents`` (random, highest, lowest,
joker timing, mixed), ``engine`` (reference engine and the result frame), ``fast`` (compiled batch
engine, identical games), ``model`` (``MODEL``, registered as "dietower"), ``exact`` (streak-model
Markov chain and exact enumeration of random play), ``optimal`` (backward induction with a linear
program per state), ``analysis`` (frames and charts for the notebook and report), ``report``.
"""
