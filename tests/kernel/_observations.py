"""A hand-made observation for the policy tests (test_learned, test_card_starred): seat 0 to move, the layouts as
seen, one mulligan allowed per line, and the unseen cards four each of 3..8."""
import numpy as np

from gnoming_sim.game.cards import HIDDEN, N_SLOTS, SLOT_OFFSET
from gnoming_sim.game.observation import N_OBS, O_FINISHER, O_HAZARD_VALUE, O_ME, O_MULLIGAN_LIMIT, \
    O_MULLIGANS_PER_LINE, O_NEGATIVE_MULTIPLIER, O_PLAYERS, U_COUNT, U_FACES
from gnoming_sim.kernel.state import Obs


def observation(rows, fd=None, finisher=-1):
    """The :class:`Obs` of layouts ``rows`` (HIDDEN = face down); ``fd`` face-down counts (default: counted)."""
    P = len(rows)
    vis = np.array(rows, dtype=np.int8)
    pub = np.zeros(N_OBS, dtype=np.int64)
    pub[O_ME] = 0
    pub[O_PLAYERS] = P
    pub[O_FINISHER] = finisher
    pub[O_MULLIGAN_LIMIT] = 1
    pub[O_MULLIGANS_PER_LINE] = 1
    pub[O_HAZARD_VALUE] = 10        # the published card values
    pub[O_NEGATIVE_MULTIPLIER] = 1
    fd = np.array([(r == HIDDEN).sum() for r in vis] if fd is None else fd, dtype=np.int64)
    unknown = np.zeros(N_SLOTS, dtype=np.int64)
    for v in (3, 4, 5, 6, 7, 8):
        unknown[v + SLOT_OFFSET] = 4
    unknown[U_COUNT] = 24
    unknown[U_FACES] = 4 * (3 + 4 + 5 + 6 + 7 + 8)
    return Obs(pub, vis, fd, unknown, np.zeros(P, dtype=np.int64))
