"""What the commands share besides options: the argparse class, game-parameter flags, engine checks, rate tables.

Core's work is called from each command's module; this module only reads flags and formats text.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from workbench.core.errors import InputError
from workbench.core.model import GameModel

__all__ = ["Parser", "add_declared", "add_game_params", "cell_table", "check_engine", "command_line", "param_grid",
           "pl_scan", "summary", "table_text"]


class Parser(argparse.ArgumentParser):
    """argparse with short errors: one line of usage, and the closest flag for a mistyped one."""

    def _get_value(self, action: argparse.Action, arg_string: str) -> Any:
        """A value a shared check refuses is an :class:`InputError` (``main`` prints it, status 2), not an exit."""
        try:
            return super()._get_value(action, arg_string)  # type: ignore[misc]
        except argparse.ArgumentError as exc:
            if getattr(action.type, "checked", False):
                raise InputError(str(exc)) from None
            raise

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> tuple[argparse.Namespace, list[str]]:
        """Parse, then check the shared options that go together (one message for every command)."""
        parsed, rest = super().parse_known_args(args, namespace)
        check_together(parsed)
        return parsed, rest

    def error(self, message: str) -> None:  # type: ignore[override]
        """Print ``did you mean --battlefield?`` for an unknown flag, one usage line, exit 2."""
        import difflib

        hint = ""
        if "unrecognized arguments:" in message:
            flags = [o for a in self._actions for o in a.option_strings if o.startswith("--")]
            for word in message.split(":", 1)[1].split():
                if word.startswith("-"):
                    close = difflib.get_close_matches(word.split("=", 1)[0], flags, n=1, cutoff=0.6)
                    if close:
                        hint = f"; did you mean {close[0]}?"
                        break
        usage = self.format_usage().strip().splitlines()[0]
        self.exit(2, f"{self.prog}: error: {message}{hint}\n{usage} …  (--help lists every flag)\n")



def check_together(args: argparse.Namespace) -> None:
    """Refuse shared options that only mean something together when one is missing.

    ``--scheduler`` names a Dask scheduler, so it needs ``--backend dask`` (left at ``local`` it would be
    ignored without a word).
    """
    scheduler, backend = getattr(args, "scheduler", None), getattr(args, "backend", None)
    if scheduler is not None and backend is not None and backend != "dask":
        raise InputError(f"argument --scheduler: {scheduler} is a Dask scheduler, used only with --backend dask "
                         f"(the backend is {backend}); add --backend dask, or leave out --scheduler")


def command_line(command: str, argv: list[str] | None) -> str:
    """``workbench COMMAND …`` as typed (recorded beside what the command writes)."""
    import sys

    words = list(argv if argv is not None else sys.argv[1:])
    return f"workbench {command} " + shlex.join(words[1:] if words[:1] == [command] else words)


def add_game_params(p: argparse.ArgumentParser, model: GameModel, skip: set[str] | frozenset[str] = frozenset(),
                    dest: str = "param") -> None:
    """Every parameter the game declares as a flag (``--start-wall``), checked against its range later."""
    for param in model.params:
        if param.name not in skip:
            add_declared(p, param, f"{dest}_{param.name}")


def add_declared(p: argparse.ArgumentParser, param: Any, dest: str) -> argparse.Action:
    """A parameter or study setting the game declares, as a flag.

    One named like a shared option (a game's ``--cards``) is checked by the shared option too, its
    text kept for the declaration's own check.
    """
    import workbench.cli.options as options

    shared = {o.flag: key for key, o in options.OPTIONS.items()}.get(param.flag)
    action = p.add_argument(param.flag, dest=dest, default=None, metavar=param.name.upper(),
                            type=options.as_text(shared) if shared else None,
                            help=f"{param.help} [{param.allowed()}; default {param.default}]")
    action.declared = True  # type: ignore[attr-defined]
    if shared:
        action.shared = shared  # type: ignore[attr-defined]
    return action


def param_grid(model: GameModel, args: argparse.Namespace) -> dict[str, list[Any]]:
    """The game-parameter flags given, each a list of values (``all`` or a comma list: several)."""
    grid: dict[str, list[Any]] = {}
    single = {p.name: getattr(args, f"param_{p.name}") for p in model.params
              if getattr(args, f"param_{p.name}") is not None and "," not in getattr(args, f"param_{p.name}")}
    for param in model.params_for(single):
        raw = getattr(args, f"param_{param.name}")
        if raw is None:
            continue
        if param.choices is not None and raw == "all":
            grid[param.name] = list(param.choices)
        elif param.choices is not None and "," in raw:
            grid[param.name] = [param.validate(v.strip()) for v in raw.split(",")]
        else:
            grid[param.name] = [param.validate(raw)]
    return grid



def check_engine(model: GameModel, engine: str | None, agents: Any, grid: dict[str, list[Any]]) -> None:
    """``--engine fast`` that cannot play every cell is one clear line (never a quiet fallback)."""
    from workbench.core.sim.play import check_fast
    from workbench.core.sim.runner import iter_grid

    check_fast(model, engine, agents, list(iter_grid(grid)) or [{}])



def pl_scan(path: Path) -> Any:
    """A lazy scan of a result file."""
    import polars as pl

    return pl.scan_parquet(path)


def rate_line(label: str, k: float, n: int, beside: str = "") -> str:
    from workbench.core.stats.rates import wilson

    lo, hi = wilson(k, n)
    return f"  {label:<24} {k / n:7.2%}  95% CI [{lo:.2%}, {hi:.2%}]  n={n}" + (f"  ({beside})" if beside else "")


def summary(lazy: Any, elapsed: float, out: Path | None, n: int, by: list[str] | None = None) -> str:
    """Seat, draw and first-seat rates with intervals, end reasons and lengths — from a lazy frame.

    Each seat's wins (and, with two seats, its score: wins and half the draws), the draws, then the
    first seat's score (a draw counts half) over the games with a first seat, its draws beside it.
    """
    import polars as pl

    lines = [f"{n:,} games in {elapsed:.2f} s ({n / max(elapsed, 1e-9):,.0f} games/s)" + (f" → {out}" if out else "")]
    columns = lazy.collect_schema().names()
    seats = sorted(c.removeprefix("agent_") for c in columns if c.startswith("agent_"))
    first = lazy.select(*(pl.col(f"agent_{s}").drop_nulls().first() for s in seats)).collect().row(0)
    has_first = pl.col("first_seat").is_not_null()
    counts = lazy.select(
        *(((pl.col("winner") == o).sum()).alias(o) for o in [*seats, "draw"]),
        (pl.col("winner") == pl.col("first_seat")).sum().alias("first"),
        (has_first & (pl.col("winner") == "draw")).sum().alias("first_draws"),
        has_first.sum().alias("has_first"),
        pl.col("length").mean().alias("mean"), pl.col("length").median().alias("median"),
        pl.col("length").max().alias("max")).collect().row(0, named=True)
    for seat, agent in zip(seats, first, strict=True):
        lines.append(rate_line(f"{seat} ({agent}) wins", int(counts[seat]), n))
    lines.append(rate_line("draw", int(counts["draw"]), n))
    if len(seats) == 2:  # two seats: each seat's score, a draw counting half (the two add up to 100 %)
        for seat, agent in zip(seats, first, strict=True):
            lines.append(rate_line(f"{seat} ({agent}) score", int(counts[seat]) + int(counts["draw"]) / 2, n,
                                    "a draw counts half"))
    if counts["has_first"]:
        k, drawn = int(counts["first"]) + int(counts["first_draws"]) / 2, int(counts["first_draws"])
        lines.append(rate_line("first seat score", k, int(counts["has_first"]),
                                f"a draw counts half; draws {drawn / int(counts['has_first']):.2%}, "
                                f"{int(counts['first']):,} won"))
    reasons = lazy.group_by("reason").len().sort("len", descending=True).collect()
    lines.append("  end: " + ", ".join(f"{r} {c}" for r, c in reasons.iter_rows()))
    lines.append(f"  length: mean {counts['mean']:.1f}, median {counts['median']:.0f}, max {counts['max']}")
    return "\n".join(lines)


def cell_table(frame: Any, keys: list[str]) -> str:
    """Each grid cell's seat win rates, draws and first-seat score (a draw counts half), 95 % intervals, as text."""
    import polars as pl

    from workbench.core.stats import metrics

    keys = [k for k in keys if k in frame.columns]

    def fmt(rate: str, low: str, high: str) -> pl.Expr:
        return pl.format("{}% [{}–{}]", *((pl.col(c) * 100).round(1) for c in (rate, low, high)))

    def beside(part: pl.DataFrame, table: pl.DataFrame) -> pl.DataFrame:
        return table.join(part, on=keys, how="left", maintain_order="left") if keys else \
            pl.concat([table, part], how="horizontal")

    rates = metrics.seat_win_rates(frame, keys or None).with_columns(fmt("rate", "low", "high").alias("cell"))
    table = rates.pivot(on="seat", index=[*keys, "n"], values="cell")
    table = table.rename({c: f"{c} wins [95% CI]" for c in table.columns if c not in (*keys, "n")})
    table = beside(metrics.draws(frame, keys or None).select(
        *keys, fmt("draws", "draws_low", "draws_high").alias("draws [95% CI]")), table)
    if "first_seat" in frame.columns and frame["first_seat"].null_count() < frame.height:
        fm = metrics.first_mover(frame, keys or None).select(
            *keys, fmt("first_seat_score", "first_seat_score_low", "first_seat_score_high")
            .alias("first seat score, draw = half [95% CI]"),
            pl.col("first_seat_score_n").alias("games with a first seat"))
        table = beside(fm, table)
    return table_text(table)


def table_text(frame: Any, rows: int = 200) -> str:
    """A table for a person on the terminal, the one style every command prints.

    Markdown-style rows, no shape or column types, every column and every cell's whole text; an empty cell (a
    proposal not replayed at a tier, a combination not played) reads "–", as in the reports and the studio, never
    "null".  At most ``rows`` rows (-1: all).
    """
    import polars as pl

    frame = frame.with_columns(pl.col(c).cast(pl.String).fill_null("–") for c in frame.columns
                               if frame.get_column(c).null_count())
    with pl.Config(tbl_formatting="ASCII_MARKDOWN", tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True,
                   tbl_rows=rows, tbl_cols=-1, tbl_width_chars=250, fmt_str_lengths=2000):
        return str(frame)
