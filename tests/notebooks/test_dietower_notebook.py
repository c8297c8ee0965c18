from __future__ import annotations

from fractions import Fraction

import nbformat
import pytest
from conftest import NOTEBOOKS, mime_types, outputs, thin_code_cells  # noqa: I001 - the notebooks conftest

from tests.independent import wilson

PATH = NOTEBOOKS / "dietower_odds.ipynb"
SMALL = {"GAMES": 3000, "CONVERGENCE_GAMES": 3000, "FULL_DECK_GAMES": 2000, "SMALLEST_SUIT": 2, "LARGEST_SUIT": 3,
         "EQ_SUIT": 3, "ROUNDS": 10}


def test_notebook_is_committed_thin_and_without_outputs():
    thin_code_cells(PATH, max_lines=12)


def six_win_by_round(p: Fraction, faces: int, rounds: int) -> list[Fraction]:
    """P(six-win within r rounds), r = 1..rounds, of the streak model, straight from its rules.

    Round 1: somebody takes the die at 1.  Every later round the Builder wins with probability p:
    with the top face showing that is the six-win, else the die goes up one; otherwise another
    player takes the die at 1.  (p = 1/2, 6 faces: 1/64 by round 7, +1/128 a round after.)
    """
    die, done, out = {1: Fraction(1)}, Fraction(0), [Fraction(0)]
    for _ in range(2, rounds + 1):
        nxt: dict[int, Fraction] = {1: sum(die.values()) * (1 - p)}
        for face, q in die.items():
            if face == faces:
                done += q * p
            else:
                nxt[face + 1] = nxt.get(face + 1, Fraction(0)) + q * p
        die = nxt
        out.append(done)
    return out


def _rows_with(spec: dict, column: str) -> list[dict]:
    (rows,) = [d for d in spec["datasets"].values() if column in d[0]]
    return rows


def _tables(nb, code: str) -> dict[str, str]:
    """The shown tables (their text) of the one code cell whose source contains ``code``, by title."""
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and code in c.source]
    texts = [str(o["data"]["text/plain"]) for o in cell.outputs if "text/plain" in o.get("data", {})]
    return {t.split("\n", 1)[0]: t for t in texts if not t.startswith(("<altair", "VBox("))}


@pytest.mark.slow
def test_notebook_runs_with_small_sizes(run_notebook):
    nb = run_notebook(PATH, SMALL)
    errors = [o for o in outputs(nb) if o.get("output_type") == "error"]
    assert not errors
    kinds = mime_types(nb)
    assert "application/vnd.jupyter.widget-view+json" in kinds  # the panels
    text = "".join(str(o.get("data", {}).get("text/plain", "")) + str(o.get("data", {}).get("text/html", ""))
                   for o in outputs(nb))
    assert "P(six-win)" in text and "loss_vs_equilibrium" in text
    specs = [v for o in outputs(nb) for k, v in o.get("data", {}).items() if k.startswith("application/vnd.vegalite")]
    six_win, points, longest, first_streak, conv, strategy, losses = specs  # lesson, convergence, equilibrium
    assert [s["title"] for s in (points, longest)] == ["p1's points: exact (bars), simulated (points)",
                                                       "longest streak of the game"]
    # the notebook's streak model (P = 0.5, 6 faces) at the small ROUNDS and GAMES
    exact = six_win_by_round(Fraction(1, 2), 6, SMALL["ROUNDS"])
    by_round = _rows_with(six_win, "round")
    assert [r["round"] for r in by_round] == list(range(1, SMALL["ROUNDS"] + 1))
    for r in by_round:
        assert r["exact"] == pytest.approx(float(exact[r["round"] - 1]), abs=1e-15)
        assert r["n"] == SMALL["GAMES"] and r["simulated"] == pytest.approx(r["count"] / r["n"])
        assert (r["low"], r["high"]) == pytest.approx(wilson(r["count"], r["n"]), abs=1e-12)
    lesson = _tables(nb, 'lesson_panel("dietower", "streak"')
    assert exact[-1] == Fraction(5, 128) and f"  {exact[-1]}  " in lesson["six_win"]  # the headline, a fraction
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    shown = "".join(m["state"].get("value", "") for m in state.values() if m["model_name"] == "HTMLModel")
    assert f"<td>{100 * float(exact[-1]):.2f} % ({exact[-1]})</td>" in shown  # the lesson: 3.91 % (5/128)
    assert conv["title"] == "convergence of the Monte Carlo estimate"
    running = _rows_with(conv, "estimate")
    assert running[-1]["n"] == SMALL["CONVERGENCE_GAMES"] and [r["n"] for r in running] == sorted(
        r["n"] for r in running)
    assert all(r["exact"] == pytest.approx(float(exact[-1]), abs=1e-15) for r in running)
    for r in running:  # the running estimate's interval, as Wilson's formula gives it for k of n
        k = round(r["estimate"] * r["n"])
        assert (r["low"], r["high"]) == pytest.approx(wilson(k, r["n"]), abs=1e-12)
    full = _tables(nb, '"full_deck"')
    summary = full["summary"].splitlines()[3:]  # two and three players, each with its n
    assert [line.split()[0] for line in summary if "P(six-win)" in line] == ["2", "3"]
    assert all(line.split()[-1] == str(SMALL["FULL_DECK_GAMES"]) for line in summary)
    reduced = _tables(nb, '"reduced_decks"')["odds"]
    assert {line.split()[0] for line in reduced.splitlines()[3:]} == {"2", "3"}  # SMALLEST_SUIT..LARGEST_SUIT
    assert strategy["title"] == "First-round equilibrium strategy"
    mixes = _rows_with(strategy, "probability")
    for objective in ("win", "points"):  # a mixed strategy over the top EQ_SUIT ranks and the Joker
        mine = {r["card"]: r["probability"] for r in mixes if r["objective"] == objective}
        assert set(mine) == {"Q", "K", "A", "Joker"} and sum(mine.values()) == pytest.approx(1.0)
    assert losses["title"] == "what each heuristic gives away (objective win)"
    given = {(r["agent"], r["opponent"]): r["value"] for r in _rows_with(losses, "value")}
    for agent in {a for a, _ in given}:  # nobody beats the game value; a best response takes the most
        assert given[(agent, "loss_vs_best_response")] >= given[(agent, "loss_vs_equilibrium")] >= -1e-9


