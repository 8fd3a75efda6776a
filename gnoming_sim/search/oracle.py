"""The oracle: the one answer to "how good is each option here" behind every piece of advice.

``analyse``, ``review``, the board, the drills, the studies' decision values, the rules and the card's
derivation all value options here, and nowhere else:

* the **base player** of the rollouts is :data:`BASE`, the strongest fast player (``net``: it beats
  ``learned``, the next on the ladder, at 2, 4 and 6 players on held-out deals: tuning/net/README.md and
  the report's strength ladder, reports/ladder-ratings.csv), at every seat;
* the **criterion** is :data:`HORIZON` ``"game"``: the chance of winning the game, options of equal win
  chance by the margin over the rivals (:mod:`gnoming_sim.search.criterion`).

Another base player is a parameter of the same oracle (``policies``), never another code path: the card's
derivation values a cell with the ``card`` player in the seat that follows it (:func:`seats_with`), and
``analyse --follow-card`` (:mod:`gnoming_sim.search.follow_card`) shows whether a difference from the card
comes from the position or from the play that follows it.

The estimates are :func:`gnoming_sim.search.analyse.summarize`'s: rollout i is one unit (one deal of the
unseen cards and one play stream, common to every option), each option's win chance and its difference
to the best with a paired 95% interval.
"""
from __future__ import annotations

from gnoming_sim.search import criterion

BASE = criterion.BASE                # the oracle's base player (every seat of the rollouts): net
HORIZON = criterion.ORACLE_HORIZON   # the criterion: the chance of winning the game
CRITERION = criterion.CRITERION[HORIZON]
UNIT = criterion.UNIT[HORIZON]


def seats_with(pos, strategy, base=BASE) -> list:
    """One policy per seat of ``pos``: ``strategy`` (a name or a Strategy) in the seat to move, ``base``
    elsewhere: the rollouts in which the player to move goes on playing ``strategy``."""
    return [strategy if p == pos.me else base for p in range(pos.players)]


def setup(pos, options=None, policies=None):
    """The rollout inputs (:class:`gnoming_sim.search.analyse.Setup`) of ``pos``: every legal option, or
    those of ``options`` (option keys, such as ``"pos3"``/``"draw"``/``"discard"``, in that order)."""
    from gnoming_sim.game.errors import GnomingError
    from gnoming_sim.search.analyse import setup as _setup

    s = _setup(pos, BASE if policies is None else policies)
    if options is None:
        return s
    keys = [o.key for o in s.options]
    missing = [k for k in options if k not in keys]
    if missing:
        raise GnomingError(f"not a legal option here: {', '.join(map(str, missing))} (legal: {', '.join(keys)})")
    return s.only([keys.index(k) for k in options])


def values(pos, options=None, *, rollouts: int = 200, seed: int = 0, first: int = 0, policies=None,
           threads: int | None = None, truncated: bool = False) -> dict:
    """Every option of ``pos`` (or those keyed in ``options``) valued by ``rollouts`` rollouts of the base
    player (``policies``: another one, or one per seat) to the end of the game, ranked by the chance of
    winning: :func:`gnoming_sim.search.analyse.summarize`'s dict (``options`` rows with ``mean`` win chance
    in percent, ``diff``/``diff_ci95`` behind the best in pp, ``best``).  ``truncated``: each rollout plays
    this round out and ends in the value network's chance of winning at the next round's first decision
    (the same round as the full rollout of its index; the last round's rollouts are full ones)."""
    from gnoming_sim.search.analyse import run_rollouts, summarize

    s = setup(pos, options, policies)
    out, cov = run_rollouts(s, rollouts, seed, first, HORIZON, True, False, threads, truncated=truncated)
    return summarize(out, cov, s, pos, HORIZON)


def win_samples(pos, options=None, *, rollouts: int = 200, seed: int = 0, first: int = 0, policies=None,
                threads: int | None = None, truncated: bool = False):
    """(keys, win float64[rollouts, K] in {0, shares, 1}): the raw win credit of each rollout and option, common
    random numbers across the options (rollout i of every option shares its deal and play stream), for
    estimators that pool decisions (the rules, the card's derivation, the agreement table)."""
    from gnoming_sim.search.analyse import run_rollouts
    from gnoming_sim.search.rollout import X_WIN

    s = setup(pos, options, policies)
    out, _ = run_rollouts(s, rollouts, seed, first, HORIZON, True, False, threads, truncated=truncated)
    return [o.key for o in s.options], out[:, :, X_WIN].copy()
