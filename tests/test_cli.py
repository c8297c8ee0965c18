from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from workbench.cli import main
from workbench.core.sim.runner import simulate


def test_simulate_writes_parquet_and_prints_rates_with_intervals(tmp_path, capsys):
    out = tmp_path / "duel.parquet"
    rc = main(["simulate", "duel", "--games", "40", "--seed", "3", "--agents", "greedy,random", "--engine",
               "reference", "--quiet", "--out", str(out), "--start-wall", "20", "--miss-rate", "0.05"])
    assert rc == 0
    frame = pl.read_parquet(out)
    assert frame.height == 40
    assert frame["start_wall"].unique().to_list() == [20] and frame["miss_rate"].unique().to_list() == [0.05]
    text = capsys.readouterr().out
    assert "p1 (greedy)" in text and "95% CI" in text and "n=40" in text


def test_battlefield_all_runs_every_battlefield(tmp_path):
    out = tmp_path / "all.parquet"
    assert main(["simulate", "duel", "--battlefield", "all", "--deck", "regular,unlimited", "--games", "3",
                 "--engine", "reference", "--quiet", "--out", str(out)]) == 0
    frame = pl.read_parquet(out)
    assert frame.height == 8 * 2 * 3
    assert frame.select(pl.struct("battlefield", "deck").n_unique()).item() == 16


