"""The strategy registry: presets by name, and user strategies from TOML.

A strategy is a family (``kind``) plus a parameter vector for the jitted decisions; see
:mod:`gnoming_sim.kernel.policy.heuristic` for what each parameter does.  A TOML file defines more::

    [strategy.patient]
    base = "greedy"                 # start from a preset's parameters
    description = "greedy, but waits for a sure lowest before finishing"
    finish_margin = 6

    [strategy.mc64]
    base = "mc"                     # Monte Carlo: rollouts, with expert as its base policy
    policy = "builder"              # another base policy (a heuristic, learned or net strategy)
    mc_budget = 64                  # rollouts per option per decision

The strategies by name are a :class:`Registry`: :data:`DEFAULT` holds the built-ins and what a
run registers (``--strategies-file``, a tuned strategy).  The module functions (:func:`get`,
:func:`names`, :func:`register`, :func:`from_dict`, :func:`load_file`) act on the registry in
use, :data:`DEFAULT` unless a caller installs its own for a while with :func:`using` (a test,
say, that registers strategies without leaving them behind).
"""
from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from dataclasses import dataclass, field
from typing import Iterable, Iterator

import numpy as np

from gnoming_sim.kernel.policy.heuristic import PARAM_NAMES
from gnoming_sim.kernel.policy.dispatch import NETC_NAMES, KIND_CARD, KIND_CARD_STARRED, KIND_HEURISTIC, KIND_LEARNED, KIND_MC, KIND_NET, KIND_RANDOM, \
    KIND_NET_CELLS, KIND_RULES, KIND_VALUE, MC_PARAM_NAMES, \
    N_PARAMS
from gnoming_sim.kernel.value import N_WEIGHTS as N_VALUE_WEIGHTS
from gnoming_sim.kernel.value_weights import WEIGHTS as VALUE_WEIGHTS, read_weights as read_value_weights
from gnoming_sim.kernel.policy.card import ACTION_NAMES, N_CELLS, T_SOURCE, T_SOURCE_FD, table_of
from gnoming_sim.kernel.policy.learned import WEIGHT_NAMES
from gnoming_sim.kernel.policy.rules import RULE_PARAM_NAMES
from gnoming_sim.kernel.policy.net import SOURCE_WEIGHT_NAMES as NET_SOURCE_WEIGHT_NAMES
from gnoming_sim.kernel.policy.net import INPUT_NAMES as NET_INPUT_NAMES
from gnoming_sim.kernel.policy.net import WEIGHT_NAMES as NET_WEIGHT_NAMES
from gnoming_sim.kernel.policy.net import widen as net_widen
from gnoming_sim.game.toml_io import read_toml
from gnoming_sim.game.errors import GnomingError

PARAM_HELP = {
    "unseen_bias": "points added to the card-counted mean of an unseen card (pessimism)",
    "pair_weight": "worth of a pair in an unmatched line, as a fraction of its value",
    "take_threshold": "take a discard only if it improves the estimate by at least this",
    "keep_threshold": "keep a blind draw only if it improves the estimate by more than this",
    "reveal_bonus": "points credited for placing over a face-down card (speed)",
    "mulligan_bonus": "extra worth of a face-up mulligan in the layout",
    "hazard_deny": "worth per opponent of keeping a drawn hazard to deny their flips",
    "finish_margin": "finish only if own score <= best opponent estimate - margin",
    "bounce": "1: bounce when it improves the estimate; 0: never",
    "hazard_flip": "1: take the flip an opponent's hazard offers; 0: decline",
    "initial_flips": "0: corners (0, 8); 1: one row (0, 1); 2: diagonal (0, 4)",
}

MC_PARAM_HELP = {
    "mc_budget": "Monte Carlo: rollouts per option per decision (an integer >= 1)",
    "mc_width": "Monte Carlo: placements rolled out besides the base choice, not keeping and finishing",
    "mc_adaptive": "Monte Carlo: 1: drop options by paired tests and stop early (mc_budget: most per option); 0: fixed",
    "mc_min": "Monte Carlo, adaptive: rollouts per option before any option is dropped (an integer >= 2)",
    "mc_max": "Monte Carlo, adaptive: most rollouts per decision, all options together (0: no cap)",
    "mc_z": "Monte Carlo, adaptive: drop an option when its paired mean difference to the best exceeds "
            "-mc_eps by this many standard errors",
    "mc_eps": "Monte Carlo, adaptive: the indifference margin, in points per round",
    "mc_bounce": "Monte Carlo: 1: bounces by rollouts too; 0: by the base policy",
    "mc_hazard_flip": "Monte Carlo: 1: flips for another's hazard by rollouts too; 0: by the base policy",
    "mc_learned_base": "Monte Carlo: the base policy: 0 the heuristic, 1 the learned family, 2 the net family "
                       "(set by policy = a heuristic, learned or net strategy)",
    "mc_keep": "Monte Carlo: > 0: keep the base policy's answer unless the rollouts' best beats it by this many "
               "standard errors of their paired difference; 0: the lowest mean",
}
MC_DEFAULTS = dict(mc_budget=16.0, mc_width=3.0, mc_adaptive=0.0, mc_min=8.0, mc_max=0.0, mc_z=2.0, mc_eps=0.0,
                   mc_bounce=0.0, mc_hazard_flip=0.0, mc_learned_base=0.0, mc_keep=0.0)
