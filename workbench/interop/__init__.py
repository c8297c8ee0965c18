"""Bridges from the game protocol (``core/model/``) to other libraries, each an optional extra.

``openspiel``: every registered game as an OpenSpiel (``pyspiel``) Python game, and OpenSpiel's
IS-MCTS as a workbench agent (``pip install 'workbench[openspiel]'``).
"""
