"""The duel's cards judged: rates from played games, the static value model, and what-ifs on the same seeds.

``cardstats`` gives per-card rates, ``valuation`` the exchange rates from effects to cost, ``whatif`` edits
played against the unchanged cards on common seeds.
"""