# the MC settings' allowed values: whole numbers in a range, a choice, or a real number in a range
MC_INTEGER = {"mc_budget": 1, "mc_width": 0, "mc_min": 2, "mc_max": 0}    # the lowest allowed
MC_CHOICE = {"mc_adaptive": (0, 1), "mc_bounce": (0, 1), "mc_hazard_flip": (0, 1), "mc_learned_base": (0, 1, 2)}
MC_REAL = {"mc_z": 100.0, "mc_eps": 1000.0, "mc_keep": 100.0}                               # 0 up to this
MC_BASE = "expert"   # the mc preset's base policy
# the card's cells (kernel.policy.card): "chart.<cell>" -> the cell's action (0: not resolved); the key's
# word is the cells file's (card_cells.json), kept so the committed file and every recorded run still read
CELL_NAMES = tuple(f"chart.{i}" for i in range(N_CELLS))
# a card or rules seat's classes of decisions answered by net instead (kernel.policy.dispatch.NETC_*: a bit set)
NET_CLASSES = "net_classes"
# the value network's weights (kernel.value, read by kernel.value_weights): "value.<i>"
VALUE_WEIGHT_NAMES = tuple(f"value.{i}" for i in range(N_VALUE_WEIGHTS))
ALL_PARAM_NAMES = (PARAM_NAMES + MC_PARAM_NAMES + WEIGHT_NAMES + CELL_NAMES + NET_WEIGHT_NAMES + NET_SOURCE_WEIGHT_NAMES
                   + VALUE_WEIGHT_NAMES + RULE_PARAM_NAMES + (NET_CLASSES,))

MAX_PARAM_ABS = 1e6   # a weight or a margin in points: far past any game's scores (a round is within +-200)
# parameters that are choices, not weights: their allowed values
PARAM_CHOICES = {"bounce": (0, 1), "hazard_flip": (0, 1), "initial_flips": (0, 1, 2)}
# a strategy name: it must survive --seats A,B,... and the Parquet dictionary
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,39}")   # used with fullmatch: '$' matches before a final newline

_GREEDY = dict(unseen_bias=0.0, pair_weight=0.0, take_threshold=1.0, keep_threshold=0.5,
               reveal_bonus=0.0, mulligan_bonus=1.0, hazard_deny=0.0, finish_margin=0.0,
               bounce=1.0, hazard_flip=1.0, initial_flips=0.0)


@dataclass(frozen=True)
class Strategy:
    name: str
    kind: int
    description: str
    params: dict = field(default_factory=dict)

    def param_vector(self) -> np.ndarray:
        v = np.zeros(N_PARAMS, dtype=np.float64)
        for i, key in enumerate(ALL_PARAM_NAMES):
            v[i] = self.params.get(key, 0.0)
        return v


def _heuristic(name, description, **changes):
    params = dict(_GREEDY)
    params.update(changes)
    return Strategy(name, KIND_HEURISTIC, description, params)


PRESETS = (
    Strategy("random", KIND_RANDOM, "uniform over the legal choices at every decision point"),
    _heuristic("greedy", "one-ply: the move that most lowers its card-counted score estimate"),
    _heuristic("builder", "chases matched lines and mulligans: values pairs and wildcards",
               pair_weight=0.6, mulligan_bonus=4.0, take_threshold=0.5, initial_flips=1.0),
    _heuristic("rusher", "reveals fast to end rounds early, and always finishes when it can",
               reveal_bonus=3.0, finish_margin=-100.0, keep_threshold=-1.0, initial_flips=2.0),
    _heuristic("cautious", "delays finishing unless clearly lowest; keeps hazards to deny flips",
               finish_margin=4.0, reveal_bonus=-0.5, unseen_bias=0.5, hazard_deny=1.5),
)

