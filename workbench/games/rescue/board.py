"""The rescue board: flying creatures' shortest paths and the road-shortening rule (``docs/rules/rescue.md``).

A board is a grid of spaces read from a text map (``data/rescue/maps/README.md`` documents the
format): one character per space, ``.`` empty, ``#`` road, ``C`` city, ``S`` spawn, ``M`` monster,
``B`` boss (these five carry a road tile), ``T`` tower and ``H`` building (beside the road, no road
tile).  Positions are ``(row, col)`` counted from 0; error messages count file lines and characters
from 1, as an editor shows them.

**Flying** ("it chooses the shortest path to the city, regardless of roads. A creature cannot
enter a space that has no road tile. If several paths are possible, the attacked player chooses"):
a step goes to one of the 4 orthogonal neighbours that carries a road tile, whichever road that
tile belongs to.  Why 4 and not 8: the text's example has a Dragon moving 2 spaces with a choice
of path No. 1 or No. 2, and a second Dragon that "can only follow path No. 3, because it cannot
enter the empty space (No. 4)" — a detour around an empty corner.  With diagonal steps the
corner would be cut in one step and neither two equal 2-step paths nor a forced detour would
arise; with orthogonal steps both examples read exactly.  Paths are counted exactly (BFS layers
and a count per space); enumeration is capped (:data:`PATH_CAP`, the result says when it was
cut).  The attacked player's choice is a policy: ``most_towers``/``fewest_towers`` maximise/
minimise the steps ending next to a tower (4-neighbourhood; every space entered counts, the city
included) and are exact whatever the cap — ties go to the first path in reading order (the path
whose sequence of positions sorts first); ``random`` is uniform over *all* shortest paths, from
one SplitMix64 draw of the seed unranked in that same order.

**Road shortening** ("remove the road tile that is closest to the opponent's city, but only if
there are no monsters and no bosses on that road space; and there are no isolated buildings
(that is, buildings not adjacent to a road tile) after that road tile is removed"): the road
tiles closest to the city are the road spaces orthogonally beside it — one per road end at the
city (:func:`road_ends`).  :func:`shorten_road` returns the new board or an :class:`Illegal`
reason.  Read literally, a building already isolated before makes every removal illegal.  The
workbench's own decisions: a spawn space is never removed (the text does not cover it), and the
road stays usable — how the physical road is joined up again is not in the text, so it is the
reading ``shortening`` (:data:`SHORTENING`): ``rejoin`` (the default) empties the removed space and
joins its other road neighbours to the city (``Board.joins``: the road is one tile shorter, a
creature there steps straight into the city); ``refuse`` makes a removal that would cut a spawn
off from the city illegal; ``gap`` leaves the space empty even when that cuts the road (the
workbench's reading before issue 21).

**Player counts** (:func:`towers_per_type`): 12 towers and upgrades of each type at 5 players,
14 at 6 (with "The Winx"); for 2–4 the text only says "similar to the base game setup", which it
does not contain, so the answer is ``None``.  Nothing on the board depends on the player count.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from workbench.core.errors import DataError, InputError
from workbench.core.rng import SplitMix64

MAPS_DIR = Path(__file__).resolve().parents[3] / "data" / "rescue" / "maps"
MAP_SUFFIX = ".map"
COMMENT = ";"
PATH_CAP = 1000
POLICIES = ("most_towers", "fewest_towers", "random")

# character → kind; the first five kinds carry a road tile
KINDS = {".": "empty", "#": "road", "C": "city", "S": "spawn", "M": "monster", "B": "boss", "T": "tower",
         "H": "building"}
ROAD_KINDS = frozenset({"road", "city", "spawn", "monster", "boss"})
ALLOWED = ", ".join(f"{c!r} {k}" for c, k in KINDS.items())
STEPS = ((-1, 0), (0, -1), (0, 1), (1, 0))  # orthogonal neighbours only (see the module docstring)

Pos = tuple[int, int]


# -- player counts ------------------------------------------------------------------------------------
TOWERS_PER_TYPE = {2: None, 3: None, 4: None, 5: 12, 6: 14}


def towers_per_type(players: int) -> int | None:
    """Towers (and upgrades) of each type in the supply; ``None`` for 2–4: the base game's count, not in the text."""
    if players not in TOWERS_PER_TYPE:
        raise InputError(f"players must be 2..6, got {players}")
    return TOWERS_PER_TYPE[players]