@pytest.mark.parametrize("args, message", [
    (["--battlefield", "atlantis"], "'atlantis' is not allowed; allowed: grand_wizards_fortress"),
    (["--agents", "oracle,random"], "unknown agent 'oracle'"),
    (["--games", "0"], "games must be a positive integer"),
    (["--games", "-5"], "games must be a positive integer"),
    (["--start-wall", "-1"], "out of range"),
    (["--miss-rate", "often"], "is not a number"),
    (["--deck", "regular,infinite"], "'infinite' is not allowed"),
])
def test_bad_input_is_a_clear_error_and_writes_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "never.parquet"
    rc = main(["simulate", "duel", "--engine", "reference", "--quiet", "--out", str(out), *args])
    assert rc == 2
    assert message in capsys.readouterr().err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_malformed_card_file_is_named(tmp_path, capsys):
    bad = tmp_path / "cards.csv"
    bad.write_text("id,key,name_en,name_id,colour,cost,effect\n1,x,X,X,purple,1,self.wall +1\n")
    out = tmp_path / "never.parquet"
    rc = main(["simulate", "duel", "--games", "2", "--cards", str(bad), "--out", str(out), "--quiet"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "cards.csv, row 2, column 'colour'" in err and "allowed: red, green, blue" not in err
    assert "'purple' is not a colour; allowed: red, blue, green" in err
    assert not out.exists()


def test_games_lists_parameters_and_battlefields(capsys):
    assert main(["games"]) == 0
    text = capsys.readouterr().out
    assert "--start-wall" in text and "--miss-rate" in text and "free_steppe" in text and "Stepa Bebas" in text


def test_sweep_runs_a_grid_and_reuses_finished_chunks(tmp_path, capsys):
    from workbench.core.sim.sweep import load_sweep

    out = tmp_path / "sweep"
    args = ["sweep", "duel", "--grid", "battlefield=crystal_garden,free_steppe", "deck=all", "--games", "30",
            "--agents", "greedy,random", "--out", str(out), "--quiet"]
    assert main(args) == 0
    first = load_sweep(out)
    assert first.height == 2 * 2 * 30
    assert first.select(pl.struct("battlefield", "deck").n_unique()).item() == 4
    chunks = sorted(p.stat().st_mtime_ns for p in out.rglob("*.parquet"))
    assert main(args) == 0
    assert sorted(p.stat().st_mtime_ns for p in out.rglob("*.parquet")) == chunks  # nothing replayed
    assert load_sweep(out).equals(first)


def test_sweep_rejects_unknown_values_before_writing(tmp_path, capsys):
    out = tmp_path / "sweep"
    assert main(["sweep", "duel", "--grid", "battlefield=moon", "--games", "2", "--out", str(out)]) == 2
    assert "'moon' is not allowed" in capsys.readouterr().err
    assert not out.exists()


def test_interrupted_simulate_keeps_the_finished_games(tmp_path, monkeypatch, capsys):
    from workbench.core.sim import runner

    real, calls = runner.run_chunk, {"n": 0}

    def interrupted_on_third_chunk(*args):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(runner, "run_chunk", interrupted_on_third_chunk)
    out = tmp_path / "partial.parquet"
    rc = main(["simulate", "duel", "--games", "50", "--chunk-size", "10", "--engine", "reference", "--quiet",
               "--out", str(out)])
    assert rc == 130
    assert "interrupted after 20 of 50 games" in capsys.readouterr().err
    kept = pl.read_parquet(out)
    assert kept["game_index"].to_list() == list(range(20))
    # the finished chunks wait for a resume; no temporary file is left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["partial.parquet", "partial.parquet.parts"]
    assert sorted(p.name for p in (tmp_path / "partial.parquet.parts").iterdir()) == [
        "0000-000000000000000-000000000000010.parquet", "0000-000000000000010-000000000000020.parquet", "run.json"]
    monkeypatch.setattr(runner, "run_chunk", real)
    assert main(["simulate", "duel", "--games", "50", "--chunk-size", "10", "--engine", "reference", "--quiet",
                 "--out", str(out)]) == 0  # the same command resumes: 3 chunks left to play
    assert_frame_equal(pl.read_parquet(out), simulate("duel", 50, engine="reference", progress=False))
    assert [p.name for p in tmp_path.iterdir()] == ["partial.parquet"]


# -- a game that is only a rules file and a model declaration (tests/toygame) ------------------------
def test_the_toy_game_is_listed_with_its_agents_studies_and_parameters(capsys):
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    toy = out[out.index("toy — Coin race (toy) (rules toy-1); players 2"):]
    for line in ("random ", "greedy ", "risky when behind", "engines: reference", "outcomes ",
                 "--board", "small | large", "--edge", "float in [0, 1]"):
        assert line in toy
    assert "command: workbench shuffle" in out[:out.index("toy —")]  # the duel's declared command


def test_the_toy_game_simulates_sweeps_and_reports(tmp_path, capsys):
    out = tmp_path / "toy.parquet"
    assert main(["simulate", "toy", "--games", "300", "--agents", "greedy,random", "--board", "all", "--seed", "5",
                 "--quiet", "--out", str(out)]) == 0
    frame = pl.read_parquet(out)
    assert frame.height == 600 and sorted(frame["board"].unique()) == ["large", "small"]
    text = capsys.readouterr().out
    assert "p1 (greedy)" in text and "n=600" in text
    assert main(["sweep", "toy", "--games", "300", "--agents", "greedy,random", "--grid", "board=all", "--seed", "5",
                 "--quiet", "--out", str(tmp_path / "sweep")]) == 0
    from workbench.core.sim.sweep import load_sweep

    assert_frame_equal(load_sweep(tmp_path / "sweep"), frame)
    capsys.readouterr()
    assert main(["report", "toy", "--quick", "--out", str(tmp_path / "report")]) == 0
    md = (tmp_path / "report" / "index.md").read_text(encoding="utf-8")
    assert md.startswith("# Coin race (toy): outcomes of its agents")
    assert "| greedy vs random | p1 | 500 |" in md and "Rules version | toy-1" in md
    rates = pl.read_csv(tmp_path / "report" / "seat_win_rates.csv")
    assert set(rates["lineup"]) == {"random vs random", "greedy vs random", "random vs greedy"}
    assert (rates["low"] <= rates["rate"]).all() and (rates["rate"] <= rates["high"]).all()


def test_a_study_prints_its_tables_and_writes_a_report(tmp_path, capsys):
    assert main(["study", "toy"]) == 0
    assert "outcomes" in capsys.readouterr().out
    assert main(["study", "toy", "outcomes", "--games", "400", "--agents", "greedy,random", "--edge", "0.9",
                 "--out", str(tmp_path / "study")]) == 0
    out = capsys.readouterr().out
    assert "## seats" in out and "| p1   | 400   |" in out
    assert "| seat | games | wins | rate " in out  # plain column labels; the files keep the raw names (n, k)
    seats = pl.read_parquet(tmp_path / "study" / "seats.parquet")
    alone = simulate("toy", 400, params={"edge": 0.9}, agents="greedy,random", progress=False)
    assert seats.filter(pl.col("seat") == "p1")["k"].item() == (alone["winner"] == "p1").sum()
    assert (tmp_path / "study" / "seat_win_rates_chart.svg").exists()
    assert main(["study", "toy", "cards"]) == 2
    assert "unknown study 'cards'; allowed: outcomes, balance" in capsys.readouterr().err


def test_games_rules_prints_the_games_rules_page_and_its_first_section(capsys):
    assert main(["games", "babel", "--rules"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("docs/rules/babel.md") and "## What is modelled" in out
    assert main(["games", "--rules"]) == 2
    assert "--rules needs a game" in capsys.readouterr().err
