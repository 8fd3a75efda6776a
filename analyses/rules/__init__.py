"""Study ``rules``: the player's rules, one per decision, with what following each wins."""
from .study import PlayerRules

__all__ = ["PlayerRules"]
