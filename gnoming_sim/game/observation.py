"""What a player sees (RULES.md §7), as arrays handed to strategies instead of the state.

A strategy decision receives:

* ``pub``      int64[N_OBS]  public scalars, indexed by the ``O_*`` constants below
* ``vis``      int8[P, 9]   every layout as seen: the card if face up, ``HIDDEN`` if face down
* ``fd``       int64[P]     face-down cards per seat
* ``unknown``  int64[N_SLOTS] per card code, how many cards are unseen (face down anywhere or
  in the draw pile): the deck minus every card face up, on a discard pile or removed;
  slots ``U_COUNT``, ``U_FACES`` and ``U_NEGATIVES`` hold their number and face-value sums
  (priced by the rules' card values in ``kernel.scoring.unseen_cost``)
* ``scores``   int64[P]     game scores of the rounds finished so far

The true layouts and the draw pile order are never passed, so a strategy cannot reach them.
(The kernel bundles these five arrays as one record, ``kernel.state.Obs``.)
"""
from __future__ import annotations

from gnoming_sim.game.rules import LAYOUT

O_ME = 0          # seat deciding
O_PLAYERS = 1
O_ROUND = 2       # 0..2
O_TURN = 3        # turns played in this round
O_DRAW_N = 4      # cards in the draw pile
O_TOP0 = 5        # top card of discard pile 0 (NO_CARD if empty)
O_TOP1 = 6
O_PILE0_N = 7
O_PILE1_N = 8
O_FINISHER = 9    # seat that finished this round, -1 if none yet
O_STARTER = 10
O_UNKNOWN_N = 11  # total unseen cards
O_DRAWN = 12      # the card in hand (during keep / bounce / discard decisions), else NO_CARD
O_FROM_PILE = 13  # -1 if the card in hand came from the draw pile, else the pile 0/1
O_MULLIGAN_LIMIT = 14      # rules: mulligan_limit
O_MULLIGANS_PER_LINE = 15  # rules: mulligans_per_line
O_FINISH_BONUS = 16       # rules: early_finish_bonus
O_HAZARD_VALUE = 17       # rules: hazard_value
O_MULLIGAN_VALUE = 18     # rules: mulligan_value
O_NEGATIVE_MULTIPLIER = 19  # rules: negative_multiplier
N_OBS = 20

# How a decision is answered.  Positions are 0..LAYOUT-1; the one index past them
# is the "no position" answer of each decision that has one (a mask has N_CHOICES entries).
CHOICE_NOKEEP = LAYOUT    # placement: discard the card in hand instead of keeping it
CHOICE_STOP = LAYOUT      # bounce: stop the chain, discard the card in hand
CHOICE_DECLINE = LAYOUT   # hazard flip: decline the flip
N_CHOICES = LAYOUT + 1
SRC_DRAW = 0              # draw source: the draw pile; 1 + k for discard pile k
N_SOURCES = 3

# spare slots of ``unknown`` (below any card's slot) hold running totals
U_COUNT = 0  # unseen cards
U_FACES = 1      # sum of the face values of the unseen number cards (hazards and mulligans add nothing)
U_NEGATIVES = 2  # the part of U_FACES from negative cards (so the rules can price negatives apart)
U_FIRST_CARD = 3  # the card slots follow (cards.SLOT_OFFSET puts the lowest value far above)
