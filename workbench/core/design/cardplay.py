"""Dead cards: how often each card is drawn, held, and played when it could have been, per skill tier.

A card's empirical win rate says little when no agent ever plays it: it then measures a dead card
in hand.  This module counts, per card, over seeded games of the reference loop:

* ``games``: games played; ``drawn``: games in which a seat drew it (the result's ``drawn_p1``.. lists);
* ``held``: games in which it was drawn but never played;
* ``playable``: games in which, at some decision, a legal action would have played it;
* ``played``: games in which it was played (``played_p*``), and ``played_when_playable`` =
  games where it was played among the games where it was playable, with a 95 % Wilson interval.

A game opts in by declaring ``played_by`` on its card table (``core/design/cardtable.py``):
``"module:function(config, state, action) -> card key | None"`` names the card an action plays
(None for actions that play no card).  The legal actions are asked at every decision, so this
runs on the reference loop (the truth), a few games at a time.

:func:`dead_cards` runs the count at several tiers (``core/skill/tiers.py``) and flags a card "no agent
uses it" when no tier plays it in more than 1 % of the games where it was playable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import polars as pl

from workbench.core.design.cardtable import card_table
from workbench.core.errors import InputError, RunInterrupted
from workbench.core.model import AgentSpec, GameModel, Param, get_game, seat_names
from workbench.core.model.refs import resolve_ref
from workbench.core.sim.play import acting, play_game
from workbench.core.sim.seeding import check_master_seed, game_seeds
from workbench.core.skill.tiers import Tier, default_tiers, parse_tiers, status_columns
from workbench.core.stats.rates import wilson

__all__ = ["DEAD_SHARE", "card_play_counts", "dead_cards"]

DEAD_SHARE = 0.01  # played in at most this share of the games where it was playable, at every tier: dead


def _played_by(model: GameModel) -> Callable[[Any, Any, Any], Any]:
    table = card_table(model)
    hook = resolve_ref(getattr(table, "played_by", None)) if table is not None else None
    if hook is None:
        able = ", ".join(_games_with_hook()) or "none"
        raise InputError(f"{model.name}: its card table declares no played_by, so its cards cannot be followed; "
                         f"games that can: {able}")
    return hook


def _games_with_hook() -> list[str]:
    from workbench.core.model import game_names

    found = []
    for name in game_names():
        table = card_table(name)
        if table is not None and getattr(table, "played_by", None) is not None:
            found.append(name)
    return found


def card_play_counts(game: str | GameModel, games: int, *, params: dict[str, Any] | None = None,
                     agents: Any = None, seed: int = 0, on_progress: Callable[[int], None] | None = None,
                     should_stop: Callable[[], bool] | None = None,
                     positions: dict[str, tuple[Any, int]] | None = None) -> pl.DataFrame:
    """Per card: games, drawn, held, playable, played and played-when-playable with its interval.

    Game ``i`` is played with the same game seed as ``simulate(..., seed=seed)``'s game ``i``.  A stop
    request keeps the games finished so far (:class:`RunInterrupted` carries the partial table).
    ``positions``, when given, receives for each card the first ``(state, seat)`` where it was playable
    (a test position: :func:`offered` asks another agent what it does there).
    """
    model = get_game(game)
    played_by = _played_by(model)
    resolved = model.resolve_params(params)
    specs = model.resolve_agents(agents, resolved)
    config = model.make_config(resolved)
    seeds = game_seeds(check_master_seed(seed), 0, games)
    limit = model.max_steps(resolved)
    counts: dict[str, np.ndarray] = {}  # card → [drawn, held, playable, played]
    done = 0

    def count(card: Any, column: int) -> None:
        counts.setdefault(str(card), np.zeros(4, np.int64))[column] += 1

    for game_seed in seeds:
        if should_stop is not None and should_stop():
            raise RunInterrupted(_table(counts, done), done, games)
        playable: set[str] = set()
        observe = _playable_observer(model, config, played_by, playable, positions)
        players = [model.make_agent(AgentSpec.parse(str(a))) for a in specs]
        final = play_game(model, config, players, int(game_seed), max_steps=limit, observer=observe)
        row = model.result_row(config, final)
        drawn = {str(c) for s in seat_names(len(specs)) for c in row.get(f"drawn_{s}") or ()}
        played = {str(c) for s in seat_names(len(specs)) for c in row.get(f"played_{s}") or ()}
        for card in drawn:
            count(card, 0)
        for card in drawn - played:
            count(card, 1)
        for card in playable:
            count(card, 2)
        for card in played & playable:
            count(card, 3)
        done += 1
        if on_progress is not None:
            on_progress(1)
    return _table(counts, done)


def _playable_observer(model: GameModel, config: Any, played_by: Callable[[Any, Any, Any], Any],
                       into: set[str], positions: dict[str, tuple[Any, int]] | None = None,
                       ) -> Callable[[Any, Any, Any, Any], None]:
    """An observer of the reference loop adding to ``into`` every card a legal action could have played."""
    def observe(before: Any, who: Any, action: Any, after: Any) -> None:
        for seat in acting(model, config, before):
            for option in model.legal_actions(config, before, seat):
                card = played_by(config, before, option)
                if card is not None:
                    into.add(str(card))
                    if positions is not None:
                        positions.setdefault(str(card), (before, seat))

    return observe


def offered(game: str | GameModel, positions: dict[str, tuple[Any, int]], cards: list[str], agent: str, *,
            params: dict[str, Any] | None = None, seed: int = 0) -> pl.DataFrame:
    """Does ``agent`` play each card when offered the chance?  One test position per card.

    For every card of ``cards`` with a recorded position (the first decision where it was playable), the
    agent decides from that seat's observation with a seeded stream; ``plays`` says whether the action
    it chose plays the card, ``choice`` what it chose.  A card the agents never play may be dead because
    the card is weak, or because the agents cannot see its value: a stronger agent playing it says the
    latter.
    """
    from workbench.core.rng import SplitMix64

    model = get_game(game)
    played_by = _played_by(model)
    config = model.make_config(model.resolve_params(params))
    player = model.make_agent(AgentSpec.parse(agent))
    rows = []
    for i, card in enumerate(cards):
        if card not in positions:
            rows.append({"card": card, "agent": agent, "plays": None, "choice": "never playable"})
            continue
        state, seat = positions[card]
        legal = model.legal_actions(config, state, seat)
        choice = player.act(model.observation(config, state, seat), legal, config,
                            SplitMix64.for_stream(seed, 7000 + i))
        chosen = played_by(config, state, choice)
        rows.append({"card": card, "agent": agent, "plays": chosen is not None and str(chosen) == card,
                     "choice": _said(model, config, state, seat, choice)})
    return pl.DataFrame(rows, schema={"card": pl.String, "agent": pl.String, "plays": pl.Boolean,
                                      "choice": pl.String})


def _said(model: GameModel, config: Any, state: Any, seat: int, choice: Any) -> str:
    """The chosen action as the game's playthrough text writes it (its first line, without the seat)."""
    lines = model.describe_step(config, state, seat, choice, model.apply(config, state, choice))
    text = lines[0] if lines else str(choice)
    return text.removeprefix("- ").split(": ", 1)[-1]


