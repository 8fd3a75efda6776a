"""``gnoming-sim rules`` and ``gnoming-sim strategies``: what the engine plays with."""
from __future__ import annotations

import json
import textwrap

import click

from gnoming_sim.cli import options as opt
from gnoming_sim.cli.group import cli
from gnoming_sim.game.deck import Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.rules import RuleConfig


@cli.command()
@opt.rules
@opt.deck
@click.option("--full", is_flag=True, help="Print the whole rules of the game (gnoming_sim/game/rules.md) instead.")
@opt.as_json
def rules(rules_path, deck_path, full, as_json):
    """Print the effective rules options (with their defaults) and the deck composition."""
    if full:
        if rules_path or deck_path or as_json:
            raise GnomingError("--full prints the rules text only: give it without --rules, --deck or --json")
        click.echo(rules_document(), nl=False)
        return
    config = opt.load_rules_file(rules_path)
    deck = opt.load_deck_file(deck_path)
    if as_json:
        data = {"rules_file": None if rules_path is None else str(rules_path),
                "rules": {name: {"value": value, "default": default, "meaning": text}
                          for name, value, default, text in config.describe()},
                "deck": {"name": deck.name, "size": deck.size, "cards": deck.to_dict()}}
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(_rules_text(config, rules_path))
    click.echo()
    click.echo(_deck_text(deck))


def rules_document() -> str:
    """The rules of the game in words (gnoming_sim/game/rules.md, shipped with the package)."""
    from importlib import resources

    return resources.files("gnoming_sim.game").joinpath("rules.md").read_text(encoding="utf-8")


def _rules_text(config: RuleConfig, path) -> str:
    rows = [(name, _show(value), _show(default), text) for name, value, default, text in config.describe()]
    header = ("option", "value", "default", "meaning")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    lines = [f"rules: {path or 'defaults'}"]
    for r in [header, *rows]:
        mark = " " if r is header or r[1] == r[2] else "*"
        lines.append(f"{mark} " + "  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "  " + r[3])
    lines.append("(* = differs from the default; the rules in words: gnoming-sim rules --full)")
    return "\n".join(lines)


def _deck_text(deck: Deck) -> str:
    lines = [f"deck: {deck.name} ({deck.size} cards)"]
    lines += [f"  {name:>3}  x {n}" for name, n in deck.to_dict().items()]
    return "\n".join(lines)


def _show(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@cli.command()
@opt.strategies_file
@opt.as_json
def strategies(strategies_path, as_json):
    """List every registered strategy with its parameters and a one-line description."""
    from gnoming_sim.kernel.policy import registry

    opt.load_strategies_file(strategies_path)
    found = [registry.get(name) for name in registry.names()]
    if as_json:
        data = {s.name: {"description": s.description, "params": dict(s.params)} for s in found}
        click.echo(json.dumps(data, indent=2))
        return
    width = max(len(s.name) for s in found)
    pad = " " * (width + 4)
    for s in found:
        click.echo(f"{s.name:<{width}}  {s.description}")
        if s.params:
            click.echo(textwrap.fill(_params_text(s.params), width=100, initial_indent=pad, subsequent_indent=pad,
                                     break_on_hyphens=False))


def _params_text(params: dict) -> str:
    """A strategy's named options (``key=value``), then a count of each kind of fitted weights, which only
    ``--json`` lists (the net's two networks hold some 1,900: they were 470 lines of this listing)."""
    from gnoming_sim.kernel.policy import registry

    named = set(registry.PARAM_NAMES) | set(registry.MC_PARAM_NAMES) | set(registry.RULE_PARAM_NAMES)
    text = " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items() if k in named)
    fitted = [(registry.WEIGHT_NAMES, "learned weights"),                       # in the learned weights file
              (registry.CELL_NAMES, "card cells"),                          # in the card's cells file
              (registry.NET_WEIGHT_NAMES + registry.NET_SOURCE_WEIGHT_NAMES, "network weights")]   # net's file
    counts = [f"{n:,} {what}" for names, what in fitted if (n := len(set(names) & set(params)))]
    if counts:
        text += f" (and {' and '.join(counts)}: --json lists them)"
    return text