# Found by `gnoming-sim tune`, not set by hand: tuning/expert-4p/ holds the run (run.sh, the
# strategies TOML it wrote, the log of every generation, the curve and the held-out table).
# Kept apart from PRESETS, the lineup the report's studies seat.
TUNED = (
    _heuristic("expert",
               "CMA-ES tuned from builder at 4 players vs builder: `gnoming-sim tune --players 4 "
               "--budget 1200 --seed 1 --threads 1` (53 generations, 4.25M games, 994 s). Held out vs "
               "builder, seats alternating, 20,000 deals each, 99%: -16.9 [-17.4, -16.5] points per game "
               "at 3 players, -15.4 [-15.8, -15.0] at 4, -13.7 [-14.1, -13.4] at 5, -11.8 [-12.1, -11.5] at 7",
               unseen_bias=0.0952, pair_weight=0.4419, take_threshold=3.4737, keep_threshold=-0.2111,
               reveal_bonus=4.2544, mulligan_bonus=1.2524, hazard_deny=-0.0496, finish_margin=18.3669,
               bounce=1.0, hazard_flip=1.0, initial_flips=1.0),
)


# The learned player's weights: fitted by `gnoming-sim train` (gnoming_sim/tune/learn.py), committed
# here with their provenance (the run itself, its log and curve: tuning/learned/).
LEARNED_WEIGHTS = Path(__file__).with_name("learned_weights.json")


def learned_from_file(path=LEARNED_WEIGHTS, name: str = "learned", base: Strategy = TUNED[0]) -> Strategy:
    """The learned strategy of a weights file (``{"weights": {name: value}, "provenance": ...}``): its
    weights, and the base heuristic's parameters for the decisions it does not model."""
    data = json.loads(Path(path).read_text())
    weights = data["weights"]
    missing = [w for w in WEIGHT_NAMES if w not in weights]
    if missing:
        raise GnomingError(f"{path}: weights missing: {', '.join(missing)}")
    params = dict(base.params)
    params.update({w: float(weights[w]) for w in WEIGHT_NAMES})
    return Strategy(name, KIND_LEARNED, data.get("description", "learned linear evaluator, one ply"), params)


LEARNED = (learned_from_file(),)


# The net player's weights: fitted by `make train-net` (tuning/net/run.sh, gnoming_sim/tune/net_train.py),
# committed here with their provenance (the run itself, its log and curve: tuning/net/).
NET_WEIGHTS = Path(__file__).with_name("net_weights.json")


def net_from_file(path=NET_WEIGHTS, name: str = "net", base: Strategy = LEARNED[0]) -> Strategy:
    """The net strategy of a weights file (``{"weights": [float, ...], "source_weights": [float, ...],
    "provenance": ...}``, the layout of :mod:`gnoming_sim.kernel.policy.net`): its weights, and ``base``'s
    (learned's) weights and heuristic parameters for the decisions it does not model.  A file without
    ``source_weights`` leaves the draw source to learned's."""
    data = json.loads(Path(path).read_text())
    weights = data["weights"]
    inputs = data.get("layout", {}).get("inputs")
    if len(weights) != len(NET_WEIGHT_NAMES) and inputs and list(inputs) != list(NET_INPUT_NAMES):
        # a file of an earlier layout (fewer inputs): the inputs it lacks get zero weights
        try:
            weights = list(net_widen(weights, list(inputs)))
        except ValueError as e:
            raise GnomingError(f"{path}: {e}") from None
    if len(weights) != len(NET_WEIGHT_NAMES):
        raise GnomingError(f"{path}: {len(weights)} weights, the net needs {len(NET_WEIGHT_NAMES)}")
    source = data.get("source_weights", [0.0] * len(NET_SOURCE_WEIGHT_NAMES))
    if len(source) != len(NET_SOURCE_WEIGHT_NAMES):
        raise GnomingError(f"{path}: {len(source)} source weights, the net's draw-source head needs "
                           f"{len(NET_SOURCE_WEIGHT_NAMES)}")
    params = dict(base.params)
    params.update({w: float(v) for w, v in zip(NET_WEIGHT_NAMES, weights)})
    params.update({w: float(v) for w, v in zip(NET_SOURCE_WEIGHT_NAMES, source)})
    return Strategy(name, KIND_NET, data.get("description", "neural evaluator of every option, one ply"), params)


NET = (net_from_file(),)


