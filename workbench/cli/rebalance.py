"""``workbench rebalance GAME --target … --edit … --cards … --out DIR``: the smallest edits that reach a balance target.

A command module of ``workbench/cli/`` (``add_arguments`` on its parser, ``run`` on the parsed
arguments), like ``tune`` and ``ladder``.  The work is core's (:func:`workbench.core.design.rebalance.rebalance`);
this module reads flags, shows progress with an ETA, and prints the proposals, the held-out table and
where the files went.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import polars as pl

import workbench.cli.options as options
from workbench.cli.common import command_line, table_text
from workbench.core.errors import InputError
from workbench.core.model import shown_path

__all__ = ["HELP", "add_arguments", "game_help", "preflight", "run"]

HELP = "the smallest card or parameter edits that reach a balance target, verified on held-out seeds"
RAW = False


def game_help(game: str) -> str:
    """A game's rebalance defaults in words: its metrics, default target, edit space, cards, budget and tiers."""
    from workbench.core.design import rebalance as rb
    from workbench.core.model import get_game
    from workbench.core.skill.tiers import declared_tiers
    from workbench.core.stats.rates import games_for_margin

    model = get_game(game)
    targets = rb.targets_of(model)
    dims = rb.edit_space(model, None, None, targets)
    tiers = declared_tiers(model)
    fast = [t.label for t in tiers if not t.slow] or [tiers[0].label]
    slow = [t.label for t in tiers if t.slow]
    searched = fast if targets.search_tiers and len(fast) > 1 else fast[:1]
    lines = [f"{model.title} ({model.name}): what `workbench rebalance {model.name}` does without flags",
             "", "metrics a target may name (each a score: wins and half the draws, with its n and 95 % interval):"]
    for name, metric in targets.all_metrics().items():
        lines.append(f"  {name:<26} {metric.title}: {metric.help}")
    edit = targets.edit or "every whole-number editable card column, -1..+1"
    lines += ["", f"default target (--target):   {targets.target}",
              f"default edit space (--edit): {edit}",
              f"cards edited (--cards):      {targets.cards}",
              f"  {len(dims):,} editable values, {sum(len(d.deltas) for d in dims):,} single edits; at most "
              f"{targets.max_edits} edits a proposal (--max-edits)"]
    for word, columns in targets.aliases.items():
        lines.append(f"  '{word}' in --edit stands for {', '.join(columns)}")
    lines += [f"default budget (--budget):   {targets.budget:,} games for the whole run — "
              f"{100 * targets.verify_share:g} % kept for the held-out check (--verify-share), the search plays "
              f"the rest; the run never plays more",
              f"tiers (--tiers):             {', '.join(t.label for t in tiers)}; the target is met only when it is "
              "met at every one",
              f"  the search plays {', '.join(searched)}" + (" (the worst tier decides a candidate's distance)"
                                                             if len(searched) > 1 else ""),
              f"  held out: n for ±{100 * targets.margin:g} points per rate (--margin; "
              f"{games_for_margin(targets.margin):,} games a rate) at {', '.join(fast)}"
              + (f"; {targets.slow_games} games a cell at {', '.join(slow)} (--slow-games: a floor, its status may "
                 "read undecided)" if slow else ""),
              f"cells: {len(targets.cells)} (every candidate plays each on the same seeds); first racing stage "
              f"{targets.games:,} games a cell (--games), {targets.stages} stages (--stages)",
              f"re-tune of weighted tiers for each proposal (--retune): {targets.retune:,} games"
              + (" (off)" if not targets.retune else "")]
    return "\n".join(lines)


