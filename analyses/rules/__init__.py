"""Study ``rules``: the player's rules, one per decision, with what following each wins (issue 50 item 2)."""
from .study import PlayerRules

__all__ = ["PlayerRules"]
