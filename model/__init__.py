"""rulespec's reference model: load a YAML game spec and play it.

    >>> import model
    >>> game = model.load("spec/mygame.yaml", players=3)   # or a game id of spec/
    >>> state = game.initial_state(seed=7)
    >>> action = state.legal_actions()[0]
    >>> state = state.apply(action)

See docs/api.md for the whole public API.
"""

from .errors import IllegalAction, InternalError, ModelError, RulespecError, SpecError, Where
from .game import Action, Game, Outcome, State, load
from .loader import load_ir, resolve_spec_path
from .observe import Hidden, Observation

__all__ = ["Action", "Game", "Hidden", "IllegalAction", "InternalError", "ModelError",
           "Observation", "Outcome", "RulespecError", "SpecError", "State", "Where", "load",
           "load_ir", "resolve_spec_path"]
