"""Study ``pocket-rules``: the ladder of advice (simplest default, pocket rules, card, net, value) and each pocket
rule's worth, played in whole games."""
from .study import PocketRules

__all__ = ["PocketRules"]
