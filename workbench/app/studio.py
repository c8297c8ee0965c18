"""The studio: every registered game's studies, card editor, lessons and earlier runs in one page.

The page is built only from the registry and the declarations (``core/model/``, ``core/studies/study.py``,
``core/design/cardtable.py``, ``core/studies/lessons.py``): a game registered through the protocol — a package in
``workbench/games/`` or a module named in ``WORKBENCH_GAMES`` — appears with its forms and reports
and no line of the app changes.  Five tabs: **Studies** (a game opens on what its report finds and
what to change: ``ui/summary.py``, then its studies), **Cards** (games with an editable card
table), **Teaching** (games with lessons) — the panels of ``workbench/ui``, which the notebooks use
too — **Runs** (the workspace's kept runs and the sweep stores) and **Rebalance** (games that declare
balance targets: ``app/rebalance_page.py``; a proposal is applied to the Cards tab's table).  A tab is
built when first shown and again when the game changes.  The URL's query chooses where the page opens:
``?game=dietower&page=teaching&lesson=streak`` (``page``: studies, cards, teaching, runs, rebalance;
``study`` and ``lesson`` name one; any other key sets the lesson's setting of that name, e.g.
``&games=300`` — checked like a typed value, so a wrong one is refused in its field).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import threading
import urllib.parse
from typing import Any

from workbench.app.rebalance_page import URL_FIELDS, RebalancePage
from workbench.app.runs_page import RunsPage
from workbench.app.workspace import Workspace
from workbench.core.design.cardtable import card_table
from workbench.core.model import game_names, get_game
from workbench.core.studies.lessons import lessons
from workbench.ui.cards import CardEditor
from workbench.ui.common import require_widgets
from workbench.ui.lessons import LessonPanel
from workbench.ui.rebalance import declares_targets
from workbench.ui.render import CSS, error_message, message
from workbench.ui.studies import StudyPanel
from workbench.ui.summary import SummaryPanel

__all__ = ["PAGES", "PING", "Studio", "preload", "resend_state", "wait_for_request"]

PING = "wb-ping"  # the hidden button the page clicks once its widgets are drawn: the kernel then re-sends their state
PAGES = ("studies", "cards", "teaching", "runs", "rebalance")
TITLES = {"studies": "Studies", "cards": "Cards", "teaching": "Teaching", "runs": "Runs", "rebalance": "Rebalance"}
log = logging.getLogger("workbench.app")
QUERY_TIMEOUT = 5.0  # seconds to reach the server's query address (Voilà's own helper waits as long)


def _log_to_server() -> None:
    """Unexpected errors go to the server's console (the kernel's own stderr), never into the page.

    A thread's uncaught error too: Python prints it to ``sys.stderr``, which in a kernel is the page's output
    (hidden in the studio), so a background job that died said nothing anywhere.
    """
    for logger in (log, logging.getLogger("workbench.ui")):
        if not any(getattr(h, "studio", False) for h in logger.handlers):
            handler = logging.StreamHandler(sys.__stderr__)
            handler.studio = True  # type: ignore[attr-defined]
            handler.setFormatter(logging.Formatter("[studio] %(levelname)s %(message)s"))
            logger.addHandler(handler)
            logger.propagate = False
    if threading.excepthook is threading.__excepthook__:  # Python's own (a test runner's catcher is left alone)
        threading.excepthook = _thread_failed


def _thread_failed(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "?"
    log.error("uncaught error in thread %s", name, exc_info=(args.exc_type, args.exc_value, args.exc_traceback))


def _warm_up() -> None:
    """Start vl-convert's engine in the background, so the first chart is drawn as fast as the others."""
    try:
        import vl_convert

        vl_convert.vegalite_to_svg({"mark": "point", "data": {"values": [{"x": 1}]},
                                    "encoding": {"x": {"field": "x", "type": "quantitative"}}})
    except Exception:  # noqa: BLE001 - only a warm-up
        log.debug("vl-convert warm-up failed", exc_info=True)


_WARMING: list[threading.Thread] = []


def _start_warm_up() -> None:
    """Warm vl-convert up once per process, in a thread the interpreter waits for at exit.

    Not a daemon: vl-convert's engine runs without the GIL, and a daemon thread still inside it
    when the interpreter finalizes would crash the process on its way back.
    """
    if not _WARMING:
        _WARMING.append(threading.Thread(target=_warm_up, name="studio-warm-up"))
        _WARMING[0].start()


def preload() -> None:
    """Every registered game's declarations imported ahead of a page (and vl-convert started).

    A pre-heated kernel (Voilà's pool) does this while it waits for its page, so the page is built
    at once.  Compiled engines are not run here: on a fresh machine that would compile them, and a
    page asked for meanwhile would wait for it.
    """
    from workbench.core.studies.study import studies

    for name in game_names():
        try:
            model = get_game(name)
            for declared in (studies, card_table, lessons):
                declared(model)
        except Exception:  # noqa: BLE001 - a broken game says so on its page
            log.warning("%s could not be preloaded", name, exc_info=True)
    _warm_up()