# The card's cells: its starred cells and its tables, derived by `gnoming-sim card` (gnoming_sim/tune/card/),
# committed here with their provenance (the runs themselves: tuning/guide/, tuning/guide-iteration/).
CARD_CELLS = Path(__file__).with_name("card_cells.json")


def _cells_of(path, cells: dict) -> dict:
    """``{"chart.<cell>": action}`` checked (known cells, actions 1..3) as parameter values."""
    bad = [k for k, v in cells.items() if k not in CELL_NAMES or v not in (1, 2, 3)]
    if bad:
        raise GnomingError(f"{path}: cells not known or actions not 1..3: {', '.join(map(str, bad[:5]))}")
    return {k: float(v) for k, v in cells.items()}


def card_starred_from_file(path=CARD_CELLS, name: str = "card-starred", base: Strategy = TUNED[0]) -> Strategy:
    """The card's starred cells of a cells file (``{"cells": {"chart.<cell>": action}, "provenance": ...}``: the
    resolved cells whose action beats expert's own rule), and the base heuristic's parameters for everything else."""
    data = json.loads(Path(path).read_text())
    params = dict(base.params)
    params.update(_cells_of(path, data["cells"]))
    return Strategy(name, KIND_CARD_STARRED, f"the card's {len(data['cells'])} starred cells, expert's rules elsewhere",
                    params)


def printed_card(tables: dict) -> dict:
    """The printed card's cells (``tune.card.page``: a resolved cell shows its action, any other ``?`` or
    nothing): ``{"chart.<cell>": action}`` for every resolved cell of the card's ``tables``."""
    return {CELL_NAMES[c["cell"]]: int(c["best"]) for t in tables.values() for c in t["cells"] if c.get("resolved")}


def card_from_file(path=CARD_CELLS, name: str = "card", base: Strategy = TUNED[0]) -> Strategy:
    """The card strategy of a cells file's tables (:func:`printed_card`): every resolved cell, the
    card's defaults elsewhere (``KIND_CARD``: kernel.policy.card.default_action_of), and the base
    heuristic's parameters for what the card does not cover and the position within an action."""
    data = json.loads(Path(path).read_text())
    if "tables" not in data:
        raise GnomingError(f"{path}: no card tables (the card is built from them)")
    cells = _cells_of(path, printed_card(data["tables"]))
    params = dict(base.params)
    params.update(cells)
    return Strategy(name, KIND_CARD,
                    f"plays the printed card (docs/card.md) in every one of its {len(cells)} resolved cells and its "
                    "stated defaults where it shows '?'; expert's rules only for what the card does not cover "
                    "(initial flips, bounces, the discard pile, a hazard flip) and the position within an action",
                    params)


CARD = (card_starred_from_file(), card_from_file())


def with_net(own: Strategy, classes: int, name: str) -> Strategy:
    """``own`` (the card or the pocket rules: ``KIND_CARD`` or ``KIND_RULES``) except in the decision classes
    ``classes`` (a bit set of :data:`gnoming_sim.kernel.policy.dispatch.NETC_NAMES`' classes, bit i the i-th) where
    it and net part: there net's answer.  Net's weights and parameters, with ``own``'s cells or rule settings."""
    net = NET[0]
    if own.kind not in (KIND_CARD, KIND_RULES):
        raise GnomingError(f"with net: '{own.name}' is neither the card nor the pocket rules")
    if not 0 <= int(classes) < 1 << len(NETC_NAMES):
        raise GnomingError(f"with net: classes must be 0 .. {(1 << len(NETC_NAMES)) - 1}, got {classes!r}")
    mine = CELL_NAMES if own.kind == KIND_CARD else RULE_PARAM_NAMES
    params = dict(net.params)
    params.update({k: v for k, v in own.params.items() if k in mine})
    params[NET_CLASSES] = float(classes)
    words = ", ".join(n for i, n in enumerate(NETC_NAMES) if int(classes) >> i & 1) or "nothing"
    return Strategy(name, own.kind, f"{own.name}, with net's answers at: {words}", params)