# -- the board ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Board:
    """An immutable board: ``rows`` are the map's lines, one character per space (see :data:`KINDS`)."""

    name: str
    rows: tuple[str, ...]
    joins: tuple[tuple[Pos, Pos], ...] = ()  # road spaces joined though not side by side (a re-joined road)

    @property
    def height(self) -> int:
        """Rows of spaces."""
        return len(self.rows)

    @property
    def width(self) -> int:
        """Spaces per row."""
        return len(self.rows[0])

    def kind(self, pos: Pos) -> str:
        """The kind of the space at ``pos`` (outside the board: ``empty``)."""
        r, c = pos
        if 0 <= r < self.height and 0 <= c < self.width:
            return KINDS[self.rows[r][c]]
        return "empty"

    def has_road(self, pos: Pos) -> bool:
        """Whether the space carries a road tile."""
        return self.kind(pos) in ROAD_KINDS

    def neighbours(self, pos: Pos) -> list[Pos]:
        """The orthogonal neighbours of ``pos`` on the board in reading order, then the spaces joined to it."""
        beside = [(pos[0] + dr, pos[1] + dc) for dr, dc in STEPS
                  if 0 <= pos[0] + dr < self.height and 0 <= pos[1] + dc < self.width]
        return beside + sorted(b if a == pos else a for a, b in self.joins if pos in (a, b))

    def positions(self, kind: str) -> list[Pos]:
        """Every space of ``kind``, in reading order."""
        return [(r, c) for r, row in enumerate(self.rows) for c, ch in enumerate(row) if KINDS[ch] == kind]

    @cached_property
    def city(self) -> Pos:
        """The city's space."""
        return self.positions("city")[0]

    @cached_property
    def spawns(self) -> tuple[Pos, ...]:
        """The spawn spaces in reading order (a spawn index counts in this order)."""
        return tuple(self.positions("spawn"))

    def with_space(self, pos: Pos, char: str) -> Board:
        """A new board with the space at ``pos`` replaced by ``char``."""
        row = self.rows[pos[0]]
        rows = (*self.rows[:pos[0]], row[:pos[1]] + char + row[pos[1] + 1:], *self.rows[pos[0] + 1:])
        return replace(self, rows=rows)


def parse_map(text: str, path: object = "<map>", name: str = "map") -> Board:
    """A validated board from map text; every problem is a :class:`DataError` naming file, row and column."""
    rows: list[str] = []
    lines: list[int] = []
    for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        line = line.rstrip(" \t\r\n")  # trailing spaces are not spaces of the map (an editor's leftovers)
        if not line.strip() or line.startswith(COMMENT):
            continue
        for col, ch in enumerate(line, 1):
            if ch not in KINDS:
                raise DataError(path, number, str(col), f"unknown character {ch!r}; allowed: {ALLOWED} "
                                f"(a line starting with {COMMENT!r} is a comment)")
        if rows and len(line) != len(rows[0]):
            raise DataError(path, number, str(min(len(line), len(rows[0])) + 1),
                            f"ragged row: {len(line)} spaces but the first map row (line {lines[0]}) has "
                            f"{len(rows[0])}; every row must have the same number of spaces")
        rows.append(line)
        lines.append(number)
    if not rows:
        raise DataError(path, None, None, f"no map rows; a map is one line per row of spaces, allowed: {ALLOWED}")
    _check_unique(rows, lines, path)
    return Board(name, tuple(rows))


def _check_unique(rows: list[str], lines: list[int], path: object) -> None:
    cities = [(lines[r], c + 1) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "C"]
    if not cities:
        raise DataError(path, None, None, "no city: exactly one 'C' is required")
    if len(cities) > 1:
        (r1, c1), (r2, c2) = cities[:2]
        raise DataError(path, r2, str(c2), f"a second city (the first is at line {r1}, character {c1}): "
                        "exactly one 'C' is allowed")
    if not any("S" in row for row in rows):
        raise DataError(path, None, None, "no spawn: at least one 'S' (a spawn on the road) is required")


def map_names() -> tuple[str, ...]:
    """The shipped maps' names (file names without ``.map``), sorted."""
    return tuple(sorted(p.stem for p in MAPS_DIR.glob(f"*{MAP_SUFFIX}")))


def load_map(name_or_path: str | Path) -> Board:
    """A shipped map by name (``meadow``), or a map file by path (anything with a ``/`` or a suffix, or a file).

    A UTF-8 byte-order mark and trailing spaces are accepted, as in the other data files.  An
    unknown name, a missing or unreadable file, or a bad map is one error naming what is wrong
    and what is allowed.
    """
    text_form = str(name_or_path).strip()
    path = Path(text_form).expanduser()
    shipped = MAPS_DIR / f"{text_form}{MAP_SUFFIX}"
    looks_like_path = isinstance(name_or_path, Path) or "/" in text_form or "\\" in text_form or path.suffix != ""
    if not looks_like_path and not path.is_file():
        if not text_form or not shipped.is_file():
            raise InputError(f"unknown map {text_form!r}; allowed: a shipped map ({', '.join(map_names())}) or the "
                             f"path to a map file (e.g. my_maps/castle{MAP_SUFFIX})")
        path = shipped
    elif not path.is_file():
        what = "is a folder" if path.is_dir() else "does not exist"
        raise InputError(f"map file {text_form} {what}; give a shipped map ({', '.join(map_names())}) or the path "
                         f"to a map file (one character per space, see data/rescue/maps/README.md)")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise DataError(path, None, None, "not UTF-8 text; save the map as plain UTF-8 text") from None
    except OSError as exc:
        raise DataError(path, None, None, f"cannot be read: {exc.strerror}") from None
    return parse_map(text, path, path.stem)


