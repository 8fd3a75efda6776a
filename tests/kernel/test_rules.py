"""The pocket rules (KIND_RULES): each printed sentence against the code that plays it (worked positions with
explicit settings), the committed settings against the sentences docs/rules.md prints, and whole games in which
the rules seat answers every kind of decision a game asks."""
from pathlib import Path

import numpy as np
import pytest

from gnoming_sim.game import trace as T
from gnoming_sim.game.cards import HAZARD, HIDDEN, MULLIGAN, NO_CARD
from gnoming_sim.game.observation import CHOICE_DECLINE, CHOICE_NOKEEP, CHOICE_STOP, N_CHOICES, N_SOURCES, \
    O_FROM_PILE, O_ROUND, O_TOP0, SRC_DRAW
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy import rules
from gnoming_sim.kernel.policy.dispatch import KIND_RULES, R_W0
from _observations import observation

H_ = HIDDEN
ROOT = Path(__file__).resolve().parents[2]


def _prm(**settings):
    return registry.rules_strategy({f"rules.{k}": v for k, v in settings.items()}).param_vector()


def _obs(rows, tops=(NO_CARD, NO_CARD), from_pile=-1, rnd=0):
    obs = observation(rows)
    obs.pub[O_TOP0], obs.pub[O_TOP0 + 1] = tops
    obs.pub[O_FROM_PILE] = from_pile
    obs.pub[O_ROUND] = rnd
    return obs


def _source(prm, obs):
    return rules.draw_source(prm, R_W0, obs, np.ones(N_SOURCES, dtype=np.int8))


def _place(prm, obs, card, throw=True):
    legal = np.ones(N_CHOICES, dtype=np.int8)
    legal[CHOICE_NOKEEP] = 1 if throw else 0
    return rules.placement(prm, R_W0, obs, np.int64(card), legal)


RIVAL = [3, 4, H_, H_, H_, H_, H_, H_, H_]
ROW_PAIR = [7, H_, H_, 3, 8, 4, 6, 3, 5]             # a 7 on position 1 or 2 pairs the top row; 2 face down ...
ROW_PAIR4 = [7, H_, H_, 3, H_, 4, 6, H_, 5]          # ... and 4 face down


def test_the_take_rule():
    """Take a pile's card when it completes a line, is negative or a mulligan, or pairs a line while at least
    take_pair_fd of your cards are face down; else draw blind."""
    prm = _prm(take_low=-1, take_mulligan=1, take_complete=1, take_pair_fd=3, take_lower=99)
    completes = _obs([[5, 5, H_, 3, 8, 4, 6, 7, 3], RIVAL], tops=(5, 8))
    assert _source(prm, completes) == 1                                     # pile 0's 5 completes the top row
    assert _source(_prm(take_complete=0, take_pair_fd=99), completes) == SRC_DRAW
    assert _source(prm, _obs([ROW_PAIR4, RIVAL], tops=(8, 7))) == 2          # pairs, 4 face down: take pile 1
    assert _source(prm, _obs([ROW_PAIR, RIVAL], tops=(8, 7))) == SRC_DRAW    # pairs, 2 face down: draw
    assert _source(_prm(take_pair_fd=3), _obs([[7, H_, H_, 3, H_, 4, 6, 8, 5], RIVAL], tops=(8, 7))) == 2
    assert _source(prm, _obs([ROW_PAIR, RIVAL], tops=(-2, 8))) == 1          # a negative card
    assert _source(prm, _obs([ROW_PAIR, RIVAL], tops=(MULLIGAN, 8))) == 1    # a mulligan
    assert _source(_prm(take_mulligan=0), _obs([ROW_PAIR, RIVAL], tops=(MULLIGAN, 8))) == SRC_DRAW
    assert _source(prm, _obs([ROW_PAIR, RIVAL], tops=(3, 8))) == SRC_DRAW    # a 3 with no use: draw
    late = _prm(take_pair_fd=3, take_round=2)
    assert _source(late, _obs([ROW_PAIR4, RIVAL], tops=(8, 7), rnd=1)) == SRC_DRAW
    assert _source(late, _obs([ROW_PAIR4, RIVAL], tops=(8, 7), rnd=2)) == 2