def net_with_cells(cells: dict, name: str = "net+rule", base: Strategy | None = None) -> Strategy:
    """Net, except where the given card cells are set (``KIND_NET_CELLS``, :func:`gnoming_sim.kernel.policy.card.
    cells_placement`): ``cells`` maps a cell (``"chart.<cell>"`` as :data:`CELL_NAMES` and card_cells.json name
    them, or its index) to its action (the card's ``A_*`` of that cell's table; 0 = not set).  ``base``: the net
    strategy whose weights and parameters it plays (default ``net``).  GnomingError on an unknown cell or action."""
    base = NET[0] if base is None else base
    if base.kind not in (KIND_NET, KIND_NET_CELLS):
        raise GnomingError(f"net with cells: the base must be a net strategy, not '{base.name}'")
    params = {k: v for k, v in base.params.items() if k not in CELL_NAMES}
    for key, action in dict(cells).items():
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool) and 0 <= key < N_CELLS:
            key = CELL_NAMES[int(key)]
        if key not in CELL_NAMES:
            raise GnomingError(f"net with cells: unknown cell {key!r} (cells are chart.0 .. chart.{N_CELLS - 1} "
                               f"or 0 .. {N_CELLS - 1})")
        table = table_of(CELL_NAMES.index(key))
        table = T_SOURCE if table == T_SOURCE_FD else table   # a banded take cell: take or draw
        ok = range(len(ACTION_NAMES[table]) + 1)
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or action not in ok:
            raise GnomingError(f"net with cells: {key}: the action must be 0 (not set) .. {ok[-1]}, got {action!r}")
        if action:
            params[key] = float(action)
    return Strategy(name, KIND_NET_CELLS, f"{base.name}, except at the {sum(k in params for k in CELL_NAMES)} "
                    "given card cells", params)


def _mc(name, description, base, **changes):
    """A Monte Carlo strategy: the heuristic parameters of ``base`` (its base policy) and the MC settings."""
    params = dict(base.params)
    params.update(MC_DEFAULTS)
    params.update(changes)
    return Strategy(name, KIND_MC, description, params)


MC = (
    _mc("mc", f"Monte Carlo: decides whether to take a discard and where to place (finishing included) "
              f"by {int(MC_DEFAULTS['mc_budget'])} rollouts per option to the end of the round from its own "
              f"observation (hidden cards dealt at random), every seat playing expert in them; "
              f"expert for the rest",
        TUNED[0]),
    _mc("mcx", "adaptive Monte Carlo: the decisions of mc, but its rollouts go in rounds on common random numbers "
               "and an option is dropped once its paired difference to the best is significantly worse or within "
               "the indifference margin (z 2, margin 1 point, at least 6 rollouts per option, at most 64 per "
               "decision): about mc's cost per decision, 2-3 points a game stronger at 4 players; expert for the rest",
        TUNED[0], mc_adaptive=1.0, mc_budget=64.0, mc_min=6.0, mc_max=64.0, mc_z=2.0, mc_eps=1.0),
    _mc("mc-learned", "Monte Carlo as mc (16 rollouts per option), with the learned player as its base policy: "
                      "every seat plays learned in its rollouts, and learned decides the rest",
        LEARNED[0], mc_learned_base=1.0),
    _mc("mc-net", "Monte Carlo as mc (16 rollouts per option), with the net player as its base policy: every "
                  "seat plays net in its rollouts, and net decides the rest; it keeps net's answer unless the "
                  "rollouts' best beats it by 2 standard errors of their paired difference (mc_keep 2): about "
                  "1.5 points a game stronger than net at 4 players",
        NET[0], mc_learned_base=2.0, mc_keep=2.0),
)


# The value player: the value network's weights (kernel/value_weights.json, fitted by `make train-value`,
# their provenance in tuning/value/), net's for the decisions it leaves to net; mc_budget is its deals of
# the unseen cards per decision (search.value_player).
VALUE_DEALS = 8


def value_from_file(path=VALUE_WEIGHTS, name: str = "value", base: Strategy = NET[0],
                    deals: int = VALUE_DEALS) -> Strategy:
    """The value player of a value-network weights file (refused in one sentence if it is not this network's)."""
    params = dict(base.params)
    params.update(zip(VALUE_WEIGHT_NAMES, map(float, read_value_weights(path))))
    params["mc_budget"] = float(deals)
    return Strategy(name, KIND_VALUE, f"the value network's best option at 0-ply at its draw source, placement, "
                    f"bounce and hazard-flip decisions (the mean over {deals} deals of the unseen cards, common "
                    "to every option, each option stepped to the next seat's decision and valued by the network's "
                    "chance of winning the game); net for its initial flips and the discard pile", params)


VALUE = (value_from_file(),)

