"""The README's command lines run as written (issue 40): each ``workbench …`` line of README.md is parsed by the real
parser — a game's flags, a study's settings and every shared option checked — and passes the checks its command
makes before any work (a weight set that exists needs ``--force``; a target, an edit space and tiers the game
accepts).  Running each in full would take hours; what could refuse it before any game is checked here.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from workbench.cli import check

README = Path(__file__).resolve().parents[2] / "README.md"
PLACEHOLDERS = re.compile(r"\b(GAME|STUDY|NAME|HEX|FILE)\b|…")


def readme_lines() -> list[str]:
    """``workbench …`` lines: those of the shell blocks (continuations joined) and inline ones without placeholders."""
    text = README.read_text(encoding="utf-8")
    lines: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            words = shlex.split(line, comments=True)
            if words[:1] in (["workbench"], [".venv/bin/workbench"]):
                lines.append(shlex.join(words[1:]))
    for span in re.findall(r"`workbench ([^`]+)`", text):
        if not PLACEHOLDERS.search(span) and len(shlex.split(span)) > 1:
            lines.append(span)
    return lines


def test_the_readme_has_command_lines_of_every_kind():
    commands = {shlex.split(line)[0] for line in readme_lines()}
    assert {"games", "simulate", "sweep", "study", "report", "tune", "ladder", "rebalance"} <= commands


@pytest.mark.parametrize("line", readme_lines())
def test_each_readme_command_line_parses_and_passes_its_checks(line):
    check(shlex.split(line))