def test_where_a_kept_card_goes():
    """Where it completes a line, else where it pairs a line (a face-down place first with pair_fd), else on a
    face-down card outside the lines that hold a pair (the first in reading order); over a face-up card it lowers
    only by place_lower or more."""
    prm = _prm(place_uses=1, place_lower=99, keep_max=8)
    assert _place(prm, _obs([[5, 5, H_, 3, H_, 4, 6, 7, 3], RIVAL], from_pile=0), 5) == 2    # completes (4 pairs)
    assert _place(prm, _obs([ROW_PAIR4, RIVAL], from_pile=0), 7) == 1                      # pairs the top row
    rows = [[H_, 8, H_, 3, 3, 4, 6, H_, 5], RIVAL]
    assert _place(prm, _obs(rows, from_pile=0), 7) == 0   # a 7 pairs nothing: the first face-down card
    pair_rows = [[H_, 8, 8, H_, 3, 4, 6, H_, 5], RIVAL]   # position 0 is in the top row, which holds a pair of 8s:
    assert _place(prm, _obs(pair_rows, from_pile=0), 7) == 3   # the first face-down card outside it
    lowers = [[8, 5, 4, 7, H_, 6, H_, 4, 5], RIVAL]       # a 3 pairs and completes nothing here
    assert _place(prm, _obs(lowers, from_pile=0), 3) == 4                                   # face-down first
    assert _place(_prm(place_lower=3, keep_max=8), _obs(lowers, from_pile=0), 3) == 0       # 8 -> 3 lowers by 5
    assert _place(_prm(place_uses=0), _obs([ROW_PAIR4, RIVAL], from_pile=0), 7) == 1        # default: face down
    two = _obs([[7, H_, 8, 3, H_, 4, 6, 5, H_], RIVAL], from_pile=0)   # a 7 pairs the top row at 1 and over the 8
    assert _place(_prm(pair_fd=1), two, 7) == 1                                            # face-down first
    assert _place(_prm(pair_fd=0), two, 7) == 2                                            # else the lower score


def test_keep_or_throw_a_blind_draw():
    """A blind draw with no use goes face down when its value is at most keep_max or while you have keep_fd or
    more cards face down, else it is thrown away; a hazard drawn blind is thrown away (hazard 0)."""
    rows = [[H_, 8, 4, 7, H_, 5, 3, 3, 8], RIVAL]          # 2 face down; a 6 pairs nothing
    prm = _prm(keep_max=-1, keep_fd=5, hazard=0)
    assert _place(prm, _obs(rows), 6) == CHOICE_NOKEEP
    assert _place(prm, _obs(rows), -2) == 0
    assert _place(_prm(keep_max=6, keep_fd=99), _obs(rows), 6) == 0
    assert _place(_prm(keep_max=-1, keep_fd=2), _obs(rows), 6) == 0
    assert _place(prm, _obs(rows), HAZARD) == CHOICE_NOKEEP
    assert _place(_prm(hazard=1), _obs(rows), HAZARD) == 0
    assert _place(prm, _obs(rows), 6, throw=False) in (0, 4)   # a pile card must be kept: face down


def test_finish_or_play_on():
    """Finish when your score after finishing minus the best rival's visible score is below finish_gap, or below
    finish_gap2 while the rivals average finish_rival_fd or more cards face down; else play on."""
    me = [3, 4, 5, 6, 7, 8, 3, 4, H_]           # 40 visible; finishing with a -1: 39
    rival = [8, 8, 7, H_, H_, H_, H_, H_, H_]    # visible 23: gap 16
    obs = _obs([me, rival])
    gap, ofd = rules.finish_gap(obs, 8, -1)
    assert (gap, ofd) == (16.0, 6.0)
    assert _place(_prm(finish_gap=17, finish_gap2=0), obs, -1) == 8
    # play on: with one card face down a kept card goes over a face-up card it lowers (the 8: rule 3), ...
    assert _place(_prm(finish_gap=16, finish_gap2=0, late_fd=1, late_lower=1), obs, -1) == 5
    # ... and without that exception a blind card with no use is thrown away (the last face-down card is not a place)
    assert _place(_prm(finish_gap=16, finish_gap2=0, late_fd=0), obs, -1) == CHOICE_NOKEEP
    assert _place(_prm(finish_gap=0, finish_gap2=17, finish_rival_fd=6), obs, -1) == 8
    assert _place(_prm(finish_gap=0, finish_gap2=17, finish_rival_fd=7, late_fd=0), obs, -1) == CHOICE_NOKEEP
    assert _place(_prm(finish_gap=0, finish_gap2=0, late_fd=0), obs, -1, throw=False) != 8   # a pile card stays up


def test_bounce():
    """A revealed card that may bounce goes where a kept card would have a use; else the chain stops."""
    obs = _obs([[7, H_, H_, 3, 8, 4, 6, 2, 5], RIVAL])
    legal = np.ones(N_CHOICES, dtype=np.int8)
    assert rules.bounce_target(_prm(bounce=1), R_W0, obs, np.int64(7), legal) == 1       # pairs the top row
    assert rules.bounce_target(_prm(bounce=0), R_W0, obs, np.int64(7), legal) == CHOICE_STOP
    assert rules.bounce_target(_prm(bounce=1, pair_fd=1), R_W0, obs, np.int64(5), legal) == 2   # pairs the 5, face down
    assert rules.bounce_target(_prm(bounce=1, pair_fd=0), R_W0, obs, np.int64(5), legal) == 6   # over the 6: lower
    bare = _obs([[8, H_, H_, 8, H_, H_, H_, H_, H_], RIVAL])                           # a 3 has no use here:
    assert rules.bounce_target(_prm(bounce=1), R_W0, bare, np.int64(3), legal) == CHOICE_STOP    # stop
    # a face-down card off the 8 8 line
    assert rules.bounce_target(_prm(bounce=3), R_W0, bare, np.int64(3), legal) == 1