# The pocket rules' settings, chosen by whole games (tuning/rules/: search.py from start.json, confirmed on other deals
# by confirm.py), and the sentences docs/rules.md prints: each rule names the settings it states and the simplest
# default its worth is measured against (the rule's decision made without it; tests/kernel/test_rules.py checks each
# sentence against the code and the page).
RULES_SETTINGS = {"rules.init": 1.0, "rules.take_low": -1.0, "rules.take_mulligan": 1.0, "rules.take_complete": 1.0,
                  "rules.take_pair_fd": 3.0, "rules.take_lower": 99.0, "rules.place_lower": 99.0, "rules.keep_max": -1.0,
                  "rules.keep_fd": 5.0, "rules.hazard": 0.0, "rules.finish_gap": 5.0, "rules.finish_gap2": 10.0,
                  "rules.finish_rival_fd": 2.0, "rules.bounce": 1.0, "rules.hazard_flip": 1.0, "rules.discard": 1.0,
                  "rules.take_round": 0.0, "rules.place_uses": 1.0, "rules.late_fd": 1.0, "rules.late_lower": 1.0,
                  "rules.pair_fd": 1.0}
RULES_PRINTED = (
    {"title": "1 start", "text": "At the start of a round, turn up the first two cards of the top row.",
     "settings": {"rules.init": 1.0}, "default": {"rules.init": 1.0}},
    {"title": "2 take or draw",
     "text": "Take a discard pile's top card when it completes a line, is negative or a mulligan, or pairs a line "
             "while 3 or more of your cards are face down (of two, the better reason). Otherwise draw blind.",
     "settings": {"rules.take_low": -1.0, "rules.take_mulligan": 1.0, "rules.take_complete": 1.0,
                  "rules.take_pair_fd": 3.0, "rules.take_round": 0.0, "rules.take_lower": 99.0},
     "default": {"rules.take_low": -99.0, "rules.take_mulligan": 0.0, "rules.take_complete": 0.0,
                 "rules.take_pair_fd": 99.0, "rules.take_lower": 99.0}},
    {"title": "3 where a kept card goes",
     "text": "Put a kept card where it completes a line, else where it pairs one (face-down cards first), else on a "
             "face-down card outside lines holding a pair. Never just to lower a face-up card, except with one card "
             "face down.",
     "settings": {"rules.place_uses": 1.0, "rules.place_lower": 99.0, "rules.late_fd": 1.0, "rules.late_lower": 1.0,
                  "rules.pair_fd": 1.0},
     "default": {"rules.place_uses": 0.0}},
    {"title": "4 keep or throw a blind draw",
     "text": "Keep a blind draw that rule 3 gives no use only if it is negative or a mulligan, or while 5 or more of "
             "your cards are face down; else throw it away. Always throw away a hazard.",
     "settings": {"rules.keep_max": -1.0, "rules.keep_fd": 5.0, "rules.hazard": 0.0},
     "default": {"rules.keep_max": 8.0, "rules.keep_fd": 99.0, "rules.hazard": 1.0}},
    {"title": "5 finish or play on",
     "text": "Finish when your score after finishing is less than 5 above the best rival's visible score, or less "
             "than 10 while the rivals average 2 or more cards face down. Else play on by rules 3-4.",
     "settings": {"rules.finish_gap": 5.0, "rules.finish_gap2": 10.0, "rules.finish_rival_fd": 2.0},
     "default": {"rules.finish_gap": 99.0}},
    {"title": "6 bounce",
     "text": "Bounce a revealed card where rule 3 gives it a use (it completes or pairs a line); otherwise stop.",
     "settings": {"rules.bounce": 1.0}, "default": {"rules.bounce": 0.0}},
    {"title": "7 a rival's hazard",
     "text": "When a rival's hazard lets you flip a card, flip the face-down card in the most lines holding a pair.",
     "settings": {"rules.hazard_flip": 1.0}, "default": {"rules.hazard_flip": 0.0}},
    {"title": "8 which pile",
     "text": "Discard onto the pile whose top card is cheaper (a mulligan cheapest), so the next player cannot take it.",
     "settings": {"rules.discard": 1.0}, "default": {"rules.discard": 0.0}},
)


def rules_strategy(settings: dict | None = None, name: str = "rules") -> Strategy:
    """The pocket rules (``KIND_RULES``, kernel.policy.rules) with ``settings`` (``{"rules.<name>": value}``) over
    the committed :data:`RULES_SETTINGS`."""
    params = dict(RULES_SETTINGS)
    for key, value in dict(settings or {}).items():
        if key not in RULE_PARAM_NAMES:
            raise GnomingError(f"rules: unknown setting {key!r} (known: {', '.join(RULE_PARAM_NAMES)})")
        params[key] = float(value)
    return Strategy(name, KIND_RULES, "the pocket rules (docs/rules.md): every decision by eight printed sentences "
                    "from what the player sees, nothing estimated", params)


RULES = (rules_strategy(),)

