"""What a study switch costs the studio's kernel: the form of every study of every game, built as the picker builds it.

    .venv/bin/python benchmarks/studio_forms.py [--rounds 3]

Each game's study page (``StudyPanel``) switches through its studies in order; per switch, the widgets made (each is
a model the kernel sends the page and the page draws) and the kernel's CPU time to build the form (closing the last
one included); and how many more widgets are open after a round than before it (a replaced form is closed: 0).
Here the widgets talk to no page (no kernel), so the time is the Python side only; in the studio each widget is
also a message.  Prints one line per game and the whole; the best of ``--rounds`` rounds (a round builds every
form once).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds (the best is shown; default 3)")
    args = parser.parse_args()
    from ipywidgets.widgets.widget import Widget, _instances

    made_count = [0]
    Widget.on_widget_constructed(lambda _: made_count.__setitem__(0, made_count[0] + 1))

    from workbench.core.model import game_names, get_game
    from workbench.core.studies.study import studies
    from workbench.ui.studies import StudyPanel

    panels = {g: StudyPanel(g) for g in game_names()}
    best: dict[str, tuple[float, int, int]] = {}
    left: dict[str, int] = {}  # widgets still open after a round (the replaced forms are closed: none)
    for _ in range(max(1, args.rounds)):
        for game, panel in panels.items():
            names = [s.name for s in studies(game)]
            names = names[1:] + names[:1]  # every study, the one shown first last: each is a switch
            made, open_before, started = made_count[0], len(_instances), time.process_time()
            for name in names:
                panel.picker.value = name
            took, widgets = time.process_time() - started, made_count[0] - made
            if game not in best or took < best[game][0]:
                best[game] = (took, widgets, len(names))
            left[game] = len(_instances) - open_before
    width = max(len(get_game(g).title) for g in best)
    for game, (took, widgets, switches) in best.items():
        print(f"{get_game(game).title:<{width}}  {switches:>3} switches  {widgets / switches:6.1f} widgets a switch  "
              f"{took / switches * 1000:6.1f} ms a switch (kernel CPU)  {left[game]:+d} widgets open after a round")
    took = sum(b[0] for b in best.values())
    switches = sum(b[2] for b in best.values())
    widgets = sum(b[1] for b in best.values())
    print(f"{'every game':<{width}}  {switches:>3} switches  {widgets / switches:6.1f} widgets a switch  "
          f"{took / switches * 1000:6.1f} ms a switch (kernel CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
