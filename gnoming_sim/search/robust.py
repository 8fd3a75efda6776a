"""Does an analysis's verdict hold under another base policy?

A rollout value is conditional on the base policy that plays after the option.  ``analyse``
therefore rolls the same position out a second time, under a second base policy, on the same
rollout seeds (rollout *i* deals the same hidden cards and draws from the same play stream under
both), and :func:`compare` says whether the recommended option is the same under both:
*robust*, or *depends on the policy*.

The recommended option of one analysis is the one its verdict names (rank 1 by
:func:`gnoming_sim.search.criterion.order`: win chance with the game horizon, margin with the round's);
options equal to it in every rollout (``same_as_best``: the verdict's ties) count as the same
recommendation.  Whether each verdict is separated at its budget is reported beside it: a
"depends on the policy" between two unseparated verdicts may be noise.
"""
from __future__ import annotations

ROBUST, DEPENDS = "robust", "depends on the policy"


def seat_policies(policies, players: int) -> list[str]:
    """The base policy of every seat: one name for all seats, or one per seat, as names."""
    names = [policies] if isinstance(policies, str) else [getattr(p, "name", p) for p in policies]
    return names * players if len(names) == 1 else names


def label(policies) -> str:
    """A base policy in one word: its name when every seat plays it, else the seats' names A,B,..."""
    names = [policies] if isinstance(policies, str) else list(policies)
    return names[0] if len(set(names)) == 1 else ",".join(names)


def recommended(res: dict) -> set[str]:
    """The keys an analysis recommends: its best option and the options equal to it in every rollout."""
    return {res["best"], *res.get("equivalent", [])}


def ranking(res: dict) -> list[dict]:
    """The options of one analysis, best first (the rank :func:`gnoming_sim.search.estimates.summarize` gave
    each by :func:`gnoming_sim.search.criterion.order`), each with its rank, criterion value (``mean``),
    95% interval and n."""
    order = sorted(range(len(res["options"])), key=lambda k: res["options"][k]["rank"])
    ranked = []
    for rank, k in enumerate(order, 1):
        r = res["options"][k]
        ranked.append({"rank": rank, "key": r["key"], "option": r["option"], "mean": r["mean"], "ci95": r["ci95"],
                       "n": r["n"], "best": r["best"], "same_as_best": r["same_as_best"]})
    return ranked


def compare(first: dict, second: dict) -> dict:
    """The robustness record of two analyses of one position on the same rollout seeds: the verdict
    (:data:`ROBUST` when the two recommendations share an option, else :data:`DEPENDS`), each best
    option, whether each verdict is separated, and both rankings."""
    same = bool(recommended(first) & recommended(second))
    return {
        "verdict": ROBUST if same else DEPENDS, "robust": same,
        "policies": [label(first["policies"]), label(second["policies"])],
        "best": [first["best"], second["best"]],
        # None: no other option differs from the best in any rollout (nothing to separate)
        "separated": [first.get("separated"), second.get("separated")],
        "rankings": [ranking(first), ranking(second)],
        "second": second,
    }
