"""Why one option beats another: the component that makes the difference, and narrated sample
continuations of both on the same cards (``analyse --why``, and each graded decision of ``review``).

Components.  Every rollout of an option records the player's round score, its early-finish bonus and
the mean of the rivals' round scores (:mod:`gnoming_sim.search.rollout`, ``X_SCORE``, ``X_BONUS``,
``X_RIVALS``).  The difference of two options, rollout by rollout on common random numbers, splits
the player's margin over the rivals (own round score minus the rivals' mean; lower is better)
exactly into

    own cards (the round score before the bonus)  +  the finishing bonus  +  the rivals' points held back

(the last is minus the change of the rivals' mean round score), each a paired mean over the rollouts with
its 95% interval (rollouts are the independent units).  One sign for every row: positive is worse for the
player (more own points, fewer rival points, a smaller chance of winning).
The component with the largest share of the margin's change is named as the one that makes the
difference.  With ``horizon="game"`` the later rounds and the chance of winning are added.  A part that
cannot differ between two options at the position, whatever the rollouts, is left out and said to be
(:func:`fixed_parts`): the bonus where the rules give none or another seat has already finished, the later
rounds in the game's last round.  Which parts those are is decided by the position and the rules, never by a
difference that happens to round to zero.

Continuations.  A continuation is one rollout replayed with its action trace
(:func:`gnoming_sim.search.rollout.traced_rollout`): the very rollout ``i`` of the option in the
analysis, so the two options' stories share the hidden cards and the play stream (common random
numbers).  The samples are the rollouts at the quartiles of the margin's paired difference (a
typical one, and one either side), each kept as its trace and its entered table's cards; the
command line tells them to the end of the round in the words of ``play``
(:mod:`gnoming_sim.cli.why_text`, over the one trace walker, which checks every card of the trace
against the dealt table).
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.stats import mean_ci
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import Position
from gnoming_sim.game.rules import ROUNDS
from gnoming_sim.search import evaluator

SAMPLES = 3
TRACE_CAP = 16_384
QUANTILES = (0.5, 0.25, 0.75)
# the components in words (every row: positive = worse for the player)
NAMES = {"own": "own cards (round score before the bonus)", "bonus": "the early-finish bonus",
         "rivals": "the rivals' points held back (minus their mean round score's change)",
         "margin": "margin over the rivals (own round score minus the rivals' mean)",
         "later": "your later rounds", "win": "chance of winning the game lost"}
QUANTILE_NAMES = {0.5: "a typical continuation (the median difference)",
                  0.25: "a continuation at the lower quartile of the difference",
                  0.75: "a continuation at the upper quartile of the difference"}


def _paired(x: np.ndarray) -> dict:
    m, lo, hi, _ = mean_ci(x)
    return {"diff": float(m), "ci95": [float(lo), float(hi)]}


def fixed_parts(pos: Position, horizon: str) -> dict[str, str]:
    """The components that are zero in every rollout of every option at ``pos`` by construction, each with why:
    ``"bonus"`` where the rules give no early-finish bonus or another seat has already finished (only the
    finisher scores the bonus, and the player to move can no longer be the one), ``"later"`` in the game's last
    round (with ``horizon="game"``: there is no later round).  The later rounds of an earlier round can differ:
    they are dealt alike in both options, but a reshuffle in this round (or a random base policy) moves the play
    stream they go on with."""
    fixed = {}
    if pos.rules.early_finish_bonus == 0:
        fixed["bonus"] = "the rules give no early-finish bonus"
    elif pos.finisher >= 0:
        fixed["bonus"] = f"seat {pos.finisher} has finished this round, so you cannot earn it"
    if horizon == "game" and pos.round == ROUNDS - 1:
        fixed["later"] = "this is the game's last round"
    return fixed


def components(out_a: np.ndarray, out_b: np.ndarray, scores0_me: float, horizon: str,
               fixed: dict[str, str] | None = None) -> list[dict]:
    """The paired differences of option b against option a (rollout rows ``out_*`` float64[n, N_X]) of each
    component of the margin over the rivals, then the margin itself (and with ``horizon="game"`` the later
    rounds and the chance of winning), every one signed so that positive is worse for the player; the
    components named in ``fixed`` (:func:`fixed_parts`: they cannot differ) are left out."""
    from gnoming_sim.search.rollout import X_BONUS, X_GAME, X_RIVALS, X_SCORE, X_WIN

    own = lambda o: o[:, X_SCORE] - o[:, X_BONUS]   # noqa: E731
    rows = [("own", own(out_b) - own(out_a)),
            ("bonus", out_b[:, X_BONUS] - out_a[:, X_BONUS]),
            ("rivals", out_a[:, X_RIVALS] - out_b[:, X_RIVALS]),
            ("margin", (out_b[:, X_SCORE] - out_b[:, X_RIVALS]) - (out_a[:, X_SCORE] - out_a[:, X_RIVALS]))]
    if horizon == "game":
        later = lambda o: o[:, X_GAME] - scores0_me - o[:, X_SCORE]   # noqa: E731
        rows += [("later", later(out_b) - later(out_a)), ("win", out_a[:, X_WIN] - out_b[:, X_WIN])]
    rows = [(k, NAMES[k], x) for k, x in rows]
    return [{"key": k, "name": name, "n": int(x.size), **_paired(x)} for k, name, x in rows
            if k not in (fixed or {})]


def deciding(comps: list[dict]) -> dict:
    """The component of the margin's change (own cards, bonus, rivals: margin = own + bonus + rivals)
    with the largest share, as ``{"key", "name", "share", "text"}``."""
    by = {c["key"]: c["diff"] for c in comps}
    parts = {k: by[k] for k in ("own", "bonus", "rivals") if k in by}   # a part left out cannot differ: 0
    total = sum(abs(v) for v in parts.values())
    key = max(parts, key=lambda k: abs(parts[k]))
    share = abs(parts[key]) / total if total > 0 else 0.0
    words = {"own": "your own cards", "bonus": "the early-finish bonus", "rivals": "what the rivals score"}
    return {"key": key, "name": words[key], "share": share,
            "text": f"{words[key]} ({100 * share:.0f}% of the margin's change, by absolute parts)"}


def explain(pos: Position, keys: list[str], policies=evaluator.BASE, seed: int = 0, rollouts: int = 2000,
            samples: int = SAMPLES, horizon: str = evaluator.HORIZON, threads: int | None = None) -> dict:
    """Why option ``keys[0]`` (the reference, e.g. the best) and ``keys[1]`` (e.g. the one played)
    differ at ``pos``: their components over ``rollouts`` paired rollouts (:func:`gnoming_sim.search.evaluator.rollouts`;
    seeds as ``analyse`` with ``seed``: the same rollouts as its analysis) and ``samples`` narrated continuations of each.

    Returns ``{"options": [{"key", "label"}] * 2, "n", "policies", "horizon", "components": [...],
    "omitted": [{"key", "name", "why"}] (the parts that cannot differ here, :func:`fixed_parts`), "deciding": {...}, "samples": [{"rollout", "why_chosen", "diff", "stories": [{"key", "label",
    "score", "rivals", "trace", "stats", "snap"}, ...]}]}`` (:func:`continuation`; the arrays become
    lines with :func:`gnoming_sim.cli.why_text.tell_samples`)."""
    from gnoming_sim.search.rollout import X_RIVALS, X_SCORE

    if len(keys) != 2 or keys[0] == keys[1]:
        raise GnomingError("--why compares two different options")
    policies = [policies] if isinstance(policies, str) else list(policies)
    try:
        s2, out, _ = evaluator.rollouts(pos, evaluator.Settings(policies=tuple(policies), horizon=horizon,
                                                                budget=rollouts, seed=seed), keys, threads)
    except GnomingError as exc:
        raise GnomingError(f"--why: {exc}") from None
    me = pos.me
    fixed = fixed_parts(pos, horizon)
    comps = components(out[:, 0], out[:, 1], float(pos.scores[me]), horizon, fixed)
    margin = (out[:, 1, X_SCORE] - out[:, 1, X_RIVALS]) - (out[:, 0, X_SCORE] - out[:, 0, X_RIVALS])
    order = np.argsort(margin, kind="stable")
    picked: list[tuple[int, float]] = []
    for q in QUANTILES[:max(0, samples)]:
        i = int(order[min(len(order) - 1, int(q * (len(order) - 1) + 0.5))])
        if all(i != j for j, _ in picked):
            picked.append((i, q))
    names = [getattr(p, "name", p) for p in policies]
    stories = []
    for i, q in picked:
        told = [{"key": key, "label": s2.options[j].label, **continuation(pos, s2, j, i, seed, horizon)}
                for j, key in enumerate(keys)]
        stories.append({"rollout": i, "why_chosen": QUANTILE_NAMES[q], "diff": float(margin[i]), "stories": told})
    return {"options": [{"key": o.key, "label": o.label} for o in s2.options], "n": int(out.shape[0]),
            "seed": seed, "policies": names, "horizon": horizon, "components": comps,
            "omitted": [{"key": k, "name": NAMES[k], "why": why} for k, why in fixed.items()],
            "deciding": deciding(comps), "samples": stories}


def continuation(pos: Position, s, j: int, i: int, seed: int, horizon: str) -> dict:
    """Rollout ``i`` of option ``j`` of setup ``s`` as ``{"trace", "stats", "snap", "score", "rivals"}``:
    its action trace from the decision on, its round stats, the entered table's cards (what
    :func:`gnoming_sim.cli.why_text.tell` turns into a story), the player's round score and the rivals' mean."""
    from gnoming_sim.game.fields import F_SCORE

    P = pos.players
    tr, res, snap = traced(pos, s, j, i, seed, horizon)
    mine = int(res[pos.round, pos.me, F_SCORE])
    rivals = float(np.mean([res[pos.round, q, F_SCORE] for q in range(P) if q != pos.me]))
    return {"trace": tr, "stats": res, "snap": snap, "score": mine, "rivals": rivals}


def traced(pos: Position, s, j: int, i: int, seed: int, horizon: str):
    """(trace int32[n, 4], round stats, the entered table's snapshot) of rollout ``i`` of option ``j``
    of setup ``s`` (:func:`gnoming_sim.search.rollout.traced_rollout`)."""
    from gnoming_sim.game.fields import N_FIELDS
    from gnoming_sim.search.rollout import N_C, N_X, snapshot_size, traced_rollout

    P, N = pos.players, pos.deck.size
    roll = s.roll._replace(options=np.ascontiguousarray(s.roll.options[j:j + 1]), horizon_game=horizon == "game",
                           crn=True, align=True, peek=False)
    out = np.empty((1, 1, N_X), dtype=np.float64)
    cov = np.empty((1, N_C), dtype=np.float64)
    tr = np.zeros((TRACE_CAP, 4), dtype=np.int32)
    res = np.zeros((ROUNDS, P, N_FIELDS), dtype=np.int32)
    snap = np.zeros(snapshot_size(P, N), dtype=np.int64)
    n = int(traced_rollout(i, np.uint64(seed), s.start, roll, out, cov, tr, res, snap))
    return tr[:min(n, TRACE_CAP)], res, snap


