"""Saving a rebalance: proposals.csv, each proposal's edited cards, the verification and re-tune tables (one writer)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.core.design.cardtable import CardTable, changed_cells, edited_cards, read_cards
from workbench.core.design.rebalance.result import RebalanceResult
from workbench.core.design.rebalance.space import Candidate, Dim
from workbench.core.model import GameModel
from workbench.core.sim.store import write_atomic


# -- saving -------------------------------------------------------------------------------------------------
def _save(model: GameModel, table: CardTable | None, dims: Sequence[Dim], result: RebalanceResult,
          chosen: list[Candidate], out: Path) -> list[Path]:
    """Each proposal's card set as ``proposals/proposal-NN.csv`` (parameters beside it), and the tables."""
    folder = out / "proposals"
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for rank, candidate in enumerate(chosen, start=1):
        card_edits: dict[str, dict[str, str]] = {}
        params: dict[str, Any] = {}
        for i, d in candidate:
            dim = dims[i]
            if dim.kind == "card":
                card_edits.setdefault(dim.key, {})[dim.column] = str(dim.base + d)
            else:
                params[dim.label] = dim.base + d
        if card_edits and table is not None:
            changed = changed_cells(table, read_cards(table), card_edits)
            path = folder / f"proposal-{rank:02d}.csv"
            edited = edited_cards(table, changed, namespace=f"{model.name}-rebalance")
            write_atomic(path, lambda tmp, src=edited: tmp.write_bytes(src.read_bytes()))
            files.append(path)
        if params:
            path = folder / f"proposal-{rank:02d}.params.json"
            write_atomic(path, lambda tmp, p=params: tmp.write_text(json.dumps(p, indent=1), encoding="utf-8"))
            files.append(path)
    for name, frame in (("proposals", result.proposals), ("verification", result.verification),
                        ("trials", result.trials), ("retunes", result.retunes())):
        if frame.height:
            path = out / f"{name}.csv"
            write_atomic(path, lambda tmp, f=frame: f.write_csv(tmp))
            files.append(path)
    return files