def _table(counts: dict[str, np.ndarray], games: int) -> pl.DataFrame:
    cards = sorted(counts)
    arr = np.array([counts[c] for c in cards], np.int64).reshape(-1, 4)
    low, high = wilson(arr[:, 3], arr[:, 2])
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(arr[:, 2] > 0, arr[:, 3] / np.maximum(arr[:, 2], 1), np.nan)
    return pl.DataFrame({
        "card": pl.Series(cards, dtype=pl.String), "games": pl.Series([games] * len(cards), dtype=pl.Int64),
        "drawn": arr[:, 0], "held": arr[:, 1], "playable": arr[:, 2], "played": arr[:, 3],
        "played_when_playable": pl.Series(rate, dtype=pl.Float64).fill_nan(None),
        "low": pl.Series(low, dtype=pl.Float64), "high": pl.Series(high, dtype=pl.Float64),
    })


def dead_cards(game: str | GameModel, tiers: Sequence[Tier], games: int, *, params: dict[str, Any] | None = None,
               seed: int = 0, share: float = DEAD_SHARE, on_progress: Callable[[int], None] | None = None,
               should_stop: Callable[[], bool] | None = None,
               positions: dict[str, tuple[Any, int]] | None = None) -> pl.DataFrame:
    """Per card and tier the counts of :func:`card_play_counts`, ``dead`` and the status across skill.

    The status is ``core.skill.tiers.status_columns`` on played when playable (n = the games playable).

    Every tier plays the same seeds with its agent in every seat.  ``dead`` is true when, at every tier,
    the card was played in at most ``share`` of the games where it was playable (a card never playable
    at some tier is not called dead: the agents never had the choice).  Columns: ``card``, then per tier
    ``playable · T``, ``played · T``, ``played_when_playable · T`` with ``low · T``/``high · T``, ``drawn · T``
    and ``held · T``, then ``dead`` and the status columns (``status``, ``skill_change``, ``games needed``).
    """
    model = get_game(game)
    resolved = model.resolve_params(params)
    seats = model.players(model.make_config(resolved))
    out: pl.DataFrame | None = None
    cut: RunInterrupted | None = None  # a stop: the tiers played so far, the last one's finished games
    played: list[Tier] = []
    for tier in tiers:
        try:
            table = card_play_counts(model, tier.games(games), params=resolved, agents=tier.lineup(seats),
                                     seed=seed, on_progress=on_progress, should_stop=should_stop, positions=positions)
        except RunInterrupted as exc:
            cut, table = exc, exc.partial
            if table is None or table.height == 0:
                break
        played.append(tier)
        names = {"played_when_playable": "played when playable", "low": "played when playable_low",
                 "high": "played when playable_high"}
        part = table.select("card", *(pl.col(c).alias(f"{tier.label} · {names.get(c, c)}") for c in
                                      ("drawn", "held", "playable", "played", "played_when_playable", "low", "high")))
        out = part if out is None else out.join(part, on="card", how="full", coalesce=True)
        if cut is not None:
            break
    if out is None:  # stopped before any game finished
        raise cut if cut is not None else InputError("dead cards: no tier to play")
    rates = [pl.col(f"{t.label} · played when playable") for t in played]
    dead = pl.all_horizontal([r.is_not_null() & (r <= share) for r in rates])
    out = out.with_columns(dead.alias("dead")).sort("card")
    out = status_columns(out, [t.label for t in played], "played when playable", "playable")
    if cut is not None:  # the tiers finished and the games of the one cut short, each card's counts
        raise RunInterrupted(out, cut.done, cut.total)
    return out


