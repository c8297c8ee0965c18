"""The rules protocol: pure functions over ``(config, state)`` every game implements (part 2 of a model)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workbench.core.model.facts import TERMINAL, seat_names


class GameRules:
    """The per-state protocol of a :class:`~workbench.core.model.game.GameModel`: override these in a game."""

    # -- 2. rules: the per-state protocol -------------------------------------------------------
    def make_config(self, params: dict[str, Any]) -> Any:
        """The rules configuration for resolved parameters (cache it if building is costly)."""
        return params

    def players(self, config: Any) -> int:
        """Seats of a game with this config (override when a parameter sets it)."""
        return self.min_players

    def initial_state(self, config: Any, seed: int) -> Any:
        """The state at the start of the game with game seed ``seed`` (all its randomness)."""
        raise NotImplementedError(f"{self.name}: initial_state is not implemented")

    def current_player(self, config: Any, state: Any) -> int | tuple[int, ...]:
        """The seat to act, a tuple of seats acting at once, :data:`CHANCE` or :data:`TERMINAL`."""
        raise NotImplementedError(f"{self.name}: current_player is not implemented")

    def legal_actions(self, config: Any, state: Any, seat: int) -> Sequence[Any]:
        """The actions ``seat`` may take now, in a stable order (agents index into it)."""
        raise NotImplementedError(f"{self.name}: legal_actions is not implemented")

    def apply(self, config: Any, state: Any, action: Any) -> Any:
        """The state after ``action`` (a tuple, one per acting seat, at a simultaneous node)."""
        raise NotImplementedError(f"{self.name}: apply is not implemented")

    def observation(self, config: Any, state: Any, seat: int) -> Any:
        """What ``seat`` may see (its agents get nothing else)."""
        raise NotImplementedError(f"{self.name}: observation is not implemented")

    def chance_outcomes(self, config: Any, state: Any) -> list[tuple[Any, float]]:
        """At a chance node: every outcome with its probability (games with chance nodes)."""
        raise NotImplementedError(f"{self.name}: chance_outcomes is not implemented")

    def sample_chance(self, config: Any, state: Any) -> tuple[Any, Any]:
        """At a chance node: ``(outcome, state)`` drawn from the game's own seeded stream in the state."""
        raise NotImplementedError(f"{self.name}: sample_chance is not implemented")

    def is_terminal(self, config: Any, state: Any) -> bool:
        """True when the game is over."""
        return self.current_player(config, state) == TERMINAL

    def returns(self, config: Any, state: Any) -> tuple[float, ...]:
        """Each seat's return of a finished game (default: winner +1, the others −1, a draw 0)."""
        row = self.result_row(config, state)
        names = seat_names(self.players(config))
        if row["winner"] not in names:
            return (0.0,) * len(names)
        return tuple(1.0 if s == row["winner"] else -1.0 for s in names)

    def result_row(self, config: Any, state: Any) -> dict[str, Any]:
        """The result columns of a finished game (keys and dtypes as :meth:`result_schema`)."""
        raise NotImplementedError(f"{self.name}: result_row is not implemented")

    def agent_stream(self, seat: int) -> int:
        """The SplitMix64 sub-stream of the game seed that ``seat``'s agent draws from."""
        return self.agent_stream_base + seat

    def invariants(self, config: Any, state: Any) -> list[str]:
        """Broken invariants of a state, in words (conformance checks it after every step)."""
        return []