BUILTIN = PRESETS + TUNED + LEARNED + CARD + MC + NET + VALUE + RULES

class Registry:
    """Strategies by name: the built-ins (by default) and those registered since."""

    def __init__(self, strategies: Iterable[Strategy] = BUILTIN):
        self._by_name: dict[str, Strategy] = {s.name: s for s in strategies}

    def names(self) -> list[str]:
        return list(self._by_name)

    def get(self, name) -> Strategy:
        """The strategy called ``name`` (a Strategy is returned as it is); GnomingError if unknown."""
        if isinstance(name, Strategy):
            return name
        try:
            return self._by_name[name]
        except KeyError:
            raise GnomingError(f"unknown strategy '{name}' (known: {', '.join(self.names())})") from None

    def register(self, strategy: Strategy) -> Strategy:
        """Add ``strategy`` under its name (replacing one of that name) and return it."""
        self._by_name[strategy.name] = strategy
        return strategy

    def from_dict(self, name: str, table: dict, source: str = "strategies") -> Strategy:
        """A heuristic or MC strategy from a TOML table: ``base`` (required; a strategy of this
        registry), ``description`` and parameters.  Not registered.

        Raises GnomingError naming ``source``, the strategy, the key and what is allowed.
        """
        where = f"{source}: [strategy.{name}]"
        if not isinstance(table, dict):
            raise GnomingError(f"{where} must be a table")
        table = dict(table)
        if "base" not in table:
            raise GnomingError(f"{where}: missing key 'base' (the preset it starts from: "
                               f"{', '.join(_heuristic_presets())})")
        base_name = table.pop("base")
        if not isinstance(base_name, str):
            raise GnomingError(f"{where}: 'base' must be a preset name ({', '.join(_heuristic_presets())})")
        try:
            base = self.get(base_name)
        except GnomingError as exc:
            raise GnomingError(f"{where}: base: {exc}") from None
        if base.kind not in (KIND_HEURISTIC, KIND_MC):
            raise GnomingError(f"{where}: strategy '{name}' can only be based on a heuristic preset "
                               f"({', '.join(_heuristic_presets())}) or 'mc', not '{base_name}'")
        description = table.pop("description", f"user strategy based on {base_name}")
        if not isinstance(description, str):
            raise GnomingError(f"{where}: 'description' must be a string")
        params = dict(base.params)
        if base.kind == KIND_MC and "policy" in table:
            params.update(self._mc_policy(where, table.pop("policy")))
        for key, value in table.items():
            params[key] = _param_value(where, key, value, mc=base.kind == KIND_MC)
        if base.kind == KIND_MC:
            _check_base_family(where, params)
        return Strategy(name, base.kind, description, params)

    def _mc_policy(self, where: str, policy) -> dict:
        """The parameters an MC strategy takes from its ``policy`` (a heuristic, learned or net strategy's name):
        the heuristic's; a learned strategy's weights and base heuristic with ``mc_learned_base`` 1; a net
        strategy's weights, and the learned weights and heuristic its other decisions read, with 2."""
        families = (KIND_HEURISTIC, KIND_LEARNED, KIND_NET)
        known = ", ".join(s.name for s in self._by_name.values() if s.kind in families)
        if not isinstance(policy, str):
            raise GnomingError(f"{where}: 'policy' must be a heuristic, learned or net strategy's name ({known})")
        try:
            p = self.get(policy)
        except GnomingError as exc:
            raise GnomingError(f"{where}: policy: {exc}") from None
        if p.kind == KIND_NET:
            return {**{key: p.params[key] for key in PARAM_NAMES + WEIGHT_NAMES + NET_WEIGHT_NAMES if key in p.params},
                    "mc_learned_base": 2.0}
        if p.kind == KIND_LEARNED:
            return {**{key: p.params[key] for key in PARAM_NAMES + WEIGHT_NAMES if key in p.params},
                    "mc_learned_base": 1.0}
        if p.kind != KIND_HEURISTIC:
            raise GnomingError(f"{where}: 'policy' must be a heuristic, learned or net strategy ({known}), "
                               f"not '{policy}'")
        return {key: p.params[key] for key in PARAM_NAMES if key in p.params} | {"mc_learned_base": 0.0}

    def load_file(self, path) -> list[Strategy]:
        """Register every ``[strategy.NAME]`` table of a TOML file; return the new strategies."""
        data = read_toml(path, "strategies")
        tables = data.pop("strategy", None)
        if data or not isinstance(tables, dict) or not tables:
            raise GnomingError(f"{path}: expected one or more [strategy.NAME] tables")
        made = []
        for name, table in tables.items():
            if not _NAME.fullmatch(str(name)):   # names typed on a command line must survive --seats A,B,...
                raise GnomingError(f"{path}: strategy name {name!r} is not allowed: use a letter, then letters, "
                                   "digits, '_', '-' or '.' (at most 40; no commas or spaces)")
            if name in {s.name for s in BUILTIN}:
                raise GnomingError(f"{path}: strategy '{name}' would replace a preset; choose another name")
            made.append(self.register(self.from_dict(name, table, str(path))))
        return made


