"""The answer a report opens with: "What this report finds" and "What to change".

A report's builder states its verdicts with ``Report.finding`` and its fix with ``Report.change``;
the sentences are generated from the report's own tables, never typed by hand:

* :func:`tier_findings` turns the rows of a :func:`~workbench.core.skill.tiers.tier_verdicts` table into
  sentences (:func:`tier_sentence`): the item's verdict, its score with the 95 % interval and n at
  the strongest tier whose interval decides it (:func:`quoted_tier`: not a search tier's value on
  20 games), and its status across skill (*settled*, *moves with skill* — with
  the values at the two strongest tiers — or *undecided: play more* with the games needed).  A
  finding's weight is how far it lies from fair (points: its interval's distance beyond fair plus a
  quarter of the value's, :func:`verdict_weight`) times how settled it is (:data:`SETTLEDNESS`): a
  settled, clearly unfair verdict comes first.
* :func:`rebalance_changes` turns a rebalance's proposals (``core.design.rebalance.RebalanceResult``) into
  "What to change": the smallest proposal that meets the target at every tier on held-out seeds and
  what it does at each tier, or — when none does — says so and gives the best one with its per-tier
  distances (a proposal meeting the target at some tiers only is shown as such).
* :func:`summary_of` orders a report's findings by weight (at most :data:`MAX_FINDINGS`) and
  :func:`summary_markdown` / :func:`summary_html` render them, each sentence linking to the table or
  section it summarises.  ``Report.write`` puts the summary first after the header of ``index.html``
  and ``index.md`` and writes ``summary.json`` and ``summary.md`` beside them.

``workbench report GAME --summary`` prints ``summary.md`` (:func:`read_summary`); the studio's first
panel of a game shows the same sentences from ``summary.json``.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.stats.rates import MOVES, SETTLE_MARGIN, SETTLED, UNDECIDED

__all__ = ["FINDS", "FORMAT", "MAX_CHANGES", "MAX_FINDINGS", "SETTLEDNESS", "SMALL_SAMPLE", "TO_CHANGE", "decides",
           "number_text", "quoted_tier", "read_summary", "rebalance_changes", "summary_html", "summary_markdown",
           "summary_of", "tier_findings", "tier_row_finding", "tier_sentence", "tiers_of", "verdict_weight"]

FORMAT = "workbench-summary/1"
FINDS, TO_CHANGE = "What this report finds", "What to change"
MAX_FINDINGS = 10  # a designer reads about ten sentences, not a hundred
MAX_CHANGES = 3
# how much a verdict's status counts toward its weight: a settled verdict is one a designer can act on
SETTLEDNESS = {SETTLED: 1.0, MOVES: 0.6, UNDECIDED: 0.3, None: 1.0}


# -- numbers in words -----------------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{x * 100:.1f}"


def _pts(x: float) -> str:
    return f"{x * 100:+.1f}"


def number_text(value: float, low: float | None, high: float | None, points: bool = False) -> str:
    """``53.1 % [52.0, 54.2]``, or in win-rate points ``+4.2 points [+1.0, +7.4]``; a small rate (under 5 %) to 0.01."""
    small = not points and max(value, high if high is not None else value) < 0.05
    f = _pts if points else (lambda x: f"{x * 100:.2f}") if small else _pct
    unit = " points" if points else " %"
    interval = f" [{f(low)}, {f(high)}]" if low is not None and high is not None else ""
    return f"{f(value)}{unit}{interval}"


def tiers_of(table: pl.DataFrame) -> list[str]:
    """The tiers of a :func:`~workbench.core.skill.tiers.tier_verdicts` table, weakest first."""
    return [c.rsplit(" · ", 1)[0] for c in table.columns if c.endswith(" · verdict")]


def _measured(row: dict[str, Any], tiers: Sequence[str], value: str) -> list[str]:
    return [t for t in tiers if row.get(f"{t} · {value}") is not None]


# -- a tier-verdict row as a sentence -------------------------------------------------------------------------
def verdict_weight(rate: float, low: float | None, high: float | None, fair: float, status: str | None) -> float:
    """How much a designer should care about a verdict: how far it is from fair, times how settled it is.

    The distance (points) is how far the 95 % interval lies beyond fair (0 when it holds fair) plus a
    quarter of the point estimate's distance — so a narrow interval well off fair outranks a wide one
    whose middle happens to lie far — times :data:`SETTLEDNESS` of its status.
    """
    beyond = max(0.0, (low - fair) if low is not None else 0.0, (fair - high) if high is not None else 0.0)
    return (beyond + abs(rate - fair) / 4) * 100 * SETTLEDNESS.get(status, 1.0)


def tier_row_finding(row: dict[str, Any], tiers: Sequence[str], subject: str, *, value: str = "score",
                     n: str = "n", fair: float = 0.5, points: bool | None = None, anchor: str = "") -> dict[str, Any]:
    """One finding from one row of a tier-verdict table: sentence, status, weight and its numbers.

    The number quoted is the strongest tier whose interval decides the verdict (:func:`quoted_tier`;
    a stronger tier measured on too few games to decide is named after it, with its interval and n;
    the status compares the two strongest tiers measured);
    ``value`` is the per-tier column read (``<tier> · <value>`` with ``_low``/``_high`` and
    ``<tier> · <n>``), a percentage — or win-rate points when ``points`` (default: any value but
    ``score``), its fair value ``fair``.
    """
    points = value != "score" if points is None else points
    measured = _measured(row, tiers, value)
    status = row.get("status")
    if not measured:
        return {"sentence": f"{subject}: not measured at any tier.", "status": status or UNDECIDED,
                "weight": 0.0, "anchor": anchor, "tier": None, "rate": None, "low": None, "high": None, "n": None}
    fair_value = 0.0 if points else fair
    tier = quoted_tier(row, measured, value, n, fair_value)
    rate, low, high = (row.get(f"{tier} · {value}{end}") for end in ("", "_low", "_high"))
    count = row.get(f"{tier} · {n}")
    verdict = row.get(f"{tier} · verdict")
    said = tier_sentence(subject, verdict, rate, low, high, count, tier, status, row, measured, value, points)
    stronger = measured[measured.index(tier) + 1:]  # measured above the quoted tier, on too few games to quote
    if status == MOVES and stronger and stronger[-1] == measured[-1]:  # the move names it: with its interval and n
        b = measured[-1]
        f = _pts if points else _pct
        unit = " points" if points else " %"
        full = number_text(*(row.get(f"{b} · {value}{end}") for end in ("", "_low", "_high")), points)
        said = said.replace(f"→ {b} {f(row[f'{b} · {value}'])}{unit})",
                            f"→ {b} {full}{_n_text(row.get(f'{b} · {n}'))})", 1)
        stronger = stronger[:-1]
    if stronger:
        said = said.removesuffix(".") + "; " + "; ".join(_small_sample(row, t, value, n, fair_value, points)
                                                         for t in stronger) + "."
    weight = round(verdict_weight(rate, low, high, 0.0 if points else fair, status), 6)
    return {"sentence": said, "status": status, "weight": weight, "anchor": anchor, "tier": tier, "verdict": verdict,
            "rate": rate, "low": low, "high": high, "n": None if count is None else int(count),
            "measure": "points" if points else "rate"}


def decides(low: float | None, high: float | None, fair: float, margin: float = SETTLE_MARGIN) -> bool:
    """True when an interval decides a verdict.

    It lies wholly on one side of ``fair`` (favoured or disfavoured), or wholly within ``fair ± margin``
    (fair to within the margin a status allows).
    """
    if low is None or high is None:
        return False
    return low > fair or high < fair or (low >= fair - margin and high <= fair + margin)


SMALL_SAMPLE = 0.1  # a tier that played under a tenth of the row's largest n is a small sample (a search tier's)


def quoted_tier(row: dict[str, Any], measured: Sequence[str], value: str = "score", n: str = "n",
                fair: float = 0.5) -> str:
    """The tier a summary quotes for a row: the strongest tier whose interval decides the verdict.

    A tier measured on a small sample (under :data:`SMALL_SAMPLE` of the row's largest n: a search
    tier's 20 games, or 1) is not quoted: its interval is 40 points wide, and its number would hide
    the verdict the fast tiers decide on thousands of games; the sentence names it after the verdict
    (:func:`tier_row_finding`).  Among the others the strongest whose interval decides (:func:`decides`)
    is quoted; when none decides, the one with the most games (the strongest of equals).
    """
    most = max(row.get(f"{t} · {n}") or 0 for t in measured)
    sized = [t for t in measured if (row.get(f"{t} · {n}") or 0) >= SMALL_SAMPLE * most] or list(measured)
    deciding = [t for t in sized if decides(row.get(f"{t} · {value}_low"), row.get(f"{t} · {value}_high"), fair)]
    if deciding:
        return deciding[-1]
    return max(reversed(sized), key=lambda t: row.get(f"{t} · {n}") or 0)


def _small_sample(row: dict[str, Any], tier: str, value: str, n: str, fair: float, points: bool) -> str:
    """``search reads 20.0 % [8.1, 41.6] (n 20), disfavoured on 20 games only`` (or: too few games to decide)."""
    rate, low, high = (row.get(f"{tier} · {value}{end}") for end in ("", "_low", "_high"))
    count = row.get(f"{tier} · {n}")
    verdict = row.get(f"{tier} · verdict")
    said = f"{tier} reads {number_text(rate, low, high, points)}{_n_text(count)}"
    if verdict and decides(low, high, fair) and count is not None:
        return f"{said}, {verdict} on {int(count):,} game{'s' if int(count) != 1 else ''} only"
    return f"{said}, too few games to decide"


def _n_text(n: Any) -> str:
    return "" if n is None else f" (n {int(n):,})"


def tier_sentence(subject: str, verdict: str | None, rate: float, low: float | None, high: float | None,
                  n: int | None, tier: str, status: str | None, row: dict[str, Any] | None = None,
                  measured: Sequence[str] = (), value: str = "score", points: bool = False) -> str:
    """A verdict in one sentence.

    E.g. ``First seat on Siege of Ur: favoured, 53.1 % [52.0, 54.2] at greedy@tuned (n 4,000), settled across skill.``
    """
    head = f"{subject}: {verdict}, " if verdict else f"{subject}: "
    count = "" if n is None else f" (n {int(n):,})"
    text = f"{head}{number_text(rate, low, high, points)} at {tier}{count}"
    if status == SETTLED:
        return f"{text}, {SETTLED} across skill."
    if status == MOVES:
        if row is not None and len(measured) >= 2:
            f = _pts if points else _pct
            a, b = measured[-2:]
            return (f"{text}, {MOVES} ({a} {f(row[f'{a} · {value}'])}{' points' if points else ' %'} → "
                    f"{b} {f(row[f'{b} · {value}'])}{' points' if points else ' %'}).")
        return f"{text}, {MOVES}."
    if status == UNDECIDED:
        needed = (row or {}).get("games needed")
        return f"{text}, {UNDECIDED}" + (f" ({needed})." if needed else ".")
    return text + "."


def tier_findings(rep: Any, name: str, subject: str | Callable[[dict[str, Any]], str] = "{cell}", *,
                  value: str = "score", n: str = "n", fair: float = 0.5, points: bool | None = None, top: int = 4,
                  where: Callable[[dict[str, Any]], bool] | None = None) -> list[dict[str, Any]]:
    """Add the ``top`` heaviest rows of the report's tier-verdict table ``name`` as findings; return them all.

    ``subject`` names a row for a reader: a format string over the row's columns (``"First seat on
    {cell}"``) or a function of the row; the table's key columns already hold display names.
    ``where(row)`` keeps only some rows (e.g. the cards flagged at some tier).
    """
    table = rep.frame(name)
    tiers = tiers_of(table)
    if not tiers or "status" not in table.columns:
        raise InputError(f"report table {name!r} is not a tier-verdict table (no '<tier> · verdict' and status)")
    said = []
    for row in table.iter_rows(named=True):
        if where is not None and not where(row):
            continue
        label = subject(row) if callable(subject) else subject.format_map(row)
        said.append(tier_row_finding(row, tiers, label, value=value, n=n, fair=fair, points=points, anchor=name))
    said.sort(key=lambda f: -f["weight"])
    for f in said[:top]:
        extra = {k: v for k, v in f.items() if k not in ("sentence", "status", "weight", "anchor")}
        rep.finding(f["sentence"], status=f["status"], weight=f["weight"], anchor=name, **extra)
    return said


# -- what to change ------------------------------------------------------------------------------------------
def _tier_word(row: dict[str, Any], tier: str) -> str:
    """One tier's held-out result of a proposal: ``greedy meets it`` / ``greedy 1.5 points outside`` / undecided."""
    d, status = row.get(f"{tier} · distance"), row.get(f"{tier} · status")
    if status is None and d is not None:  # a proposals frame without per-tier status: read inside
        status = "inside" if row.get(f"{tier} · inside") else "outside"
    if d is None or status is None:
        return f"{tier} not replayed"
    if status == "inside":
        return f"{tier} meets it"
    if status == "undecided":  # its distance on a handful of games says nothing: not quoted
        return f"{tier} undecided (too few held-out games to tell)"
    return f"{tier} {d:.1f} points outside"


def _distances(row: dict[str, Any], tiers: Sequence[str]) -> str:
    return ", ".join(_tier_word(row, t) for t in tiers)


def _effects(result: Any, proposal: int, tiers: Sequence[str]) -> str:
    """What a proposal does at each tier on held-out seeds: its most-moved targeted item, before → after.

    The item is named once when every tier's most-moved item is the same one; a tier whose held-out
    games are a small sample (:data:`SMALL_SAMPLE` of the most any tier played: a search tier's few)
    is said to be too few to tell, not quoted.
    """
    v = getattr(result, "verification", None)
    need = {"proposal", "tier", "item_title", "metric_title", "before_score", "after_score", "after_score_low",
            "after_score_high", "after_n"}
    if v is None or not isinstance(v, pl.DataFrame) or not need <= set(v.columns):
        return ""
    moved: dict[str, dict[str, Any]] = {}
    for tier in tiers:
        rows = v.filter((pl.col("proposal") == proposal) & (pl.col("tier") == tier)
                        & pl.col("after_score").is_not_null() & pl.col("before_score").is_not_null())
        if rows.height:
            moved[tier] = rows.sort((pl.col("after_score") - pl.col("before_score")).abs(), descending=True).row(
                0, named=True)
    if not moved:
        return ""
    most = max(int(r["after_n"]) for r in moved.values())
    sized = {t: r for t, r in moved.items() if int(r["after_n"]) >= SMALL_SAMPLE * most}
    items = {(r["metric_title"], r["item_title"]) for r in sized.values()}
    one = len(items) == 1

    def what(r: dict[str, Any]) -> str:
        return f"{r['metric_title'].lower()} on {r['item_title']}"

    parts = []
    for tier, r in moved.items():
        if tier not in sized:
            parts.append(f"{tier}: {int(r['after_n']):,} held-out game{'s' if int(r['after_n']) != 1 else ''}, too "
                         "few to tell")
            continue
        after = number_text(r["after_score"], r["after_score_low"], r["after_score_high"])
        change = f"{_pct(r['before_score'])} % → {after} (n {int(r['after_n']):,})"
        parts.append(f"{tier} {change}" if one else f"at {tier}, {what(r)} {change}")
    head = (f"What it does on held-out seeds to {what(next(iter(sized.values())))} (the targeted item it moves most): "
            if one else "What it does on held-out seeds (the targeted item it moves most): ")
    return head + "; ".join(parts) + "."


def rebalance_changes(rep: Any, result: Any, anchor: str = "rebalance_proposals") -> list[str]:
    """Add "What to change" from a rebalance's proposals; return the sentences added.

    ``result`` has ``proposals`` (one row per proposal: ``edits``, ``n_edits``, ``size``, per tier
    ``<tier> · distance`` and ``<tier> · inside`` on held-out seeds, ``holds`` at every tier,
    ``verdict``, ``same_game``: the cells it makes one game) and ``tiers``.  The smallest proposal that
    holds at every tier is the change; when none holds the best (least worst-tier distance, then total)
    is given as partial, with its per-tier distances; a change that makes cells of the target one game
    says so.  Nothing is added for ``None`` (a game without targets).
    """
    if result is None:
        return []
    tiers = list(getattr(result, "tiers", ()) or ())
    p = getattr(result, "proposals", None)
    said: list[str] = []
    if getattr(result, "no_edits_needed", False):
        said.append(f"Nothing: the balance target is already met at every tier ({', '.join(tiers)}) on held-out seeds.")
    elif p is None or p.height == 0:
        said.append("No proposal was found: the short search tried no edit that moves the game toward its target; "
                    "run the full search (`workbench rebalance`).")
    else:
        rows = p.to_dicts()
        for r in rows:
            ds = [r.get(f"{t} · distance") for t in tiers]
            r["_worst"] = max((d for d in ds if d is not None), default=math.inf)
            r["_total"] = sum(d for d in ds if d is not None) if any(d is not None for d in ds) else math.inf
        holding = [r for r in rows if r.get("holds")]
        if holding:
            best = min(holding, key=lambda r: (r.get("n_edits") or 0, r.get("size") or 0, r["proposal"]))
            said.append(f"{best['edits']}: the smallest edit that meets the balance target at every tier on "
                        f"held-out seeds ({_distances(best, tiers)}).")
        else:
            best = min(rows, key=lambda r: (r["_worst"], r["_total"], r.get("n_edits") or 0, r["proposal"]))
            met = [t for t in tiers if _tier_word(best, t).endswith(" meets it")]
            partial = best.get("verdict") or (f"meets the target only at {', '.join(met)}" if met else
                                               "meets the target at no tier")
            said.append(f"No proposal meets the balance target at every tier; the best, {best['edits']}, is partial: "
                        f"it {partial.removeprefix('it ')} ({_distances(best, tiers)}, held-out seeds).")
        if best.get("same_game"):  # the variants it balances are no longer variants: the designer decides
            said.append(f"Note that it makes cells of the target the same game: {best['same_game']}.")
        effects = _effects(result, best["proposal"], tiers)
        if effects:
            said.append(effects)
    if getattr(result, "stopped", False):
        said.append("The search was stopped before its end: these are the proposals found so far.")
    known = rep.anchors() if hasattr(rep, "anchors") else {}
    for i, sentence in enumerate(said):  # linked to the proposals table when the report has it
        rep.change(sentence, weight=float(len(said) - i), anchor=anchor if anchor in known else "")
    return said


# -- the summary and its renderings --------------------------------------------------------------------------
def summary_of(rep: Any, anchors: dict[str, tuple[str, str]] | None = None) -> dict[str, Any]:
    """The report's summary: findings heaviest first (at most ten), the changes, and what built it.

    ``anchors`` maps an anchor name to ``(href, label)`` (``#table-x`` and the evidence's title).
    """
    from workbench.core.sim.store import package_version

    anchors = anchors or {}

    def linked(item: dict[str, Any]) -> dict[str, Any]:
        href, label = anchors.get(item["anchor"], ("", ""))
        return {**item, "href": href, "evidence": label}

    findings = _distinct(sorted(rep.findings, key=lambda f: -f["weight"]))[:MAX_FINDINGS]
    changes = _distinct(sorted(rep.changes, key=lambda f: -f["weight"]))[:MAX_CHANGES]
    meta = rep.meta
    rules = meta.get("rules_version")
    return {"format": FORMAT, "title": rep.title, "rules_version": rules,
            "workbench_version": meta.get("workbench_version", package_version()),
            "quick": bool(meta.get("quick") or meta.get("settings") == "quick"),
            "findings": [linked(f) for f in findings], "changes": [linked(c) for c in changes]}


def _distinct(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each sentence once (the heaviest kept): two sections stating one verdict say it once in the summary."""
    seen: set[str] = set()
    out = []
    for item in items:
        key = " ".join(item["sentence"].split()).casefold()
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _md_line(item: dict[str, Any], base: str) -> str:
    link = f" [see “{item['evidence'] or item['anchor']}”]({base}{item['href']})" if item.get("href") else ""
    return f"- {item['sentence']}{link}"


def summary_markdown(summary: dict[str, Any], base: str = "", level: int = 2) -> list[str]:
    """The two summary sections as Markdown lines; links go to ``base`` + ``#anchor`` (``index.md`` from beside it)."""
    h = "#" * level
    lines = [f"{h} {FINDS}", ""]
    lines += [_md_line(f, base) for f in summary["findings"]] or ["- This report states no verdicts."]
    lines.append("")
    if summary["changes"]:
        lines += [f"{h} {TO_CHANGE}", ""] + [_md_line(c, base) for c in summary["changes"]] + [""]
    return lines


def _html_line(item: dict[str, Any]) -> str:
    e = html.escape
    status = f' data-status="{e(item["status"])}"' if item.get("status") else ""
    link = (f' <a href="{e(item["href"])}">see “{e(item["evidence"] or item["anchor"])}”</a>'
            if item.get("href") else "")
    return f"<li{status}>{e(item['sentence'])}{link}</li>"


def summary_html(summary: dict[str, Any]) -> str:
    """The two summary sections as HTML (ids ``what-this-report-finds`` and ``what-to-change``)."""
    parts = [f'<section id="what-this-report-finds" class="summary"><h2>{FINDS}</h2><ul>']
    parts += [_html_line(f) for f in summary["findings"]] or ["<li>This report states no verdicts.</li>"]
    parts.append("</ul></section>")
    if summary["changes"]:
        parts.append(f'<section id="what-to-change" class="summary"><h2>{TO_CHANGE}</h2><ul>')
        parts += [_html_line(c) for c in summary["changes"]]
        parts.append("</ul></section>")
    return "".join(parts)


def summary_file_markdown(summary: dict[str, Any]) -> str:
    """``summary.md``: the title, then the two sections, links into ``index.md``."""
    lines = [f"# {summary['title']}", ""] + summary_markdown(summary, base="index.md")
    return "\n".join(lines).rstrip() + "\n"


def read_summary(folder: str | Path) -> dict[str, Any] | None:
    """A report folder's ``summary.json``, or None when there is none (or it cannot be read)."""
    path = Path(folder) / "summary.json"
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    return data