class _GameHelp(argparse.Action):
    """``--help``: the flags, then the named game's own defaults (``workbench rebalance babylon --help``)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show this help and the game's own defaults (targets, edit space, budget, tiers)")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        from workbench.core.errors import InputError

        game = getattr(namespace, "game", None)
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
        try:
            parser.epilog = game_help(game) if game else "`workbench rebalance GAME --help` shows the game's defaults."
        except InputError as exc:
            parser.epilog = str(exc)
        parser.print_help()
        parser.exit()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``workbench rebalance`` (``--help`` after a game shows that game's defaults)."""
    for container in (parser, parser._optionals):  # our --help replaces argparse's (the group keeps its own handler)
        container.conflict_handler = "resolve"
    parser.add_argument("-h", "--help", action=_GameHelp)
    parser.add_argument("game", help="the game (see `workbench games`)")
    options.add(parser, "target", help="bands in percent, e.g. 'deck_vs_field=48..52, first_seat=48.5..51.5' "
                                       "(default: the game's)")
    options.add(parser, "edit",
                help="edit space: COLUMN:LOW..HIGH whole steps, e.g. 'power_cost:-1..+1, might:-1..+1'; a "
                     "parameter with @P gives one per value of P, e.g. second_bonus_tower:0..+6@battlefield "
                     f"(default: the game's; at most {options.MAX_EDIT_STEPS} steps a range)")
    options.add(parser, "cards", help="card keys or patterns to edit, e.g. 'F*,S*' (default: all)")
    options.add(parser, "budget", help="games the whole run may play: the search, the held-out check and any "
                                       "re-tunes (default: the game's, 100000 unless it says)")
    parser.add_argument("--verify-share", type=options.fraction("verify-share", 0, 1, low_open=False), default=None,
                        metavar="F",
                        help="the fraction of the budget kept for the held-out check, the search playing the rest "
                             "(default: the game's, 0.25 unless it says; 0: the budget is the search's alone and the "
                             "held-out check is sized by --margin, outside it)")
    parser.add_argument("--slow-games", type=options.positive("slow-games"), default=None, metavar="N",
                        help="held-out games a cell at a search tier (a game there costs ~1,000 fast ones; default: "
                             "the game's): a floor, so its status may read undecided")
    options.add(parser, "seed", help="the rebalance seed (default 0)")
    options.add(parser, "out", required=True, help="output folder (new, or one a rebalance wrote): search.jsonl "
                                                   "(resumable), proposals/, proposals.csv, verification.csv")
    parser.add_argument("--tiers", default=None, help="skill tiers of the held-out check, e.g. greedy,greedy@tuned "
                                                      "(default: every tier the game declares, its search tier "
                                                      "included; the search plays the fast ones)")
    options.add(parser, "resume", help="continue the search stored in --out")
    parser.add_argument("--retune", type=options.at_least_zero("retune"), default=None, metavar="N",
                        help="at the held-out check, a tier naming a weight set (greedy@tuned) plays each proposal "
                             "with weights re-tuned for its edited cards, N games each (default: the game's; 0: the "
                             "set as shipped)")
    options.add(parser, "max_edits", help="most edits per candidate (default: the game's)")
    options.add(parser, "games", help="games per cell of the first racing stage (default: the game's)")
    parser.add_argument("--stages", type=options.positive("stages", 20), default=None,
                        help="racing stages, each 4× the games (default: the game's, 3 unless it says)")
    parser.add_argument("--population", type=options.positive("population", 10_000), default=24,
                        help="NSGA-II population (default 24)")
    parser.add_argument("--verify", type=options.positive("verify", 1000), default=10,
                        help="most proposals re-played on held-out seeds (10)")
    parser.add_argument("--margin", type=options.fraction("margin", 0, 0.5, example=" (0.01: ±1 point)"),
                        default=None,
                        help="held-out games give every item ± this at 50 %% (default: the game's, 0.01 = ±1 point "
                             "unless it says)")
    options.add(parser, "workers")
    options.add(parser, "backend")
    options.add(parser, "scheduler")


def preflight(args: argparse.Namespace) -> None:
    """The checks made before any game and any file: the target's metrics, the edit space, the tiers."""
    from workbench.core.design import rebalance as rb
    from workbench.core.model import get_game
    from workbench.core.skill.tiers import default_tiers, parse_tiers

    if args.resume and not _resumable(Path(args.out)):
        raise InputError(f"rebalance --out {args.out}: nothing to resume there (no {rb.DB}); leave --resume out to "
                         "start a search")
    model = get_game(args.game)
    targets = rb.targets_of(model)
    rb.parse_target(args.target if args.target is not None else targets.target, targets)
    rb.edit_space(model, args.edit, args.cards, targets)
    parse_tiers(model, args.tiers or default_tiers(model, slow=True))


def _measurable(args: argparse.Namespace) -> None:
    """Core's check that every targeted metric counts in this game, before the output folder is taken."""
    from workbench.core.design import rebalance as rb
    from workbench.core.model import get_game

    model = get_game(args.game)
    targets = rb.targets_of(model)
    rb.check_measurable(model, targets, rb.parse_target(args.target if args.target is not None else targets.target,
                                                        targets), args.seed)