# -- flying -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Flight:
    """The shortest paths of a flying creature from ``spawn`` to the city.

    ``reachable`` is false when no path of road spaces joins them (then ``distance`` is ``None``,
    ``count`` 0 and ``paths`` empty).  ``count`` is exact; ``paths`` holds the first ``PATH_CAP``
    (or the given cap) in reading order, ``truncated`` saying whether some were left out.
    ``chosen`` is the path the policy picks (always exact, even when cut) and ``chosen_index`` its
    rank in reading order.
    """

    board: Board
    spawn: Pos
    policy: str
    reachable: bool
    distance: int | None
    count: int
    paths: tuple[tuple[Pos, ...], ...]
    truncated: bool
    chosen: tuple[Pos, ...] | None
    chosen_index: int | None


def distances_to_city(board: Board) -> dict[Pos, int]:
    """BFS steps from every road space to the city, moving only between orthogonal road spaces."""
    dist = {board.city: 0}
    queue = deque([board.city])
    while queue:
        pos = queue.popleft()
        for nxt in board.neighbours(pos):
            if nxt not in dist and board.has_road(nxt):
                dist[nxt] = dist[pos] + 1
                queue.append(nxt)
    return dist


def tower_adjacent(board: Board, pos: Pos) -> bool:
    """Whether a tower stands orthogonally next to ``pos``."""
    return any(board.kind(n) == "tower" for n in board.neighbours(pos))


class _Dag:
    """Shortest-path DAG towards the city: successors, path counts and best/worst tower steps per space."""

    def __init__(self, board: Board) -> None:
        self.board, self.dist = board, distances_to_city(board)
        self.count: dict[Pos, int] = {board.city: 1}
        self.most: dict[Pos, int] = {board.city: 0}
        self.fewest: dict[Pos, int] = {board.city: 0}
        for pos in sorted(self.dist, key=self.dist.get)[1:]:
            nxt = self.next(pos)
            self.count[pos] = sum(self.count[n] for n in nxt)
            self.most[pos] = max(self.most[n] + tower_adjacent(board, n) for n in nxt)
            self.fewest[pos] = min(self.fewest[n] + tower_adjacent(board, n) for n in nxt)

    def next(self, pos: Pos) -> list[Pos]:
        """Neighbours one step closer to the city, in reading order."""
        return [n for n in self.board.neighbours(pos) if self.dist.get(n) == self.dist[pos] - 1]

    def enumerate(self, start: Pos, cap: int) -> list[tuple[Pos, ...]]:
        """The first ``cap`` shortest paths from ``start`` in reading order (depth first)."""
        out: list[tuple[Pos, ...]] = []
        stack = [(start,)]
        while stack and len(out) < cap:
            path = stack.pop()
            if path[-1] == self.board.city:
                out.append(path)
                continue
            stack.extend(path + (n,) for n in reversed(self.next(path[-1])))
        return out

    def best(self, start: Pos, table: dict[Pos, int]) -> tuple[tuple[Pos, ...], int]:
        """The first path in reading order achieving ``table``'s value, and its rank."""
        path, rank = [start], 0
        while path[-1] != self.board.city:
            pos = path[-1]
            for n in self.next(pos):
                if table[n] + tower_adjacent(self.board, n) == table[pos]:
                    path.append(n)
                    break
                rank += self.count[n]
        return tuple(path), rank

    def unrank(self, start: Pos, rank: int) -> tuple[Pos, ...]:
        """The shortest path of rank ``rank`` in reading order."""
        path = [start]
        while path[-1] != self.board.city:
            for n in self.next(path[-1]):
                if rank < self.count[n]:
                    path.append(n)
                    break
                rank -= self.count[n]
        return tuple(path)


def uniform_below(rng: SplitMix64, n: int) -> int:
    """Unbiased integer in ``[0, n)`` for any ``n`` ≥ 1 (``below`` when it fits 32 bits, else rejection)."""
    if n <= 1 << 32:
        return rng.below(n)
    words = (n.bit_length() + 63) // 64
    limit = (1 << (64 * words)) - (1 << (64 * words)) % n
    while True:
        x = 0
        for _ in range(words):
            x = (x << 64) | rng.next_u64()
        if x < limit:
            return x % n