def wait_for_request() -> None:
    """In a pre-heated kernel, wait here until a page asks for it (its URL's query is then in the environment).

    Voilà starts kernels before any page asks for one; when it gives one to a page, its server sends the page's
    request (a JSON object of environment variables, ``QUERY_STRING`` among them) over a websocket at
    ``<protocol>://<ip>:<port><base>voila/query/<kernel id>``, which Voilà names in the kernel's environment.
    Voilà's own helper (``voila.utils.wait_for_request``) does the same, but importing it loads Voilà's whole
    server package (jupyter_server, jupyterlab_server, …: 3.2 s of CPU in a bare process, about 0.8 s more in a
    kernel that imported the studio; measured over the 30 kernels of the studio's browser tests, 156 → 133 CPU-s)
    for a dozen lines of client.  This is the client alone, on the ``websockets`` package Voilà itself uses for it.
    A kernel Voilà started for a page (not pre-heated: ``VOILA_PREHEAT`` is not ``"True"``) has its query already
    and asks nothing.  When the server cannot be asked, or answers with something else than a request, the
    server's log says so and the page opens at its defaults.
    """
    env = os.environ
    if env.get("VOILA_PREHEAT", "False") != "True":
        return
    base = env.get("VOILA_WS_BASE_URL", env.get("VOILA_SERVER_URL", "/"))
    url = (f"{env.get('VOILA_WS_PROTOCOL', 'ws')}://{env.get('VOILA_APP_IP', '127.0.0.1')}:"
           f"{env.get('VOILA_APP_PORT', '8866')}{base}voila/query/{env.get('VOILA_KERNEL_ID', '')}")
    found: list[Any] = []

    async def receive() -> None:
        import websockets

        async with websockets.connect(url, open_timeout=QUERY_TIMEOUT) as connection:
            found.append(await connection.recv())

    def ask() -> None:  # its own thread and event loop: the kernel's loop is running the cell that waits here
        try:
            asyncio.run(receive())
        except Exception as exc:  # noqa: BLE001 - refused, timed out, closed: said in the log below
            found.append(exc)

    thread = threading.Thread(target=ask, name="page request", daemon=True)
    thread.start()
    thread.join()
    reply = found[0] if found else None
    try:
        request = json.loads(reply) if isinstance(reply, (str, bytes)) else None
    except ValueError:
        request = None
    if not isinstance(request, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in request.items()):
        why = reply if isinstance(reply, BaseException) else f"not a request: {str(reply)[:80]!r}"
        log.warning("studio: the page's request was not received from %s (%s); the page opens at its defaults",
                    url, why)
        return
    env.update(request)


def resend_state() -> int:
    """Send every widget's whole state to the page again; how many widgets were sent.

    The page asks for it once its widgets are drawn (it clicks the hidden :data:`PING` button).  Why:
    the page loads its widgets from a snapshot the kernel takes when the page connects, and a value a
    background thread sets while that snapshot is taken, or before the page has made the widget it
    belongs to, reaches the page before the widget exists there and is dropped — a lesson's status
    would then say "working it out again…" forever.  After this the page holds the kernel's values,
    and every later change reaches a widget that exists.
    """
    from ipywidgets.widgets.widget import _instances

    sent = 0
    for widget in list(_instances.values()):  # a copy: a background run may make widgets meanwhile
        try:
            widget.send_state()
            sent += 1
        except Exception:  # noqa: BLE001 - a widget closed meanwhile has nothing to send
            log.debug("widget %s not re-sent", getattr(widget, "model_id", "?"), exc_info=True)
    return sent