# -- the study: every game whose card table says which card an action plays ----------------------------
def _dead(model: GameModel, settings: dict[str, Any], params: dict[str, Any], *, seed: int, workers: int,
          on_progress: Callable[[int, int], None] | None, should_stop: Callable[[], bool] | None) -> dict:
    tiers = parse_tiers(model, settings["tiers"] or default_tiers(model, slow=True))
    total, done = sum(t.games(settings["games"]) for t in tiers), [0]

    def tick(n: int) -> None:
        done[0] += n
        if on_progress is not None:
            on_progress(done[0], total)

    positions: dict[str, tuple[Any, int]] = {}
    try:
        table = dead_cards(model, tiers, settings["games"], params=params, seed=seed, on_progress=tick,
                           should_stop=should_stop, positions=positions)
    except RunInterrupted as exc:  # stopped: the counts of the games finished, per tier played
        named = _with_names(model, exc.partial, params) if exc.partial is not None else None
        raise RunInterrupted(None if named is None else {"cards": named, "dead": named.filter(pl.col("dead"))},
                             done[0], total) from None
    named = _with_names(model, table, params)
    dead = named.filter(pl.col("dead"))
    out = {"cards": named, "dead": dead}
    if settings["search"] and dead.height:
        asked = offered(model, positions, dead["card"].to_list(), settings["search"], params=params, seed=seed)
        out["offered"] = dead.select("card", *(["name"] if "name" in dead.columns else [])).join(
            asked, on="card", how="left")
    return out


