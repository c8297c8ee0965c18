"""Age of Towers: To The Rescue (rules: ``docs/rules/rescue.md``): the expansion's sub-systems as pure models.

Modules: ``auction`` (the Mercenary blind auction's rules and exact outcome odds), ``equilibrium``
(equilibrium bidding: exact bimatrix equilibria for two seats, fictitious play for more),
``control`` (taking control of a Mercenary: the owner's rational answer and the smallest offer that
succeeds), ``agents``, ``model`` (``MODEL``, registered as "rescue": one auction a game),
``dragon`` (when the Dragon appears and who takes its trophy, exact by dynamic programming, and
``DRAGON``, the race as a protocol model), ``trophies`` (tower trophies: exact odds by enumerating
the token splits, and ``TROPHIES``, a race of builders as a protocol model; both run through core's
runner, so their rows carry the rules version and params hash like the auction's),
``board`` (maps, flying creatures' shortest paths and the attacked player's choice, road
shortening, player-count facts), ``events`` and ``board_studies`` (their studies), ``studies``
(``auction``, ``equilibrium``, ``equilibria``, ``control``, ``dragon``, ``trophies``, ``flying``, ``roads``).
"""
