"""Whether a game record (:mod:`gnoming_sim.game.record`) tells a game that can happen: its trace
(:func:`gnoming_sim.game.record_trace.build`) replayed by the referee, and the scores of the rounds it
finishes.  A fault is one GnomingError line naming the record's turn and field."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gnoming_sim.game.deck import Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.fields import F_SCORE
from gnoming_sim.game.record import Record
from gnoming_sim.game.record_trace import build
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.reference.referee import RefereeError, replay_prefix


@dataclass
class Checked:
    """A record that can happen: ``deals`` int8[3, N] and ``trace`` int32[n, 4] of it, and
    ``round_scores`` [finished round][seat], the referee's scores of the rounds it finishes."""

    record: Record
    deals: np.ndarray
    trace: np.ndarray
    round_scores: list


def check(record: Record, rules: RuleConfig, deck: Deck) -> Checked:
    """Build the record's trace and replay it with the referee; GnomingError at the first fault."""
    try:
        deck.validate_for(record.players)
    except GnomingError as exc:
        raise GnomingError(f"{record.origin}: field 'players': {exc}") from None
    built = build(record, rules, deck)
    try:
        rows = replay_prefix(built.deals, built.trace, rules, record.players, deck.to_array().tolist())
    except RefereeError as exc:
        if 0 <= exc.record < len(built.origins):
            where, field = built.origins[exc.record]
            raise GnomingError(f"{where}: field '{field}': {exc.reason}") from None
        raise GnomingError(f"{record.origin}: {exc.reason}") from None
    if built.error:
        raise GnomingError(built.error)
    scores = [[int(row[F_SCORE]) for row in rnd] for rnd in rows]
    return Checked(record, built.deals, built.trace, scores)
