"""To The Rescue: its lessons (``MODEL.lessons`` names ``LESSONS``; core/studies/lessons.py).

The auction, the Dragon and the tower trophies, each with what a student reads: a title, an
introduction in plain words and the question asked before any number is shown.  The studies
themselves are the game's (``studies.py``, ``events.py``); their help texts are for designers.
"""

from __future__ import annotations

from workbench.core.studies.lessons import Lesson, Question

AUCTION_INTRO = ("Each player secretly puts some of their crystals in a closed fist to bid for a Mercenary, then "
                 "everyone opens their hand at once. The single highest bid wins and pays its crystals. If two or "
                 "more players tie for the highest bid (of at least 1 crystal), only they bid again; a second tie "
                 "and nobody gets the Mercenary. If everybody bids 0, nobody gets it. Here every player bids a random "
                 "number of their crystals, each number equally likely, unless you pick other ways to bid.")
DRAGON_INTRO = ("The Dragon card is shuffled with 5 other event cards, and one event card is turned up each round, "
                "so the Dragon comes out in round 1, 2, … or 6. From then on, every round each player catches it "
                "with the same small chance. The first player to catch it alone takes its trophy; if two or more "
                "catch it in the same round, they get nothing and the others race on. If the game ends first, or "
                "everybody catches it together, nobody takes the trophy.")
TROPHIES_INTRO = ("Each tower colour has 5 tokens, and building a tower of that colour takes one. When all 5 tokens "
                  "of a colour are gone, the player holding the most of them takes the colour's trophy, but a tie "
                  "for most gives the trophy to nobody. Here each token goes to a player at random: with equal "
                  "weights every player is equally likely to take it.")

LESSONS = (
    Lesson("auction", AUCTION_INTRO, "The Mercenary auction: does anybody get the Mercenary?",
           Question("With {players} players who each have {budget} crystals and bid at random, how likely is it "
                    "that nobody gets the Mercenary?", "odds", {"event": "nobody"})),
    Lesson("dragon", DRAGON_INTRO, "The Dragon: who takes its trophy?",
           Question("With {players} players, is it more likely that player 1 takes the Dragon's trophy, or that "
                    "nobody does?", "trophy", choices=(("player 1 takes it", {"outcome": "p1"}),
                                                      ("nobody takes it", {"outcome": "nobody"})))),
    Lesson("trophies", TROPHIES_INTRO, "Tower trophies: how often does a tie leave a trophy with nobody?",
           Question("With {players} players sharing a colour's 5 tokens at random, how likely is it that nobody "
                    "takes that colour's trophy?", "trophy", {"outcome": "nobody"})),
)
