"""`gnoming-sim analyse --follow-card`: the options valued again with the card player in the
seat to move and net at the others, on the same rollout seeds, and where a difference from the card comes from."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from _examples import POSITION, position

from gnoming_sim.search.card import FROM_PLAY, FROM_POSITION

DATA = Path(__file__).resolve().parents[1] / "search" / "data"
FINISH = DATA / "three_players_finish.toml"     # the card says play on, finishing is better
FAST = ["--rollouts", "100", "--seed", "1"]


@pytest.fixture(scope="module")
def followed(cli_run):
    return json.loads(cli_run(["analyse", "--position", FINISH, *FAST, "--follow-card", "--json"]).stdout)


def test_the_card_seat_is_the_players_and_the_line_says_where_a_difference_comes_from(followed):
    """The card's answer (whatever the committed card says) is judged against the oracle's verdict and again
    with the card playing on; the text line says which source that makes."""
    from gnoming_sim.cli.analyse import render

    follow = followed["follow_card"]
    assert follow["policies"] == ["card", "net", "net"] and follow["me"] == 0 and follow["n"] == 100
    assert follow["horizon"] == followed["horizon"] == "game"
    want = None if followed["card"]["agrees"] else FROM_PLAY if follow["card"]["agrees"] else FROM_POSITION
    assert follow["source"] == want
    lines = [line for line in render(followed).splitlines() if line.startswith("follow-card: ")]
    assert len(lines) == 1
    line = lines[0]
    assert line.startswith("follow-card: with the card playing on in your seat (seat 0; net at the others; "
                           "n = 100 rollouts per option, the same seeds): ")
    tail = {None: "the card agrees with the oracle here: no difference to explain",
            FROM_POSITION: "so the difference from the card comes from this position, not from the play that follows",
            FROM_PLAY: "so the difference from the card comes from the play that follows (the card's answer suits "
                       "the card's own later play), not from this position"}[want]
    assert line.endswith(tail), line


@pytest.mark.slow
def test_the_card_seat_is_valued_on_the_rollouts_of_policy_card_net_net(cli_run, followed):
    # the same rollouts as an analysis with the card in the player's seat, by hand: the same card answer
    by_hand = json.loads(cli_run(["analyse", "--position", FINISH, *FAST, "--policy", "card,net,net", "--json"]).stdout)
    assert followed["follow_card"]["card"] == by_hand["card"] and followed["follow_card"]["best"] == by_hand["best"]
    # the oracle's own verdict is unchanged by the flag, and the flag is needed
    plain = cli_run(["analyse", "--position", FINISH, *FAST, "--json"]).stdout
    assert "follow_card" not in json.loads(plain)
    assert json.loads(plain)["options"] == followed["options"] and json.loads(plain)["card"] == followed["card"]


def test_follow_card_refusals_are_one_line(cli_run):
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.position import from_mapping
    from gnoming_sim.game.position_id import encode

    result = cli_run(["analyse", "--position", FINISH, *FAST, "--follow-card", "--policy", "net,expert,net"], code=2)
    assert result.stderr.splitlines() == ["gnoming-sim: error: --follow-card puts the card in the seat to move and "
                                          "one base policy at the others: give --policy one name"]
    hz = [["3", "?", "5", "6", "?", "8", "-1", "?", "3"], ["4", "4", "?", "5", "5", "5", "6", "6", "7"],
          ["6", "?", "?", "7", "7", "?", "3", "-4", "8"]]
    seen = [c for row in hz for c in row if c != "?"] + ["5", "4", "H"]
    flip = from_mapping({"players": 3, "me": 2, "turn": 30, "scores": [0, 0, 0], "layouts": hz,
                         "piles": [["5"], ["4"]], "removed_hazards": 1,
                         "draw_pile": PUBLISHED.size - len(seen) - sum(r.count("?") for r in hz),
                         "decision": {"kind": "hazard_flip", "discarder": 0}})
    lines = cli_run(["analyse", "--position-id", encode(flip), *FAST, "--follow-card"], code=2).stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: --follow-card: the card has no cell for this "
                                                   "decision")


def test_each_source_has_its_words():
    from gnoming_sim.search.card import follow_line, judge

    view = {"table": "finish", "cells": [], "choice": (0, 7)}

    class Opt:
        def __init__(self, key, pos):
            self.key, self.src, self.pos = key, 0, pos

    options = [Opt("pos2", 2), Opt("pos7", 7)]

    def res(diff, lo, hi):
        return {"unit": "pp of win chance", "policies": ["net", "card", "net"], "n": 10, "horizon": "game",
                "best": "pos2", "options": [{"key": "pos2", "option": "finish", "best": True},
                                            {"key": "pos7", "option": "play on", "best": False, "diff": diff,
                                             "diff_ci95": [lo, hi], "diff_on": "win"}]}

    apart, close = res(5.0, 2.0, 8.0), res(1.0, -1.0, 3.0)
    said = {src: follow_line(judge(view, here, after, options, 1)) for src, here, after in
            (("position", apart, apart), ("play", apart, close), ("none", close, apart))}
    assert said["position"].endswith("finish is still +5.00 [2.00, 8.00] pp of win chance better than the card's "
                                     "answer, play on; so the difference from the card comes from this position, not "
                                     "from the play that follows")
    assert "play on, is not separated from the best, finish (+1.00 [-1.00, 3.00] pp of win chance)" in said["play"]
    assert said["play"].endswith("comes from the play that follows (the card's answer suits the card's own later "
                                 "play), not from this position")
    assert said["none"].endswith("the card agrees with the oracle here: no difference to explain")
    assert said["none"].startswith("follow-card: with the card playing on in your seat (seat 1; net at the others;")


def test_the_bar_counts_the_card_seats_rollouts_too(cli_run, monkeypatch):
    import io

    from gnoming_sim.search import estimates

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr("gnoming_sim.cli.group.stderr", lambda: screen)
    monkeypatch.setattr("gnoming_sim.cli.analyse.PROGRESS_DELAY", 0.0)
    monkeypatch.setattr(estimates, "PROGRESS_FIRST", 20)
    monkeypatch.setattr(estimates, "PROGRESS_SECONDS", 1e-6)
    example = POSITION
    result = cli_run(["analyse", "--position", example, "--rollouts", 40, "--policy", "expert", "--horizon", "round",
                      "--follow-card", "--json"])
    shown = screen.getvalue()
    assert "80/80" in shown and "card seat: leader " in shown, shown   # the oracle's 40 and the card seat's 40
    assert json.loads(result.stdout)["follow_card"]["policies"] == ["expert", "card", "expert", "expert"]


def _twenty_deck_ids():
    """Position IDs of examples/position.toml played with a house deck whose 8s are 20s (the ID carries the deck):
    a draw with a 20 on pile 1, and the 20 taken from it to place; and the same draw with the published deck."""
    from gnoming_sim.game.cards import card_name
    from gnoming_sim.game.deck import PUBLISHED, Deck
    from gnoming_sim.game.position import from_mapping, from_toml
    from gnoming_sim.game.position_id import encode

    deck = Deck.from_mapping({("20" if card_name(c) == "8" else card_name(c)): n for c, n in PUBLISHED.counts},
                             name="twenties")
    data = position().to_dict()
    data.update(decision={"kind": "draw"}, draw_pile=data["draw_pile"] + 1)   # the 5 in hand back in the pile
    published = encode(from_mapping(data))
    twenty = {**data, "layouts": [["20" if c == "8" else c for c in row] for row in data["layouts"]],
              "piles": [["20" if c == "8" else c for c in pile] for pile in data["piles"]]}
    assert twenty["piles"][1][-1] == "20"
    taken = {**twenty, "piles": [twenty["piles"][0], twenty["piles"][1][:-1]],
             "decision": {"kind": "place", "card": "20", "source": "pile1"}}
    return encode(from_mapping(twenty, deck=deck)), encode(from_mapping(taken, deck=deck)), published


def test_a_card_of_a_house_deck_is_described_with_that_deck():
    """The card's rows were named for the published deck: a 20 falls in the row printed "7-8", and the words
    said at a position whose ID carries a deck with a 20 name the 20 and what that row holds in its deck, never
    "pile card 7-8" alone; with the published deck the printed words are kept."""
    from gnoming_sim.search.card import card_view
    from gnoming_sim.game.position_id import decode

    draw, place, published = _twenty_deck_ids()
    words = [c["words"] for c in card_view(decode(draw))["cells"]]
    assert "pile card 20 (the card's row 7-8, which in this deck holds 7, 20), best use: " in " | ".join(words), words
    assert not any(w.startswith("pile card 7-8") for w in words), words
    assert any(w.startswith("pile card 5-6, ") for w in words), words      # a row the deck leaves as printed
    view = card_view(decode(place))
    assert view["table"] == "place"
    assert view["cells"][0]["words"].startswith("20 (the card's row 7-8, which in this deck holds 7, 20) kept from "
                                                "a pile, best use: "), view
    words = [c["words"] for c in card_view(decode(published))["cells"]]
    assert any(w.startswith("pile card 7-8, best use: ") for w in words), words   # the 8: as the card prints it


@pytest.mark.slow
def test_follow_card_on_a_house_deck_id_says_the_20(cli_run):
    draw, _, _ = _twenty_deck_ids()
    out = cli_run(["analyse", "--position-id", draw, "--rollouts", 20, "--policy", "expert", "--horizon", "round",
                   "--follow-card"]).stdout
    line = next(line for line in out.splitlines() if line.startswith("card: "))
    assert "pile card 20 (the card's row 7-8, which in this deck holds 7, 20)" in line and "pile card 7-8" not in line