def test_a_rivals_hazard_the_pile_and_the_start():
    obs = _obs([[8, H_, H_, 3, H_, 4, 6, H_, 5], RIVAL])
    legal = np.zeros(N_CHOICES, dtype=np.int8)
    legal[[1, 2, 4, 7]] = 1
    legal[CHOICE_DECLINE] = 1
    assert rules.hazard_flip(_prm(hazard_flip=0), R_W0, obs, legal) == CHOICE_DECLINE
    assert rules.hazard_flip(_prm(hazard_flip=2), R_W0, obs, legal) == 1
    paired = _obs([[8, H_, 8, 3, H_, 4, 6, H_, 5], RIVAL])     # the top row holds a pair of 8s: flip 1
    legal[2] = 0
    assert rules.hazard_flip(_prm(hazard_flip=1), R_W0, paired, legal) == 1
    assert rules.discard_pile(_prm(discard=1), R_W0, _obs([RIVAL, RIVAL], tops=(7, 3)).pub) == 1   # cover the 3
    assert rules.discard_pile(_prm(discard=1), R_W0, _obs([RIVAL, RIVAL], tops=(MULLIGAN, 3)).pub) == 0
    assert rules.discard_pile(_prm(discard=0), R_W0, _obs([RIVAL, RIVAL], tops=(7, 3)).pub) == 0
    out = np.zeros(2, dtype=np.int64)
    for init, second in ((0, 8), (1, 1), (2, 4)):
        rules.initial_flips(_prm(init=init), R_W0, out)
        assert tuple(out) == (0, second)


def test_the_printed_sentences_are_the_committed_settings():
    """Each printed rule names its settings; together they are every setting, each once; at most 8 rules of at
    most 40 words; docs/rules.md prints each sentence as it stands here."""
    printed = registry.RULES_PRINTED
    assert len(printed) <= 8
    named = [k for rule in printed for k in rule["settings"]]
    assert sorted(named) == sorted(rules.RULE_PARAM_NAMES)
    for rule in printed:
        assert len(rule["text"].split()) <= 40, rule["title"]
        for k, v in rule["settings"].items():
            assert registry.RULES_SETTINGS[k] == v, (rule["title"], k)
        for k in rule["default"]:
            assert k in rule["settings"]
    page = (ROOT / "docs" / "rules.md").read_text()
    for rule in printed:
        assert rule["text"] in page, rule["title"]


def test_the_rules_seat_answers_every_kind_of_decision():
    """In traced games of one rules seat among experts, the rules seat takes and draws, keeps and throws away,
    bounces, chooses either discard pile, flips and declines for a rival's hazard, and finishes."""
    res = simulate(players=4, strategies=["rules", "expert", "expert", "expert"], games=300, seed=5, trace=True)
    seen = set()
    for tr in res.traces:
        for kind, seat, a, b in tr:
            if seat != 0:
                continue
            if kind == T.DRAW:
                seen.add(("draw", "pile" if a else "blind"))
            elif kind in (T.PLACE, T.NOKEEP, T.BOUNCE, T.FINISH, T.INIT_FLIP):
                seen.add((T.NAMES[kind],))
            elif kind == T.DISCARD and a >= 0:
                seen.add(("discard", int(a)))
            elif kind == T.HAZARD_FLIP:
                seen.add(("hazard flip", "declined" if a == T.HFLIP_DECLINED else ("flip" if a >= 0 else "no")))
    want = {("draw", "pile"), ("draw", "blind"), (T.NAMES[T.PLACE],), (T.NAMES[T.NOKEEP],), (T.NAMES[T.BOUNCE],),
            (T.NAMES[T.FINISH],), (T.NAMES[T.INIT_FLIP],), ("discard", 0), ("discard", 1), ("hazard flip", "flip")}
    assert want <= seen, want - seen
    assert registry.get("rules").kind == KIND_RULES


def test_the_pages_tables_are_the_committed_result():
    """tuning/rules/README.md's worth and ladder tables, row by row, as tuning/rules/table.py prints them from
    tuning/rules/result.json (confirm.py's output), value_rung.json and the printed sentences."""
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location("rules_table", ROOT / "tuning" / "rules" / "table.py")
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    result = json.loads((ROOT / "tuning" / "rules" / "result.json").read_text())
    assert result["settings"] == registry.RULES_SETTINGS          # the result is of the committed rules
    page = (ROOT / "tuning" / "rules" / "README.md").read_text(encoding="utf-8")
    value = json.loads((ROOT / "tuning" / "rules" / "value_rung.json").read_text())
    for rows in (table.worth_table(result), table.ladder_table(result), table.ladder_table(value)):
        assert "\n".join(rows) in page, "tuning/rules/README.md should hold:\n" + "\n".join(rows)
