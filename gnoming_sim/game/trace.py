"""Action-trace format shared by the kernel (writer) and the referee (reader).

A game's trace is an int32 array of shape (n_records, 4); each record is
``(kind, seat, a, b)``.  Seats are 0-based; positions are 0..8, row-major.
Discard piles are numbered 0 and 1; draw sources are ``SRC_DRAW`` (0), ``SRC_PILE0`` (1),
``SRC_PILE1`` (2).  Cards are codes from :mod:`gnoming_sim.game.cards`.

Records, in the order the kernel writes them::

    kind            seat     a                       b
    ROUND           starter  round index 0..2        number of players
    SETUP_HAZARD    -1       0                       HAZARD   (a hazard turned up at setup, removed)
    SETUP_DISCARD   -1       pile 0/1                card turned up onto that pile
    INIT_FLIP       seat     position                card revealed
    TURN            seat     turn number in round    1 if this is a final-lap turn, else 0
    RESHUFFLE       seat     n (new draw pile size)  0        followed by n CARD records
    CARD            -1       card                    0        (new draw pile, top first)
    STALL           -1       STALL_NO_CARDS / STALL_MAX_TURNS / STALL_NO_RESHUFFLE   0
    DRAW            seat     source 0/1/2            card drawn
    PLACE           seat     position                card replaced (revealed if it was face down)
    NOKEEP          seat     0                       0
    BOUNCE          seat     target position         card replaced there
    DISCARD         seat     pile 0/1, or -1 = hazard removed   card discarded
    HAZARD_FLIP     seat     position, or -1 declined, -2 not allowed (<2 face-down)   card revealed or 0
    FINISH          seat     0                       0
    ROUND_END       -1       round index             1 if stalled else 0

A turn is ``TURN, [RESHUFFLE CARD*], DRAW, (PLACE BOUNCE* | NOKEEP), DISCARD,
[HAZARD_FLIP for each other player, in turn order from the discarder's left, when the
discard was a hazard], [FINISH]``.  A stall replaces the DRAW (``STALL_NO_CARDS``: the
reshuffle left nothing to draw; ``STALL_NO_RESHUFFLE``: the draw pile was empty and
``reshuffle_when_empty`` is off) or the TURN (``STALL_MAX_TURNS``: ``max_turns`` turns
were played).  ``ROUND_END`` follows the last turn or the stall; the reveal and scoring
are implicit.  The deal itself is not in the trace: the deck order of each round is
returned beside it (``deals[round]``: positions 9*s .. 9*s+8 are seat s's layout in
row-major order, the rest is the draw pile, top first).
"""

ROUND = 1
SETUP_HAZARD = 2
SETUP_DISCARD = 3
INIT_FLIP = 4
TURN = 5
RESHUFFLE = 6
CARD = 7
STALL = 8
DRAW = 9
PLACE = 10
NOKEEP = 11
BOUNCE = 12
DISCARD = 13
HAZARD_FLIP = 14
FINISH = 15
ROUND_END = 16

SRC_DRAW = 0
SRC_PILE0 = 1
SRC_PILE1 = 2

STALL_NO_CARDS = 0
STALL_MAX_TURNS = 1
STALL_NO_RESHUFFLE = 2

HFLIP_DECLINED = -1
HFLIP_NOT_ALLOWED = -2
DISCARD_REMOVED = -1

NAMES = {
    ROUND: "ROUND", SETUP_HAZARD: "SETUP_HAZARD", SETUP_DISCARD: "SETUP_DISCARD",
    INIT_FLIP: "INIT_FLIP", TURN: "TURN", RESHUFFLE: "RESHUFFLE", CARD: "CARD",
    STALL: "STALL", DRAW: "DRAW", PLACE: "PLACE", NOKEEP: "NOKEEP", BOUNCE: "BOUNCE",
    DISCARD: "DISCARD", HAZARD_FLIP: "HAZARD_FLIP", FINISH: "FINISH", ROUND_END: "ROUND_END",
}
