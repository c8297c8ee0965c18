"""The board studies (``STUDIES``): flying creatures' shortest paths and road shortening on shipped maps.

* ``flying``: every shortest path from a spawn to the city (length, steps next to a tower, the
  one the attacked player's policy picks), and the map with the paths drawn over it;
* ``roads``: each road end beside the city and why its tile may or may not be removed (under the
  reading ``shortening``), each spawn's distance to the city by road before and after, and the map
  with the candidates marked (a map is a shipped name or a path to a map file).

Both are exact (no simulation); ``board.py`` documents the move model and the rules read.  The
player count does not enter either (see :func:`workbench.games.rescue.board.towers_per_type`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from workbench.core.errors import InputError
from workbench.core.lazy import lazy
from workbench.core.model import GameModel, Param
from workbench.core.studies.study import SettingError, Study
from workbench.games.rescue import board as bd

alt = lazy("altair")  # imported when the first chart is drawn: a page that draws none never loads it

Progress = Callable[[int, int], None] | None
Stop = Callable[[], bool] | None
Tables = dict[str, pl.DataFrame]
KIND_COLOURS = {"empty": "#f4f4f4", "road": "#c8b48c", "city": "#4c78a8", "spawn": "#9467bd", "monster": "#e45756",
                "boss": "#8c1c13", "tower": "#54a24b", "building": "#b279a2"}
CHOSEN_COLOUR, OTHER_COLOUR = "#d62728", "#555555"


def spaces_table(board: bd.Board) -> pl.DataFrame:
    """One row per space: ``row``, ``col``, its map character and kind."""
    rows = [(r, c, ch, bd.KINDS[ch]) for r, line in enumerate(board.rows) for c, ch in enumerate(line)]
    return pl.DataFrame(rows, schema=["row", "col", "char", "kind"], orient="row")


INT64_MAX = (1 << 63) - 1  # the largest count a polars Int64 column holds


def _int64(n: int | None) -> int | None:
    """``n`` when an Int64 column can hold it, else None (the exact value goes in a text column)."""
    return n if n is None or -INT64_MAX <= n <= INT64_MAX else None


def _route(path: tuple[bd.Pos, ...]) -> str:
    return " → ".join(f"({r},{c})" for r, c in path)


# -- flying -------------------------------------------------------------------------------------------
def flying_tables(board: bd.Board, spawn: int, policy: str, seed: int = 0, cap: int = bd.PATH_CAP) -> Tables:
    """``summary`` (one row), ``paths`` (one row per listed path, the chosen one marked), ``steps``, ``spaces``.

    Path counts grow like binomials (a 67×67 open map has about 3.8e38 shortest paths), beyond any
    integer column: ``shortest_paths`` and ``chosen_rank`` are Int64 when they fit (else null), and
    ``shortest_paths_exact`` / ``chosen_rank_exact`` always hold the exact number as text.
    """
    flight = bd.fly(board, spawn, policy, seed, cap)
    listed = list(enumerate(flight.paths))
    if flight.chosen is not None and flight.chosen_index >= len(listed):
        listed.append((flight.chosen_index, flight.chosen))  # cut off by the cap: still shown
    paths = pl.DataFrame({
        "rank": [_int64(i) for i, _ in listed], "length": [len(p) - 1 for _, p in listed],
        "tower_steps": [bd.tower_steps(board, p) for _, p in listed],
        "chosen": [i == flight.chosen_index for i, _ in listed], "route": [_route(p) for _, p in listed],
    }, schema={"rank": pl.Int64, "length": pl.Int64, "tower_steps": pl.Int64, "chosen": pl.Boolean,
               "route": pl.String})
    steps = pl.DataFrame([(_int64(i), s, r, c, i == flight.chosen_index)
                          for i, p in listed for s, (r, c) in enumerate(p)],
                         schema={"rank": pl.Int64, "step": pl.Int64, "row": pl.Int64, "col": pl.Int64,
                                 "chosen": pl.Boolean}, orient="row")
    note = ("the city cannot be reached from this spawn through road spaces" if not flight.reachable else
            f"{flight.count} shortest paths; listed the first {len(flight.paths)} in reading order"
            if flight.truncated else f"{flight.count} shortest paths, all listed")
    summary = pl.DataFrame([{
        "map": board.name, "spawn": spawn, "spawn_row": flight.spawn[0], "spawn_col": flight.spawn[1],
        "policy": policy, "seed": seed, "reachable": flight.reachable, "distance": flight.distance,
        "shortest_paths": _int64(flight.count), "shortest_paths_exact": str(flight.count),
        "listed": len(flight.paths), "truncated": flight.truncated,
        "chosen_rank": _int64(flight.chosen_index),
        "chosen_rank_exact": None if flight.chosen_index is None else str(flight.chosen_index),
        "chosen_tower_steps": None if flight.chosen is None else bd.tower_steps(board, flight.chosen), "note": note,
    }], schema_overrides={"shortest_paths": pl.Int64, "chosen_rank": pl.Int64, "chosen_rank_exact": pl.String})
    return {"summary": summary, "paths": paths, "steps": steps, "spaces": spaces_table(board)}


def map_chart(spaces: pl.DataFrame, title: str = "") -> alt.Chart:
    """The map: one rect per space coloured by kind (row 0 at the top)."""
    data = spaces.with_columns(col2=pl.col("col") + 1, row2=pl.col("row") + 1)
    height, width = int(spaces["row"].max()) + 1, int(spaces["col"].max()) + 1
    return alt.Chart(data).mark_rect(stroke="white").encode(
        x=alt.X("col:Q", title=None, scale=alt.Scale(domain=[0, width]), axis=None), x2="col2:Q",
        y=alt.Y("row:Q", title=None, scale=alt.Scale(domain=[0, height], reverse=True), axis=None), y2="row2:Q",
        color=alt.Color("kind:N", scale=alt.Scale(domain=list(KIND_COLOURS), range=list(KIND_COLOURS.values())),
                        title="space"),
        tooltip=["row:Q", "col:Q", "kind:N"],
    ).properties(width=28 * width, height=28 * height, title=title)


def _centre(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(x=pl.col("col") + 0.5, y=pl.col("row") + 0.5)


def flying_chart(tables: Tables) -> alt.LayerChart:
    """The map with the other shortest paths (thin, grey) and the chosen one (thick, red) drawn over it."""
    s = tables["summary"].row(0, named=True)
    title = (f"{s['map']}: spawn {s['spawn']} — {s['note']}; chosen: rank {s['chosen_rank_exact']} ({s['policy']})"
             if s["reachable"] else f"{s['map']}: spawn {s['spawn']} — {s['note']}")
    steps = _centre(tables["steps"])
    layers = [map_chart(tables["spaces"], title)]
    for chosen, colour, size in ((False, OTHER_COLOUR, 1.5), (True, CHOSEN_COLOUR, 4)):
        part = steps.filter(pl.col("chosen") == chosen)
        layers.append(alt.Chart(part).mark_line(color=colour, strokeWidth=size, opacity=0.8 if chosen else 0.4)
                      .encode(x="x:Q", y="y:Q", detail="rank:N", order="step:Q",
                              tooltip=["rank:Q", "step:Q", "row:Q", "col:Q"]))
    return alt.layer(*layers)


def _flying(model: GameModel | None, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
            on_progress: Progress, should_stop: Stop) -> Tables:
    return flying_tables(bd.load_map(settings["map"]), settings["spawn"], settings["policy"], seed, settings["cap"])


# -- roads --------------------------------------------------------------------------------------------
ROAD_AFTER = {"rejoin": "the road is re-joined: the tiles behind it now lead straight into the city",
              "refuse": "every spawn still reaches the city by road",
              "gap": "the space is left empty (the road may be cut)"}


def roads_tables(board: bd.Board, end: int = 0, policy: str = "rejoin") -> Tables:
    """``candidates`` (each road end beside the city: removable or why not; the chosen end marked) and ``spaces``.

    Each candidate also says how far each spawn is from the city by road before and after its
    removal under ``policy`` (``cut`` when the spawn no longer reaches it, ``—`` when it never did).
    """
    ends = bd.road_ends(board)
    if not 0 <= end < max(1, len(ends)):
        raise InputError(f"map {board.name!r} has road ends 0..{len(ends) - 1} beside its city, got end {end}")
    before = bd.distances_to_city(board)
    rows = []
    for i, pos in enumerate(ends):
        problem = bd.removal_problem(board, pos, policy)
        after = bd.shorten_road(board, i, policy)
        now = bd.distances_to_city(after) if isinstance(after, bd.Board) else before
        rows.append({"end": i, "row": pos[0], "col": pos[1], "kind": board.kind(pos), "removable": problem is None,
                     "why": problem or "no monster or boss on it and every building keeps an adjacent road tile; "
                     + ROAD_AFTER[policy],
                     "spawn_distances": "; ".join(f"spawn {k}: {_steps(before.get(s))} → {_steps(now.get(s))}"
                                                  for k, s in enumerate(board.spawns)),
                     "chosen": i == end})
    schema = {"end": pl.Int64, "row": pl.Int64, "col": pl.Int64, "kind": pl.String, "removable": pl.Boolean,
              "why": pl.String, "spawn_distances": pl.String, "chosen": pl.Boolean}
    candidates = pl.DataFrame(rows, schema=schema)
    after = bd.shorten_road(board, end, policy) if ends else None
    spaces = spaces_table(after if isinstance(after, bd.Board) else board)
    return {"candidates": candidates, "spaces": spaces}


def _steps(distance: int | None) -> str:
    return "cut" if distance is None else f"{distance} steps"


def roads_chart(tables: Tables) -> alt.LayerChart:
    """The map after the chosen end's removal (when legal), each candidate marked ✓ removable or ✗ not."""
    cand = _centre(tables["candidates"]).with_columns(
        mark=pl.when(pl.col("removable")).then(pl.lit("✓")).otherwise(pl.lit("✗")))
    chosen = cand.filter(pl.col("chosen"))
    title = ("no road end beside the city" if chosen.is_empty() else
             f"road end {chosen['end'][0]} at ({chosen['row'][0]},{chosen['col'][0]}): "
             + ("removed" if chosen["removable"][0] else f"not removable — {chosen['why'][0]}"))
    marks = alt.Chart(cand).mark_text(fontSize=18, fontWeight="bold").encode(
        x="x:Q", y="y:Q", text="mark:N",
        color=alt.Color("removable:N", scale=alt.Scale(domain=[True, False], range=["#2ca02c", "#d62728"])),
        tooltip=["end:Q", "row:Q", "col:Q", "kind:N", "removable:N", "why:N"])
    return alt.layer(map_chart(tables["spaces"], title), marks)


