"""Each rule-bearing constant and helper is defined once: a second module-level
definition of a guarded name anywhere in the package or the studies fails here.

The allowed homes are the one definition, and for a rule the kernel's jitted copy and the
referee's independent one (the referee is the second implementation that keeps the kernel
honest, so it must not share the kernel's code).  A new rule-bearing name belongs in GUARDED.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

import gnoming_sim

from _sources import tree

PACKAGE = Path(gnoming_sim.__file__).parent
ANALYSES = Path(__file__).resolve().parents[1] / "analyses"

# name -> the files (relative to the repository) allowed to define it at module level
GUARDED = {
    # statistics (gnoming_sim/stats.py): one z, one Wilson interval, one mean interval, one Holm (of p-values
    # or of intervals), one BH, one equivalence test and its words, one estimate of the studies
    "Z95": {"gnoming_sim/stats.py"},
    "wilson": {"gnoming_sim/stats.py"},
    "mean_ci": {"gnoming_sim/stats.py"},
    "mean_ci_t": {"gnoming_sim/stats.py"},
    "holm": {"gnoming_sim/stats.py"},
    "Estimate": {"gnoming_sim/stats.py"},
    "bh": {"gnoming_sim/stats.py"},
    "tost": {"gnoming_sim/stats.py"},
    "equivalence_word": {"gnoming_sim/stats.py"},
    # one test of "do the parts agree", one word for "holds under", one preview word
    "heterogeneity": {"gnoming_sim/stats.py"},
    "holds_under": {"analyses/framework/words.py"},
    # one word for an answer along the ladder, one place that names the ladder's players
    "convergence": {"analyses/framework/words.py"},
    "STRONG_LADDER": {"analyses/framework/design.py"},
    "TOP_DIFFERENCE": {"analyses/framework/design.py"},
    "_settled": {"analyses/finish_play_on/findings.py"},
    "PREVIEW": {"analyses/framework/words.py"},
    # the one ranking of a decision's options: analyse, review and the robustness check
    "sort_key": {"gnoming_sim/search/criterion.py"},
    # limits of a run
    "MAX_SEED": {"gnoming_sim/game/limits.py"},
    "MAX_GAME": {"gnoming_sim/game/limits.py"},
    # one error-message helper
    "one_line": {"gnoming_sim/game/errors.py"},
    "_one_line": set(),
    # card cost (RULES.md §5, the card-value options): game's on a RuleConfig, the kernel's jitted copy
    # on the rules' ints (score_parts, visible_score, the estimates and unseen_cost all call it), and
    # the referee's own
    "HAZARD_PENALTY": {"gnoming_sim/game/rules.py"},
    "HAZARD_POINTS": set(),
    "card_cost": {"gnoming_sim/game/cards.py", "gnoming_sim/kernel/scoring.py"},
    "unmatched_points": {"gnoming_sim/reference/scoring.py"},
    "unseen_cost": {"gnoming_sim/kernel/scoring.py"},
    "card_costs": set(),
    "_cost": set(),
    # win credit (RULES.md §6): the kernel's settling (and its driver for rows read back), the referee's
    "settle_game": {"gnoming_sim/kernel/game_loop.py"},
    "win_credit": {"gnoming_sim/kernel/win_credit.py", "gnoming_sim/reference/scoring.py"},
    "win_credit_from_scores": set(),
    # the mulligan limit and the hazard-flip minimum (RULES.md §3); the kernel compiles the one
    # definition (kernel/scoring.mulligan_allowed) for the turn and the heuristic alike
    "mulligan_placeable": {"gnoming_sim/game/rules.py"},
    "_mulligan_placeable": set(),
    "HAZARD_FLIP_MIN_FACE_DOWN": {"gnoming_sim/game/rules.py"},
}


@functools.cache
def _definitions() -> dict[str, list[str]]:
    """name -> the files that define it at module level (def, class, or assignment); read once, by a worker that
    runs these tests, not at collection."""
    found: dict[str, list[str]] = {}
    root = PACKAGE.parent
    for base in (PACKAGE, ANALYSES):
        for path in sorted(base.rglob("*.py")):
            rel = str(path.relative_to(root))
            for node in tree(path).body:
                names = []
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names = [node.name]
                elif isinstance(node, ast.Assign):
                    names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    names = [node.target.id]
                for name in names:
                    found.setdefault(name, []).append(rel)
    return found


@pytest.mark.parametrize("name", sorted(GUARDED))
def test_a_guarded_name_is_defined_only_in_its_homes(name):
    extra = sorted(set(_definitions().get(name, [])) - GUARDED[name])
    assert not extra, f"{name} is defined again in {extra}; import it from {sorted(GUARDED[name]) or 'nowhere'}"


@pytest.mark.parametrize("name", sorted(n for n, homes in GUARDED.items() if homes))
def test_every_home_still_defines_it(name):
    """Guards the list itself: a home that no longer defines the name is stale."""
    assert sorted(_definitions().get(name, [])) == sorted(GUARDED[name])


def test_the_scan_sees_definitions_in_both_trees():
    """The scan is not blind: it finds module-level defs and assignments, in the package and the studies."""
    defined = _definitions()
    assert "gnoming_sim/kernel/scoring.py" in defined["card_cost"]
    assert any(p.startswith("analyses/") for defs in defined.values() for p in defs)


@pytest.mark.parametrize("options", [{}, {"hazard_value": 15}, {"mulligan_value": -3},
                                     {"negative_multiplier": 0}, {"negative_multiplier": 3, "hazard_value": 1}])
def test_the_kernels_card_cost_reads_the_same_rule_as_the_games(options):
    """The game's, the kernel's and the referee's card cost agree under the published and other card values."""
    from gnoming_sim.game.cards import HAZARD, MULLIGAN, card_cost
    from gnoming_sim.game.rules import R_HAZARD_VALUE, R_MULLIGAN_VALUE, R_NEGATIVE_MULTIPLIER, RuleConfig
    from gnoming_sim.kernel.scoring import card_cost as kernel_card_cost
    from gnoming_sim.reference.scoring import unmatched_points

    rules = RuleConfig(**options)
    a = rules.to_array()
    values = (a[R_HAZARD_VALUE], a[R_MULLIGAN_VALUE], a[R_NEGATIVE_MULTIPLIER])
    codes = [HAZARD, MULLIGAN, *range(-20, 21)]
    game = [card_cost(c, rules) for c in codes]
    assert [kernel_card_cost(c, *values) for c in codes] == game == [unmatched_points(c, rules) for c in codes]
    assert game[0] == rules.hazard_value and game[1] == rules.mulligan_value
    assert card_cost(-4, rules) == -4 * rules.negative_multiplier
