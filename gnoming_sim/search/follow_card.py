"""Where a difference from the card comes from: ``analyse --follow-card``.

The oracle (:mod:`gnoming_sim.search.evaluator`) values a decision's options with its base player playing on at
every seat.  The printed card was derived for a player who goes on playing the card, so where its answer
differs from the oracle's best, the difference can come from the position itself or from the play that
follows it.  ``--follow-card`` values the options again, on the same rollout seeds, with the ``card`` player
in the seat to move and the base player at the others (:func:`gnoming_sim.search.evaluator.seats_with`), and
sets the card's answer beside that ranking (:func:`gnoming_sim.search.card_view.compare`):

* the card's answer still separated behind the best with the card playing on: the difference comes from
  **this position** (another option is better here whoever plays on);
* the card's answer the best, or not separated from it, with the card playing on: the difference comes from
  **the play that follows** (the answer suits the card's own later play, not the base player's).

The advice stays the oracle's: this is an explanation of a difference, never a second verdict.
"""
from __future__ import annotations

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.search import evaluator

FROM_POSITION = "this position"
FROM_PLAY = "the play that follows"


def follow_policies(pos, policies) -> list:
    """The seats of the follow-card rollouts: the card in the seat to move, the base player (``policies``, one
    name, or one per seat all alike) at the others."""
    from gnoming_sim.search.card_view import CARD

    names = [getattr(p, "name", p) for p in ([policies] if isinstance(policies, str) else policies)]
    if len(set(names)) != 1:
        raise GnomingError("--follow-card puts the card in the seat to move and one base policy at the others: "
                           "give --policy one name")
    return evaluator.seats_with(pos, CARD, names[0])


def judge(view: dict, res: dict, follow: dict, options, me: int) -> dict:
    """The ``follow_card`` object of ``analyse --json``: the card's answer beside ``follow`` (the analysis with
    the card playing on in the seat to move, :func:`gnoming_sim.search.card_view.compare`'s dict as ``card``),
    and ``source``: where the difference from the oracle's verdict (``res``) comes from, :data:`FROM_POSITION`
    or :data:`FROM_PLAY`; None where the card agrees with the oracle (no difference to explain); ``me``: the
    seat to move."""
    from gnoming_sim.search.card_view import compare

    here, after = compare(view, res, options), compare(view, follow, options)
    source = None if here["agrees"] else FROM_PLAY if after["agrees"] else FROM_POSITION
    return {"me": me, "policies": follow["policies"], "n": follow["n"], "horizon": follow["horizon"],
            "adaptive": follow.get("adaptive"), "best": follow["best"], "card": after, "source": source}


def follow_line(follow: dict) -> str:
    """One plain line: the card's answer with the card playing on, and where the difference comes from."""
    c, me = follow["card"], follow["me"]
    others = sorted({p for s, p in enumerate(follow["policies"]) if s != me})
    head = (f"follow-card: with the card playing on in your seat (seat {me}; {', '.join(others) or 'no one'} at the "
            f"others; n = {follow['n']:,} rollouts per option, the same seeds): ")
    lo, hi = c["diff_ci95"]
    unit = "points of margin" if c.get("diff_on") == "margin" else c["unit"]
    if c["option"] == c["best"] or (c["agrees"] and c["diff"] == 0.0):
        said = f"the card's answer, {c['option_label']}, is the best option"
    elif c["agrees"]:
        said = (f"the card's answer, {c['option_label']}, is not separated from the best, {c['best_label']} "
                f"({c['diff']:+.2f} [{lo:.2f}, {hi:.2f}] {unit})")
    else:
        said = (f"{c['best_label']} is still {c['diff']:+.2f} [{lo:.2f}, {hi:.2f}] {unit} better than the card's "
                f"answer, {c['option_label']}")
    if follow["source"] is None:
        tail = "; the card agrees with the oracle here: no difference to explain"
    elif follow["source"] == FROM_POSITION:
        tail = "; so the difference from the card comes from this position, not from the play that follows"
    else:
        tail = (f"; so the difference from the card comes from the play that follows (the card's answer suits the "
                f"card's own later play), not from this position")
    return head + said + tail


__all__ = ["follow_policies", "judge", "follow_line", "FROM_POSITION", "FROM_PLAY"]