def _roads(model: GameModel | None, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
           on_progress: Progress, should_stop: Stop) -> Tables:
    return roads_tables(bd.load_map(settings["map"]), settings["end"], settings["shortening"])


def _board(settings: dict[str, Any]) -> bd.Board:
    """The map a board study reads; a map that cannot be read is refused in the map field."""
    try:
        return bd.load_map(settings["map"])
    except InputError as exc:
        raise SettingError("map", str(exc)) from None


def _flying_check(model: GameModel | None, settings: dict[str, Any], params: dict[str, Any]) -> None:
    spawns = len(_board(settings).spawns)
    if not 0 <= settings["spawn"] < spawns:
        raise SettingError("spawn", f"map {settings['map']!r} has spawns 0..{spawns - 1}; allowed: a spawn from 0 "
                                    f"to {spawns - 1}, got {settings['spawn']}")


def _roads_check(model: GameModel | None, settings: dict[str, Any], params: dict[str, Any]) -> None:
    ends = len(bd.road_ends(_board(settings)))
    if not 0 <= settings["end"] < max(1, ends):
        raise SettingError("end", f"map {settings['map']!r} has road ends 0..{ends - 1} beside its city; allowed: "
                                  f"an end from 0 to {ends - 1}, got {settings['end']}")


_MAPS = bd.map_names()
_MAP = Param("map", "meadow" if "meadow" in _MAPS else _MAPS[0], str,
             f"a shipped map ({', '.join(_MAPS)}) or the path to a map file (data/rescue/maps/README.md)")
