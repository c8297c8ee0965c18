"""Studies: the study protocol and the studies core gives every game.

Settings, one validator, Run and Stop, partial tables.

The top of core: ``study`` declares what a game's studies are and runs them; ``verdicts``, ``metagame`` and
``lessons`` are studies every game gets.  May import any core package.
"""