DEFAULT = Registry()
_in_use: list[Registry] = [DEFAULT]   # a stack: :func:`using` pushes, and pops on the way out


def current() -> Registry:
    """The registry the module functions act on: :data:`DEFAULT`, or the one :func:`using` installed."""
    return _in_use[-1]


@contextlib.contextmanager
def using(registry: Registry) -> Iterator[Registry]:
    """Make ``registry`` the one in use inside the ``with`` block (then the previous one again)."""
    _in_use.append(registry)
    try:
        yield registry
    finally:
        _in_use.remove(registry)


def names() -> list[str]:
    return current().names()


def get(name) -> Strategy:
    return current().get(name)


def register(strategy: Strategy) -> Strategy:
    return current().register(strategy)


def from_dict(name: str, table: dict, source: str = "strategies") -> Strategy:
    return current().from_dict(name, table, source)


def load_file(path) -> list[Strategy]:
    return current().load_file(path)


def _check_base_family(where: str, params: dict) -> None:
    """An MC strategy's ``mc_learned_base`` may select the learned (1) or net (2) family only with
    that family's weights (``policy`` = one of its strategies brings them): without them the base
    policy would play with every weight 0."""
    family = int(params.get("mc_learned_base", 0.0))
    need = {1: ("learned", WEIGHT_NAMES), 2: ("net", NET_WEIGHT_NAMES)}.get(family)
    if need is not None and not all(w in params for w in need[1]):
        raise GnomingError(f"{where}: parameter 'mc_learned_base' = {family} selects the {need[0]} family as the "
                           f"base policy, but the strategy has no {need[0]} weights: set policy = "
                           f"\"{need[0]}\" (a {need[0]} strategy) instead, or mc_learned_base = 0")


def _heuristic_presets() -> list[str]:
    return [s.name for s in PRESETS if s.kind == KIND_HEURISTIC]


def _param_value(where: str, key: str, value, mc: bool = False) -> float:
    """One parameter of a strategy table, checked: a finite number, or one of its choices
    (an MC strategy's ``mc_*`` settings: whole numbers, the budget >= 1)."""
    if mc and key in MC_CHOICE:
        choices = MC_CHOICE[key]
        if isinstance(value, bool) or value not in choices:
            raise GnomingError(f"{where}: parameter '{key}' must be {', '.join(map(str, choices[:-1]))} or "
                               f"{choices[-1]} ({MC_PARAM_HELP[key]}), got {value!r}")
        return float(value)
    if mc and key in MC_REAL:
        top = MC_REAL[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= top:
            raise GnomingError(f"{where}: parameter '{key}' must be a number in 0..{top:g} "
                               f"({MC_PARAM_HELP[key]}), got {value!r}")
        return float(value)
    if mc and key in MC_PARAM_HELP:
        low = MC_INTEGER[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= 1_000_000:
            raise GnomingError(f"{where}: parameter '{key}' must be an integer in {low}..1000000 "
                               f"({MC_PARAM_HELP[key]}), got {value!r}")
        return float(value)
    if key not in PARAM_HELP:
        known = PARAM_NAMES + (MC_PARAM_NAMES + ("policy",) if mc else ())
        raise GnomingError(f"{where}: unknown parameter '{key}' (known: {', '.join(known)})")
    choices = PARAM_CHOICES.get(key)
    allowed = " or ".join(map(str, choices)) if choices else "a finite number"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GnomingError(f"{where}: parameter '{key}' must be {allowed}, got {value!r}")
    if choices is not None:
        if value not in choices:
            raise GnomingError(f"{where}: parameter '{key}' must be {allowed} ({PARAM_HELP[key]}), got {value!r}")
    elif not abs(value) <= MAX_PARAM_ABS:   # not math.isfinite: it raises OverflowError on 10**400
        raise GnomingError(f"{where}: parameter '{key}' must be {allowed} in -{MAX_PARAM_ABS:.0f}.."
                           f"{MAX_PARAM_ABS:.0f}, got {value!r}")
    return float(value)
