"""Per (game, round, seat) result fields: column index constants of ``round_stats``.

``round_stats`` has shape (games, 3, players, N_FIELDS), dtype int32.  ``F_SCORE`` is
the round score including the early-finish bonus and equals
``F_MATCHED + F_UNMATCHED + F_NEGATIVES + F_HAZARDS + F_BONUS``.
"""

F_SCORE = 0        # round score, bonus included
F_MATCHED = 1      # sum over matched lines of -value (<= 0)
F_UNMATCHED = 2    # sum of positive cards in no matched line
F_NEGATIVES = 3    # sum of negative cards
F_HAZARDS = 4      # +10 per hazard left in the layout
F_FINISHER = 5     # 1 if this seat finished the round (also when the final lap then stalls)
F_BONUS = 6        # -5, +5 or 0
F_TURNS = 7        # turns this seat took in the round
F_STALLED = 8      # 1 if the round stalled (same for every seat)
F_START_SEAT = 9   # seat that started the round (same for every seat)
F_LINES = 10       # number of matched lines (0..6)
F_FINISH_TURN = 11  # turn number of the round in which the finisher finished; -1 if nobody did
F_VISIBLE_AT_FINISH = 12   # this seat's score counting face-up cards only, when the finisher
                           # finished (face-down cards 0, lines need 3 face-up cards); 0 if none
F_FACEDOWN_AT_FINISH = 13  # this seat's face-down cards at that moment; -1 if nobody finished
N_FIELDS = 14

NAMES = ("score", "matched", "unmatched", "negatives", "hazards", "finisher", "bonus",
         "turns", "stalled", "start_seat", "lines", "finish_turn", "visible_at_finish",
         "facedown_at_finish")
