"""Two example positions where the card and the oracle once disagreed (examples/hazard-blind-5p.toml,
examples/finish-3p-round2.toml): they load, and they are the positions the docs describe."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from gnoming_sim.game.cards import HIDDEN
from gnoming_sim.game.position import from_toml
from gnoming_sim.search.finishing import finish_gap_of
from gnoming_sim.search.options import legal_options

ROOT = Path(__file__).resolve().parents[2]


def _visible(pos, seat) -> tuple[int, int]:
    """(sum of the face-up card values, face-down cards) of ``seat``'s layout (no line complete here)."""
    row = np.asarray(pos.layouts[seat])
    return int(row[row != HIDDEN].sum()), int((row == HIDDEN).sum())


def test_a_hazard_drawn_blind_at_five_players():
    pos = from_toml(ROOT / "examples" / "hazard-blind-5p.toml")
    assert pos.players == 5 and pos.decision == "place" and pos.source == 0   # drawn blind
    assert pos.to_dict()["decision"]["card"] == "H"
    keys = {o.key for o in legal_options(pos)}
    assert "discard" in keys and any(pos.layouts[pos.me][int(k[3:])] == HIDDEN for k in keys if k.startswith("pos"))


def test_finish_or_play_on_at_three_players_in_round_two():
    pos = from_toml(ROOT / "examples" / "finish-3p-round2.toml")
    assert (pos.players, pos.round, pos.decision) == (3, 1, "place")
    assert _visible(pos, pos.me) == (12, 1)                    # own 12 with one card face down
    rivals = [_visible(pos, s) for s in range(3) if s != pos.me]
    assert min(rivals) == (15, 3)                               # the best rival 15 with three face down
    assert any(o.finishes for o in legal_options(pos))        # the player to move can finish
    assert finish_gap_of(pos) == 0
    same = from_toml(ROOT / "tests" / "search" / "data" / "three_players_finish.toml")
    assert pos.to_dict() | {"origin": None} == same.to_dict() | {"origin": None}   # the position the card tests use