PHASE_LABELS = {"search": "rebalance: search", "verify": "rebalance: held-out check",
                "verify_slow": "rebalance: held-out check at the search tier"}


class _Bars:
    """One progress bar (or periodic line, with rate and ETA) per phase: the search, then the held-out check.

    The held-out check's search tier is a phase of its own: a game there costs about a thousand fast ones, so one
    rate for both read "100 %, ETA 1 s" while the search tier had minutes to play.
    """

    def __init__(self) -> None:
        self.phase: str | None = None
        self.bar: Any = None
        self.done = 0

    def __call__(self, done: int, total: int, phase: str) -> None:
        from workbench.core.sim.progress import progress

        if phase != self.phase or self.bar is None or getattr(self.bar, "total", total) != total:
            self.close()
            label = PHASE_LABELS.get(phase, f"rebalance: {phase}")
            self.bar, self.phase, self.done = progress(max(total, 1), label, initial=done), phase, done
        if done > self.done:
            self.bar.update(done - self.done)
            self.done = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _print(frame: pl.DataFrame) -> None:
    print(table_text(frame, rows=-1))


def _resumable(folder: Path) -> bool:
    from workbench.core.design.rebalance import DB

    return (folder / DB).is_file()


def run(args: argparse.Namespace, rest: list[str] | None = None, argv: list[str] | None = None) -> int:
    """Run ``workbench rebalance`` on parsed arguments; print the proposals and where they were saved.

    The output folder is held for the run (:class:`~workbench.core.sim.outdir.OutDir`): one writer, only
    files a rebalance wrote there, ``--resume`` only with a search to resume, and a run refused once
    under way leaves nothing behind.
    """
    from workbench.core.design.rebalance import DB
    from workbench.core.sim.outdir import OutDir

    preflight(args)
    _measurable(args)
    with OutDir(args.out, "rebalance --out", resume=args.resume, resumable=_resumable, legacy=(DB,),
                command=command_line("rebalance", argv)):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from workbench.core.design.rebalance import (
        additive_table,
        proposals_table,
        rebalance,
        retunes_table,
        searched_text,
        verification_table,
    )

    bars = _Bars()
    try:
        result = rebalance(args.game, target=args.target, edit=args.edit, cards=args.cards, budget=args.budget,
                           seed=args.seed, tiers=args.tiers, out=args.out, resume=args.resume,
                           max_edits=args.max_edits, games=args.games, stages=args.stages,
                           population=args.population, verify=args.verify, margin=args.margin,
                           workers=args.workers, backend=args.backend, scheduler=args.scheduler, on_progress=bars,
                           retune=args.retune, verify_share=args.verify_share, slow_games=args.slow_games)
    finally:
        bars.close()
    print(result.summary())
    print(f"target: {', '.join(b.text() for b in result.bands)}, at every tier ({', '.join(result.tiers)}); "
          f"{len(result.dims)} editable values; {result.seconds:.0f} s")
    print(searched_text(result))
    if result.proposals.height:
        print("\nProposals (a score counts a draw as half a win; points outside the bands, summed over the items "
              "of one tier; a tier's status: inside, outside, or undecided when too few games tell):")
        _print(proposals_table(result))
    if result.additive_note:
        print(f"\n{result.additive_note}")
    if result.additive.height:
        _print(additive_table(result))
    table = verification_table(result)
    if table.height:
        lo, hi = result.holdout_seed_range
        print(f"\nHeld-out seeds (game indices {lo}..{hi - 1} of a master seed the search never used), "
              f"{result.verify_games_per_cell:,} games per cell and tier:")
        _print(table)
    retunes = retunes_table(result)
    if retunes.height:
        print(f"\nWeights re-tuned for each proposal ({result.retune:,} games each; the re-tuned weights are played "
              "only where they score at least as well as the set as shipped on the same held-out games, a draw "
              "counting half):")
        _print(retunes)
    shown = [shown_path(p) for p in result.files]
    if shown:
        print("\nwrote " + ", ".join(shown))
    if result.stopped:
        print(f"stopped: every finished trial is kept in {shown_path(Path(args.out) / 'search.jsonl')}; continue "
              f"with the same command and --resume")
        return 130
    return 0
