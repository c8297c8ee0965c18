"""Tower of Babel (die streak) teaching dashboard (ipywidgets): sliders over the exact streak model and its simulation.

The frames and charts come from :mod:`workbench.games.dietower.analysis` (re-exported here so a
notebook needs one import); this module only adds the widgets.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import altair as alt

from workbench.games.dietower.analysis import (  # noqa: F401 - re-exported for notebooks
    HEURISTICS,
    convergence_chart,
    convergence_frame,
    distribution_chart,
    equilibrium_chart,
    equilibrium_frames,
    full_deck_summary,
    loss_chart,
    reduced_deck_table,
    six_win_chart,
    streak_comparison,
    streak_length_chart,
    summarise,
)
from workbench.games.dietower.exact import streak_odds
from workbench.ui.common import display_into, offline_charts, require_widgets

offline_charts()  # charts render without a network (Vega-Lite JSON + SVG)


def streak_charts(p: float, die_faces: int, rounds: int, players: int, games: int, seed: int = 0) -> alt.VConcatChart:
    """The four streak-model charts for one setting of the sliders."""
    frames = streak_comparison(p, die_faces, rounds, players, games=games, seed=seed)
    return alt.vconcat(
        alt.hconcat(distribution_chart(frames["points"], title="p1's points", x_title="points"),
                    six_win_chart(frames["six_win_by_round"])),
        alt.hconcat(distribution_chart(frames["longest"], title="longest streak of the game",
                                       x_title="rounds won in a row"),
                    streak_length_chart(frames["first_streak"])))


# -- the interactive dashboard ----------------------------------------------------------------
def dashboard(p: float = 0.5, die_faces: int = 6, rounds: int = 14, players: int = 2, games: int = 100_000,
              seed: int = 0) -> Any:
    """Sliders for p, die faces, rounds and players; redraws exact vs simulated on every change (replacing the last)."""
    w = require_widgets()
    sliders = {
        "p": w.FloatSlider(value=p, min=0.0, max=1.0, step=0.05, description="p (Builder wins)"),
        "die_faces": w.IntSlider(value=die_faces, min=2, max=20, description="die faces"),
        "rounds": w.IntSlider(value=rounds, min=2, max=30, description="rounds"),
        "players": w.IntSlider(value=players, min=2, max=4, description="players"),
    }
    out = w.Output()

    def redraw(_: Any = None) -> None:
        values = {k: s.value for k, s in sliders.items()}
        six = float(streak_odds(Fraction(values["p"]).limit_denominator(1000), values["die_faces"], values["rounds"],
                                values["players"]).six_win)
        # one assignment of the widget's outputs, not `with out:` (see common.display_into)
        display_into(out, f"exact P(six-win within {values['rounds']} rounds) = {six:.6f}; simulated with "
                          f"{games:,} games", streak_charts(games=games, seed=seed, **values))

    for s in sliders.values():
        s.observe(redraw, names="value")
    redraw()
    box = w.VBox([w.HBox(list(sliders.values())[:2]), w.HBox(list(sliders.values())[2:]), out])
    return box