def test_moving_a_slider_redraws_the_lesson_with_the_exact_odds():
    """The lesson panel's own widgets (what JupyterLab draws) hold the last setting's table and charts, once."""
    from workbench.ui import lesson_panel

    panel = lesson_panel("dietower", "streak", games=500, guess=10)  # a guess given: worked out at once
    panel.wait(120)
    for n in (10, 11, 12):
        panel.set(rounds=n)  # each move asks for a new guess: nothing shown until it is given
        assert panel.shown.value == "" and 'data-state="ask"' in panel.status.value
    panel.reveal("10")
    tables = panel.wait(120)
    exact = six_win_by_round(Fraction(1, 2), 6, 12)
    (row,) = tables["six_win"].iter_rows(named=True)
    assert (row["quantity"], row["exact_fraction"]) == ("a six-win within 12 rounds", str(exact[-1]))
    assert f"<td>{100 * float(exact[-1]):.2f} % ({exact[-1]})</td>" in panel.shown.value
    assert panel.shown.value.count('data-table="six_win"') == 1
    assert 'data-state="done"' in panel.status.value and "(&#x27;rounds&#x27;, 12)" in panel.status.value
    assert panel.drawn.value.count('class="wb-chart"') == panel.drawn.value.count("<svg") == 4
    rounds = tables["six_win_by_round"]
    assert rounds.get_column("round").to_list() == list(range(1, 13))
    assert rounds.get_column("exact").to_list() == pytest.approx([float(x) for x in exact], abs=1e-15)


def test_the_notebook_runner_flags_output_captured_through_the_front_end(tmp_path):
    """The cause of the stalled `nbconvert --execute` runs, caught every time instead of now and then.

    A cell that writes into an Output widget with ``with out:`` makes the headless front-end send
    the widget's new state to the kernel on the shell socket while it waits there for the cell's
    reply; sometimes the reply is never seen and the run hangs with the kernel idle.
    """
    from conftest import execute_notebook

    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell("import ipywidgets as w", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("out = w.Output()\ndisplay(out)\nwith out:\n    print('hello')")]
    nbformat.write(nb, tmp_path / "captured.ipynb")
    with pytest.raises(AssertionError, match="an Output widget captured cell output"):
        execute_notebook(tmp_path / "captured.ipynb")
