"""The studio's Rebalance tab: ``workbench rebalance`` as a page, its proposals applied to the Cards page's table.

For a game that declares ``targets`` (``core/design/rebalance.py``) the page is the rebalance panel of
``workbench/ui/rebalance.py``; each run's folder (``search.jsonl``, ``proposals/``, the tables as CSV)
goes under the workspace's ``rebalance/<game>/``, never over shipped data, and the proposals' CSVs
are served as downloads like the other runs' files.  **Apply** puts a proposal into the Cards page's
table (``cards_page()`` builds or finds it; the studio then shows that tab), where the ordinary
what-if plays it against the unchanged cards on the same seeds.  A game without targets gets one
line saying so.  :meth:`RebalancePage.close` stops a running search (its trials stay in its store).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from workbench.app.workspace import Workspace
from workbench.core.errors import InputError
from workbench.core.model import get_game
from workbench.ui.common import require_widgets
from workbench.ui.rebalance import Proposal, RebalancePanel, apply_to_editor, declares_targets
from workbench.ui.render import message

__all__ = ["URL_FIELDS", "RebalancePage"]

URL_FIELDS = ("target", "edit", "cards", "budget", "verify_share", "games", "stages", "max_edits", "verify", "margin",
              "tiers", "slow_games", "master_seed", "workers")  # the URL keys the page takes (?page=rebalance&…)


class RebalancePage:
    """The Rebalance tab of one game.

    Args:
        workspace: the studio's workspace (runs go under ``rebalance/<game>/`` in it).
        game: the game shown.
        values: fields from the URL (:data:`URL_FIELDS`; others are ignored).
        cards_page: builds or finds the Cards page's editor and shows it (``None``: no Apply).
    """

    def __init__(self, workspace: Workspace, game: str, values: dict[str, Any] | None = None,
                 cards_page: Callable[[], Any] | None = None) -> None:
        w = require_widgets()
        self.workspace = workspace
        self.model = get_game(game)
        self.cards_page = cards_page
        self.panel: RebalancePanel | None = None
        if not declares_targets(self.model):
            self.widget = w.HTML(message(f"{self.model.title} declares no balance targets (targets on its model); "
                                         "nothing to rebalance here.", "info"))
            return
        wanted = {k: v for k, v in (values or {}).items() if k in URL_FIELDS}
        self.panel = RebalancePanel(self.model.name, workspace.root / "rebalance" / self.model.name,
                                    on_apply=self._apply if cards_page is not None else None)
        try:
            self.panel.set(**wanted)
        except Exception as exc:  # noqa: BLE001 - a wrong URL value is named in the page, not raised
            self.panel.note.value = message(f"the link's settings were not all taken: {exc}", "error")
        self.panel.summary.observe(lambda _: self._links(), names="value")
        self.links = w.HTML()
        self.links.add_class("wb-downloads")
        self.widget = w.VBox([self.panel.widget, self.links])

    def _links(self) -> None:
        """Download links of the shown run's proposal CSVs and tables (files under the workspace)."""
        result = self.panel.result if self.panel is not None else None
        if result is None:
            self.links.value = ""
            return
        links = []
        for path in result.files:
            url = self.workspace.url(path)
            if url and path.suffix == ".csv":
                name = html.escape(path.name)
                links.append(f'<a href="{html.escape(url)}" download="{name}" data-file="{name}">⬇ {name}</a>')
        self.links.value = ('<div class="wb-downloads-ready">' + "".join(links) + "</div>") if links else ""

    def _apply(self, proposal: Proposal) -> str:
        editor = self.cards_page() if self.cards_page is not None else None
        if editor is None or getattr(editor, "table", None) is None:
            raise InputError(f"{self.model.title} has no editable card table to apply a proposal to")
        return apply_to_editor(editor, proposal, self.panel.search_agents() if self.panel is not None else None)

    def close(self) -> None:
        """Stop a running search (everything it found stays in its store)."""
        if self.panel is not None:
            self.panel.close()
