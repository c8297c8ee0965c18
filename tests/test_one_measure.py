"""One measure, one name (issue 38): the first seat's score counts a draw as half on every surface.

The same 400 Babylon games (greedy in both seats, master seed 1: two of them drawn, so a score that
counted a draw as a loss would read 56.5 % where the score reads 56.75 %) give one first-seat score in
``workbench simulate``, in the studies that report the first seat (the library's tables) and in the
studio (the skill and outcomes studies' shown tables and the Cards what-if's headline), each at the
decimal it prints.  And in every registered game, simulate's summary reads the first seat's wins plus
half its draws over the games with a first seat, counted here from the frame it wrote.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import polars as pl
import pytest

from workbench.app.workspace import Workspace
from workbench.cli import main
from workbench.core.model import game_names
from workbench.core.stats.rates import wilson
from workbench.core.studies.study import get_study

GAME, GAMES, SEED, AGENTS = "babylon", 400, 1, "greedy,greedy"
LINE = re.compile(r"first seat score\s+([0-9.]+)%\s+95% CI \[([0-9.]+)%, ([0-9.]+)%\]\s+n=([0-9]+)\s+"
                  r"\(a draw counts half; draws ([0-9.]+)%, ([0-9,]+) won\)")


def _counted(frame: pl.DataFrame) -> tuple[int, int, int]:
    """``(games with a first seat, first-seat wins, draws among them)`` counted from the frame itself."""
    moved = frame.filter(pl.col("first_seat").is_not_null())
    return (moved.height, int((moved["winner"] == moved["first_seat"]).sum()),
            int((moved["winner"] == "draw").sum()))


def _simulate(game: str, games: int, seed: int, tmp_path, capsys,
              agents: str | None = None) -> tuple[str, pl.DataFrame]:
    out = tmp_path / f"{game}.parquet"
    args = ["simulate", game, "--games", str(games), "--seed", str(seed), "--quiet", "--out", str(out)]
    assert main(args + (["--agents", agents] if agents else [])) == 0
    return capsys.readouterr().out, pl.read_parquet(out)


class _Cells(HTMLParser):
    """The first row of a shown table (``data-table=name``), by each column's raw name (``data-column``)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name, self.inside, self.columns, self.row, self.depth = name, False, [], None, 0
        self.text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        found = dict(attrs)
        if tag == "div" and found.get("data-table") == self.name:
            self.inside = True
        if not self.inside:
            return
        if tag == "th":
            self.columns.append(found["data-column"])
        elif tag == "tr" and self.columns and self.row is None:
            self.row = []
        elif tag == "td" and self.row is not None and len(self.row) < len(self.columns):
            self.text = []

    def handle_data(self, data: str) -> None:
        if self.text is not None:
            self.text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self.text is not None:
            self.row.append("".join(self.text))
            self.text = None
        elif tag == "table" and self.inside:
            self.inside = False

    @classmethod
    def first_row(cls, page_html: str, name: str) -> dict[str, str]:
        parser = cls(name)
        parser.feed(page_html)
        assert parser.columns, f"no shown table {name!r}"
        return dict(zip(parser.columns, parser.row, strict=True))


def _shown(cell: str) -> str:
    """``56.8`` from a shown rate ``56.8% [51.9–61.5]``."""
    return re.match(r"([0-9.]+)%", cell).group(1)