def _with_names(model: GameModel, table: pl.DataFrame, params: dict[str, Any]) -> pl.DataFrame:
    """The card's display name beside its key (from the card table's first shown column)."""
    from workbench.core.design.cardtable import read_cards

    cards_table = card_table(model)
    if cards_table is None or not cards_table.shown:
        return table
    rows = read_cards(cards_table, params.get(cards_table.param))
    key = next((k for k in cards_table.key if set(table["card"].to_list()) <= set(rows[k].to_list())),
               cards_table.row_key)
    names = rows.select(pl.col(key).alias("card"), pl.col(cards_table.shown[0]).alias("name"))
    return table.join(names, on="card", how="left").select("card", "name", pl.exclude("card", "name"))


def _dead_charts(tables: dict) -> dict:
    import altair as alt

    table = tables["cards"]
    what = "played when playable"
    tiers = [c.rsplit(" · ", 1)[0] for c in table.columns if c.endswith(f" · {what}")]
    label = "name" if "name" in table.columns else "card"
    long = pl.concat([table.select(pl.col(label).alias("card"), pl.lit(t).alias("tier"),
                                   pl.col(f"{t} · {what}").alias("rate"), pl.col(f"{t} · {what}_low").alias("low"),
                                   pl.col(f"{t} · {what}_high").alias("high"))
                      for t in tiers]).drop_nulls("rate")
    lowest = long.group_by("card").agg(pl.col("rate").max()).sort("rate").head(20)["card"].to_list()
    data = long.filter(pl.col("card").is_in(lowest))
    base = alt.Chart(data).encode(y=alt.Y("card:N", sort=lowest, title=None), color=alt.Color("tier:N"),
                                  yOffset="tier:N")
    chart = (base.mark_rule().encode(x=alt.X("low:Q", axis=alt.Axis(format="%"),
                                             title="played when playable (95 % interval)"), x2="high:Q")
             + base.mark_point(filled=True).encode(x="rate:Q"))
    return {"cards": chart.properties(title="The 20 least-played cards when playable, per tier")}


def dead_cards_study(model: GameModel) -> dict[str, Any] | None:
    """The keyword arguments of core's ``dead_cards`` study (None for a game whose card table has no ``played_by``)."""
    table = card_table(model)
    if table is None or table.played_by is None:
        return None
    return {"name": "dead_cards", "title": "Dead cards: which cards no agent plays when it could",
            "run": _dead, "charts": _dead_charts,
            "size": lambda settings, _params: sum(t.games(settings["games"]) for t in parse_tiers(
                model, settings["tiers"] or default_tiers(model, slow=True))),
            "settings": (Param("tiers", None, str, "skill tiers, weakest first, one agent spec each (every seat "
                               f"plays it); none: the declared {default_tiers(model, slow=True)}", optional=True),
                         Param("games", 200, int, "games per fast tier (the reference loop: a few per second; a "
                               "search tier plays fewer, core.skill.tiers.Tier.games)", 1, 10**6),
                         Param("search", "search" if "search" in model.agents else None, str,
                               "an agent asked, at a position where each dead card was playable, whether it plays "
                               "it (none: not asked)", optional=True)),
            "help": "Per card and tier: games drawn, held, playable and played when playable (95 % interval). "
                    f"A card no tier plays in more than {DEAD_SHARE:.0%} of the games where it could is flagged "
                    "'no agent uses it': its empirical win rate then measures a dead card in hand."}