STUDIES = (
    Study("flying", "Flying creatures: every shortest path to the city and the attacked player's choice", _flying, (
        _MAP,
        Param("spawn", 0, int, "spawn number (reading order, from 0)", 0, 99),
        Param("policy", "most_towers", str, "how the attacked player chooses among equal paths",
              choices=bd.POLICIES),
        Param("cap", bd.PATH_CAP, int, "paths listed at most (counts and the choice stay exact)", 1, 100_000),
    ), lambda t: {"map": flying_chart(t)}, "Orthogonal steps through road spaces only; paths counted exactly by "
       "BFS, listed in reading order up to the cap; random picks uniformly from the study's seed.",
          game_params=False, check=_flying_check),
    Study("roads", "Road shortening: which road end beside the city may be removed, and why", _roads, (
        _MAP,
        Param("end", 0, int, "the road end to remove (road spaces beside the city, reading order, from 0)", 0, 3),
        Param("shortening", "rejoin", str, "how the road goes on: re-joined to the city, a removal that would cut "
              "a spawn off refused, or a gap left (the road may be cut)", choices=bd.SHORTENING),
    ), lambda t: {"map": roads_chart(t)}, "A tile may go only with no monster or boss on it and no building left "
       "without an adjacent road tile; the road then stays usable (re-joined, or the removal refused).",
          game_params=False, check=_roads_check),
)