def test_the_same_games_give_the_same_first_seat_score_in_the_cli_the_studies_and_the_studio(tmp_path, capsys):
    from workbench.ui.cards import CardEditor
    from workbench.ui.studies import StudyPanel

    text, frame = _simulate(GAME, GAMES, SEED, tmp_path, capsys, AGENTS)
    n, won, drawn = _counted(frame)
    assert n == GAMES and 0 < drawn  # some games drawn: a draw's half is visible in every number below
    score = (won + drawn / 2) / n
    assert f"{100 * score:.1f}" != f"{100 * won / n:.1f}"  # counting a draw as a loss would read otherwise
    # the CLI: the score, its interval and n, the draws beside it
    (printed, low, high, shown_n, draws, wins), = LINE.findall(text)
    assert (printed, int(shown_n), draws, int(wins.replace(",", ""))) == (
        f"{100 * score:.2f}", n, f"{100 * drawn / n:.2f}", won)
    assert (low, high) == tuple(f"{100 * x:.2f}" for x in wilson(won + drawn / 2, n))
    assert "first seat wins" not in text

    # the skill study (one tier, the same agent in both seats, the same seed): the library's tables ...
    studio = Workspace(tmp_path / "studio")
    panel = StudyPanel(GAME, "skill", workspace=studio)
    panel.set(tiers="greedy", games=GAMES)
    panel.seed.value = str(SEED)
    panel.run(wait=True)
    record = studio.store.runs()[0]
    _, tables = studio.store.load(record["id"])
    library = get_study(GAME, "skill").execute(GAME, {"tiers": "greedy", "games": GAMES}, seed=SEED)
    (row,) = library["verdicts"].iter_rows(named=True)
    assert row["cell"] == "first seat score, Siege of Ur vs Citadel of the Rivers"  # what it is, on what
    assert (row["greedy · n"], row["greedy · draws"]) == (n, drawn)
    assert row["greedy · first seat score"] == pytest.approx(score)
    assert tables["verdicts"]["greedy · first seat score"].to_list() == pytest.approx([score])
    # ... and the studio's shown table, named by its measure at its tier
    cells = _Cells.first_row(panel.results.body.value, "verdicts")
    assert _shown(cells["greedy · first seat score"]) == f"{100 * score:.1f}"
    assert "greedy · first seat score" in html.unescape(panel.results.body.value)

    # the outcomes study: its first-mover table carries the score beside the win rate, the studio shows it
    panel = StudyPanel(GAME, "outcomes", workspace=Workspace(tmp_path / "outcomes"))
    panel.set(agents=AGENTS, games=GAMES)
    panel.seed.value = str(SEED)
    tables = panel.run(wait=True)
    first = tables["first_mover"].row(0, named=True)
    assert (first["first_seat_score"], first["first_seat_score_n"]) == (pytest.approx(score), n)
    assert first["first_seat_draws"] == pytest.approx(drawn / n)
    cells = _Cells.first_row(panel.results.body.value, "first_mover")
    assert _shown(cells["first_seat_score"]) == f"{100 * score:.1f}"
    assert "first seat score" in panel.results.body.value

    # the Cards what-if: its unchanged arm is the same games; the headline names the measure and the matchup
    page = CardEditor(GAME, Workspace(tmp_path / "cards"))
    page.edit("F9", power_cost="2")
    page.settings.set(games=GAMES, agents=AGENTS)
    page.seed.value = str(SEED)
    result = page.run(wait=True)
    assert result.baseline.select("game_seed", "winner", "first_seat").equals(
        frame.select("game_seed", "winner", "first_seat"))
    headline = html.unescape(re.search(r"<p class='wb-whatif-delta'[^>]*><b>(.*?)</b>", page.results.header.value)
                             .group(1))
    assert headline.startswith(f"first seat score {100 * score:.1f}% → ")
    assert "a draw counts half; draws" in headline and f"draws {100 * drawn / n:.1f}% → " in headline
    assert "measured on greedy vs greedy; deck p1 Siege of Ur, deck p2 Citadel of the Rivers" in headline
    assert "data-metric='first_seat_score'" in page.results.header.value


@pytest.mark.parametrize("game", game_names())
def test_simulates_first_seat_score_is_wins_and_half_the_draws_in_every_game(game, tmp_path, capsys):
    text, frame = _simulate(game, 200, 2, tmp_path, capsys)  # Babel draws 6 of these, with the default agents
    n, won, drawn = _counted(frame)
    found = LINE.findall(text)
    if n == 0:  # simultaneous play: no seat moves first, so no first seat's score is printed
        assert found == [] and "first seat" not in text
        return
    (printed, low, high, shown_n, draws, wins), = found
    score = (won + drawn / 2) / n
    assert (printed, int(shown_n), draws, int(wins.replace(",", ""))) == (
        f"{100 * score:.2f}", n, f"{100 * drawn / n:.2f}", won)
    assert (low, high) == tuple(f"{100 * x:.2f}" for x in wilson(won + drawn / 2, n))
    seats = sorted(c.removeprefix("agent_") for c in frame.columns if c.startswith("agent_"))
    for seat in seats:  # each seat's wins are said to be wins; with two seats its score stands beside them
        assert re.search(rf"^  {seat} \(.+\) wins ", text, re.M)
    if len(seats) == 2:
        for seat in seats:
            k = int((frame["winner"] == seat).sum()) + int((frame["winner"] == "draw").sum()) / 2
            assert re.search(rf"^  {seat} \(.+\) score\s+{100 * k / frame.height:.2f}%", text, re.M)