def fly(board: Board, spawn: int = 0, policy: str = "most_towers", seed: int = 0, cap: int = PATH_CAP) -> Flight:
    """Every shortest path from spawn number ``spawn`` to the city and the one ``policy`` picks."""
    if policy not in POLICIES:
        raise InputError(f"unknown policy {policy!r}; allowed: {', '.join(POLICIES)}")
    if not 0 <= spawn < len(board.spawns):
        raise InputError(f"map {board.name!r} has spawns 0..{len(board.spawns) - 1}, got spawn {spawn}")
    if cap < 1:
        raise InputError(f"the path cap must be at least 1, got {cap}")
    start = board.spawns[spawn]
    dag = _Dag(board)
    if start not in dag.dist:
        return Flight(board, start, policy, False, None, 0, (), False, None, None)
    paths = dag.enumerate(start, cap)
    if policy == "random":
        rank = uniform_below(SplitMix64(seed), dag.count[start])
        chosen = dag.unrank(start, rank)
    else:
        chosen, rank = dag.best(start, dag.most if policy == "most_towers" else dag.fewest)
    return Flight(board, start, policy, True, dag.dist[start], dag.count[start], tuple(paths),
                  dag.count[start] > len(paths), chosen, rank)


def tower_steps(board: Board, path: tuple[Pos, ...]) -> int:
    """Steps of ``path`` ending next to a tower (the start space is not a step)."""
    return sum(tower_adjacent(board, p) for p in path[1:])


# -- road shortening ----------------------------------------------------------------------------------
SHORTENING = ("rejoin", "refuse", "gap")  # readings of how the road goes on after its end tile is removed
@dataclass(frozen=True)
class Illegal:
    """Why a road tile may not be removed."""

    pos: Pos
    reason: str


def road_ends(board: Board) -> tuple[Pos, ...]:
    """The road spaces orthogonally beside the city — the road tiles closest to it — in reading order."""
    return tuple(n for n in board.neighbours(board.city) if board.has_road(n))


def removal_problem(board: Board, pos: Pos, policy: str = "rejoin") -> str | None:
    """Why the road tile at ``pos`` may not be removed, or ``None`` when it may.

    The rule's two conditions; under ``policy = "refuse"`` also a third: every spawn that reached the
    city before still reaches it after.
    """
    if policy not in SHORTENING:
        raise InputError(f"unknown shortening {policy!r}; allowed: {', '.join(SHORTENING)}")
    kind = board.kind(pos)
    if kind in ("monster", "boss"):
        return f"a {kind} stands on this road space"
    if kind == "spawn":
        return "it is a spawn space (the text does not cover it; the workbench keeps spawns)"
    if kind != "road":
        return f"no removable road tile here (the space is {kind})"
    after = board.with_space(pos, ".")
    isolated = [b for b in after.positions("building") if not any(after.has_road(n) for n in after.neighbours(b))]
    if isolated:
        where = ", ".join(f"({r}, {c})" for r, c in isolated)
        return f"the building at {where} would have no adjacent road tile"
    if policy == "refuse":
        cut = [p for p in cut_spawns(board, after) if p != pos]
        if cut:
            where = ", ".join(f"({r}, {c})" for r, c in cut)
            return f"the spawn at {where} would no longer reach the city by road"
    return None


def cut_spawns(before: Board, after: Board) -> list[Pos]:
    """Spawns that reach the city by road on ``before`` but not on ``after``."""
    was, now = distances_to_city(before), distances_to_city(after)
    return [p for p in before.spawns if p in was and p not in now]


def shorten_road(board: Board, end: int = 0, policy: str = "rejoin") -> Board | Illegal:
    """Remove the road tile of road end ``end`` (see :func:`road_ends`): the new board, or why not.

    ``policy`` (one of :data:`SHORTENING`): ``rejoin`` joins the removed tile's other road
    neighbours to the city (the road is one tile shorter and still joined); ``refuse`` refuses a
    removal that would cut a spawn off from the city; ``gap`` leaves the removed space empty
    (the road may then be cut).
    """
    ends = road_ends(board)
    if not 0 <= end < len(ends):
        have = f"road ends 0..{len(ends) - 1}" if ends else "no road end"
        raise InputError(f"map {board.name!r} has {have} beside its city, got end {end}")
    pos = ends[end]
    problem = removal_problem(board, pos, policy)
    if problem:
        return Illegal(pos, problem)
    after = board.with_space(pos, ".")
    if policy != "rejoin":
        return after
    city = board.city
    behind = [n for n in board.neighbours(pos) if n != city and board.has_road(n)]
    kept = tuple(j for j in board.joins if pos not in j)
    return replace(after, joins=kept + tuple((n, city) if n < city else (city, n) for n in behind
                                               if not _joined(kept, n, city)))


def _joined(joins: tuple[tuple[Pos, Pos], ...], a: Pos, b: Pos) -> bool:
    return (a, b) in joins or (b, a) in joins
