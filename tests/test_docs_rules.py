"""The rules pages (``docs/rules/``): every shipped game has one, complete, and nothing points outside the repository.

A user of the repository has only what is tracked in it, so no tracked file may send them to the
rules texts' folder beside the checkout or to a numbered rules file; each game's page must carry the
two parts a reader looks for (the readings with their parameters, the tests that pin the rules),
name every parameter the game declares, and cite only tests that exist.
"""

from __future__ import annotations

import ast
import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

from workbench.core.errors import InputError
from workbench.core.model import get_game, registry
from workbench.core.present.docs import RULES_DIR, documented_games, first_section, rules_doc, rules_summary, sections

ROOT = Path(__file__).resolve().parents[1]
# Built from parts so that this file does not contain what it forbids.
FORBIDDEN = (
    re.compile(re.escape(".." + "/shared/rules"), re.IGNORECASE),  # (../shared/anchors, the C references, is fine)
    re.compile("rules" + r"\s+file\s+00", re.IGNORECASE),
    re.compile(re.escape("CLARIFICATIONS" + ".md")),
    re.compile(re.escape("babylon_starter" + "_pool.md")),
    re.compile(re.escape("tower_duel" + ".en.md")),
    re.compile(r"\b00[0-4]_[0-9a-f]{16}" + r"\.txt"),  # the numbered rules texts
)
REQUIRED_SECTIONS = ("Parameters and readings", "Tests that pin the rules")
CITED_TEST = re.compile(r"(tests/[\w/]+\.py)::(\w+)")
SHIPPED = sorted(name for name, module in registry().items() if module.startswith("workbench.games."))


def _tracked_files() -> list[Path]:
    """Every file git tracks (or, outside a git checkout, every file of the repository's own folders)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60)
        names = [n for n in out.stdout.decode("utf-8").split("\0") if n]
    except (OSError, subprocess.SubprocessError):
        names = [str(p.relative_to(ROOT)) for folder in ("workbench", "tests", "data", "docs", "notebooks",
                                                          "benchmarks") for p in (ROOT / folder).rglob("*")
                 if p.is_file() and "__pycache__" not in p.parts]
        names += [n for n in ("README.md", "Makefile", "pyproject.toml") if (ROOT / n).is_file()]
    return [ROOT / n for n in names if (ROOT / n).is_file()]


def test_no_tracked_file_points_at_the_rules_texts_outside_the_repository():
    files = _tracked_files()
    assert any(p.name == "README.md" and p.parent == ROOT for p in files)  # the listing found the repository
    hits = []
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="ignore")
        for number, line in enumerate(text.splitlines(), 1):
            if any(pattern.search(line) for pattern in FORBIDDEN):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert not hits, "point these at docs/rules/<game>.md instead:\n" + "\n".join(hits)


def test_the_forbidden_patterns_catch_what_they_are_for():
    for line in ("see .." + "/shared/rules/001.txt", "Babel (Rules " + "File 001)", "the CLARIFICATIONS" + ".md page",
                 "004_0123456789abcdef" + ".txt"):  # built from parts, as FORBIDDEN
        assert any(p.search(line) for p in FORBIDDEN), line
    for line in ("see docs/rules/babel.md", "a rules file and a model declaration", "shared memory"):
        assert not any(p.search(line) for p in FORBIDDEN), line


def test_the_five_shipped_games_are_the_documented_ones():
    assert SHIPPED == ["babel", "babylon", "dietower", "duel", "rescue"]
    assert documented_games() == tuple(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_game_has_a_page_with_both_required_sections(name):
    page = sections(rules_doc(name).read_text(encoding="utf-8"))
    for heading in REQUIRED_SECTIONS:
        assert heading in page and page[heading].strip(), f"docs/rules/{name}.md has no '## {heading}'"
    assert "Known differences" in page


@pytest.mark.parametrize("name", SHIPPED)
def test_every_declared_parameter_is_named_in_the_page(name):
    text = rules_doc(name).read_text(encoding="utf-8")
    missing = [p.name for p in get_game(name).params
               if not re.search(rf"(?<![\w]){re.escape(p.name)}(?![\w])", text)]
    assert not missing, f"docs/rules/{name}.md does not name the parameters {missing}"


@cache
def _test_names(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(node.name for node in ast.walk(tree)
                     if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef))


@pytest.mark.parametrize("name", SHIPPED)
def test_every_cited_test_exists(name):
    cited = CITED_TEST.findall(rules_doc(name).read_text(encoding="utf-8"))
    assert len(cited) >= 10  # a page pins its rules with tests, not with one token citation
    missing = [f"{file}::{test}" for file, test in cited
               if not (ROOT / file).is_file() or test not in _test_names(ROOT / file)]
    assert not missing, f"docs/rules/{name}.md cites tests that do not exist: {missing}"


def test_the_index_links_every_page():
    index = (RULES_DIR / "README.md").read_text(encoding="utf-8")
    assert [n for n in SHIPPED if f"]({n}.md)" not in index] == []


def test_rules_doc_finds_a_page_by_name_or_model_and_refuses_what_has_none():
    assert rules_doc("babel") == ROOT / "docs" / "rules" / "babel.md"
    assert rules_doc(get_game("duel")) == ROOT / "docs" / "rules" / "duel.md"
    with pytest.raises(InputError, match=r"'chess' has no rules page .*pages exist for: babel, babylon, dietower, "
                                         r"duel, rescue"):
        rules_doc("chess")
    for bad in ("../README", "Babel", "", None):
        with pytest.raises(InputError, match="is not a game name"):
            rules_doc(bad)


def test_the_summary_is_the_path_then_the_first_section_only(tmp_path):
    (tmp_path / "toy.md").write_text("# Toy\n\nintro\n\n## What is modelled\n\nA coin.\n\n## Parameters and "
                                     "readings\n\n`edge`\n", encoding="utf-8")
    assert rules_summary("toy", tmp_path) == f"{tmp_path / 'toy.md'}\n\n## What is modelled\n\nA coin."
    (tmp_path / "bare.md").write_text("just text\n", encoding="utf-8")
    assert first_section(tmp_path / "bare.md") == "just text"
    assert documented_games(tmp_path) == ("bare", "toy")
    assert documented_games(tmp_path / "absent") == ()