class Studio:
    """The whole page: a game picker over the Studies, Cards, Teaching and Runs tabs."""

    def __init__(self, workspace: Workspace | None = None, game: str | None = None, page: str = "studies",
                 study: str | None = None, lesson: str | None = None, values: dict[str, str] | None = None) -> None:
        w = require_widgets()
        _log_to_server()
        _start_warm_up()
        self.workspace = workspace or Workspace.from_environment()
        names = game_names()
        self.wanted = {"study": study, "lesson": lesson}
        self.values = dict(values or {})  # the lesson's settings the URL gives
        labels = [(self._game_label(n), n) for n in names]
        longest = max((len(label) for label, _ in labels), default=20)  # full titles: never cut off
        self.game = w.Dropdown(options=labels, value=game if game in names else names[0], description="game",
                               tooltip="every registered game",
                               layout=w.Layout(width=f"{max(420, 8 * longest + 110)}px", max_width="100%"))
        self.game.add_class("wb-game-picker")
        self.note = w.HTML("<span class='wb-more'>every registered game; hover a field for its help</span>")
        boxes = [w.VBox() for _ in PAGES]
        for box, name in zip(boxes, PAGES, strict=True):
            box.add_class(f"wb-page-{name}")
        self.tabs = w.Tab(children=boxes)
        self.tabs.titles = tuple(TITLES[p] for p in PAGES)
        self.tabs.add_class("wb-tabs")
        self.pages: dict[str, Any] = {}
        self._built: dict[str, str] = {}  # page -> game it was built for
        self.tabs.selected_index = PAGES.index(page) if page in PAGES else 0
        self.tabs.observe(lambda _: self._show(), names="selected_index")
        self.game.observe(lambda _: self._show(), names="value")
        title = w.HTML(CSS + "<h2 class='wb-title'>Tower games studio</h2>")
        # the page clicks this hidden button once its widgets are drawn (the template's script): every widget's
        # state is then sent again, so a change made meanwhile by a background run is never lost (see resend_state)
        self.ping = w.Button(description="resend", layout=w.Layout(display="none"))
        self.ping.add_class(PING)
        self.ping.on_click(lambda _: resend_state())
        self.widget = w.VBox([self.ping, title, w.HBox([self.game, self.note]), self.tabs])
        self.widget.add_class("wb-studio")
        self._show()

    @classmethod
    def from_query(cls, query: str | None = None) -> Studio:
        """The studio as the page's URL asks (``QUERY_STRING``, which the server passes to the kernel)."""
        args = urllib.parse.parse_qs(query if query is not None else os.environ.get("QUERY_STRING", ""))

        def one(name: str) -> str | None:
            return args.get(name, [None])[0]

        values = {k: v[0] for k, v in args.items() if k not in ("game", "page", "study", "lesson")}
        return cls(game=one("game"), page=one("page") or "studies", study=one("study"), lesson=one("lesson"),
                   values=values)

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    @staticmethod
    def _game_label(name: str) -> str:
        try:
            model = get_game(name)
        except Exception:  # noqa: BLE001 - a broken game is still listed; choosing it says what is wrong
            return f"{name} (cannot be loaded)"
        marks = [m for m, on in (("cards", _has(card_table, model)), ("teaching", _has(lessons, model)),
                                 ("rebalance", _has(declares_targets, model))) if on]
        return f"{model.title} ({name})" + (f" · {', '.join(marks)}" if marks else "")

    @property
    def page(self) -> str:
        """The page shown."""
        return PAGES[self.tabs.selected_index or 0]

    def _show(self) -> None:
        """Build the shown tab for the chosen game (once per game)."""
        w = require_widgets()
        page, game = self.page, self.game.value
        if self._built.get(page) == game or (page == "runs" and "runs" in self._built):
            if page == "runs":
                self.pages["runs"].follow(game)  # the Runs tab follows the game picker
                self._built["runs"] = game
            return
        box = self.tabs.children[PAGES.index(page)]
        box.children = [w.HTML(message(f"loading {TITLES[page].lower()} of {game}…", "info"))]
        try:
            if page == "studies":
                built = StudyPanel(game, self.wanted.pop("study", None), workspace=self.workspace)
            elif page == "cards":
                built = CardEditor(game, self.workspace)
            elif page == "teaching":
                wanted = self.wanted.pop("lesson", None)
                chosen = {s.name: s for s in lessons(game)}.get(wanted) or next(iter(lessons(game)), None)
                known = {p.name for p in chosen.settings} if chosen is not None else set()
                values = {k: v for k, v in self.values.items() if k in known | {"guess"}}  # a guess in the link
                self.values = {}
                built = LessonPanel(game, wanted, values)
            elif page == "rebalance":
                if "rebalance" in self.pages:
                    self.pages["rebalance"].close()  # the other game's search stops (its trials stay stored)
                values = {k: v for k, v in self.values.items() if k in URL_FIELDS}
                self.values = {k: v for k, v in self.values.items() if k not in URL_FIELDS}
                built = RebalancePage(self.workspace, game, values, self._cards_page)
            else:
                built = RunsPage(self.workspace, game)
        except Exception as exc:  # noqa: BLE001 - a game that cannot be shown says why; the others still work
            box.children = [w.HTML(message(f"{game}: {error_message(exc)}", "error"))]
            self._built.pop(page, None)
            return
        self.pages[page] = built
        self._built[page] = game
        box.children = [built.widget]
        if page == "studies":  # a game opens on what its report finds and what to change, then its studies
            box.children = [self._summary(game), built.widget]

    def _summary(self, game: str) -> Any:
        """The game's summary panel (``ui/summary.py``), or a line saying why it cannot be shown."""
        w = require_widgets()
        try:
            self.pages["summary"] = SummaryPanel(game)
        except Exception as exc:  # noqa: BLE001 - the studies below still work
            return w.HTML(message(f"{game}: the report's summary cannot be shown: {error_message(exc)}", "error"))
        return self.pages["summary"].widget

    def _cards_page(self) -> Any:
        """The Cards tab's editor of the chosen game, shown (built when needed): where a proposal is applied."""
        self.tabs.selected_index = PAGES.index("cards")
        self._show()
        return self.pages.get("cards") if self._built.get("cards") == self.game.value else None


def _has(find: Any, model: Any) -> bool:
    try:
        return bool(find(model))
    except Exception:  # noqa: BLE001 - a broken declaration shows on its page
        return False
