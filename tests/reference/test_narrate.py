"""Narration of one game (``gnoming-sim play``): the tracker follows the trace exactly,
the text tells every turn, reveal and score, and the command tells the same game as
``simulate``."""
from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from gnoming_sim import Deck
from gnoming_sim import RuleConfig
from gnoming_sim.game import fields as F
from gnoming_sim.game import trace as T
from gnoming_sim.reference.scoring import score_parts
from gnoming_sim.game.cards import HAZARD, MULLIGAN
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.game.naming import position_name
from gnoming_sim.reference.narrate import Narrator, describe, grid_lines, grids_side_by_side, narrate


# a small deck: the draw pile runs out, and is rebuilt from the discards
SMALL = Deck.from_mapping({3: 8, 4: 8, 5: 8, -1: 3, "H": 1, "M": 1}, name="small")


def traced(players=3, games=1, seed=1, **kwargs):
    kwargs.setdefault("strategies", ("random",))
    return simulate(players=players, games=games, seed=seed, trace=True, **kwargs)


# ------------------------------------------------------------------ small pieces
def test_where_and_describe():
    assert position_name(0) == "0 (row 0 col 0)" and position_name(5) == "5 (row 1 col 2)"
    assert position_name(8) == "8 (row 2 col 2)"
    assert describe(HAZARD) == "a hazard" and describe(MULLIGAN) == "a mulligan"
    assert describe(8) == "an 8" and describe(-2) == "a -2" and describe(3) == "a 3"


def test_grid_shows_face_down_cards_as_question_marks():
    lines = grid_lines([6, 6, 6, 3, 4, 5, -1, HAZARD, MULLIGAN], [True] * 6 + [False, True, True])
    assert [line.split() for line in lines] == [["6", "6", "6"], ["3", "4", "5"], ["?", "H", "M"]]


def test_grids_side_by_side_align_under_labels():
    a = grid_lines(range(9), [True] * 9)
    rows = grids_side_by_side(["seat 0 a-long-name", "seat 1 b"], [a, a])
    assert len(rows) == 4
    assert rows[0].index("seat 1") == rows[1].index("0", len("seat 0 a-long-name")) - 2


# ------------------------------------------------------------------ the tracker follows the kernel
@pytest.mark.parametrize("players, strategies, rules, deck", [
    (3, ("random", "greedy", "rusher"), None, None),
    (2, ("random", "greedy"), None, SMALL),
    (7, ("random",), None, None),
    (4, ("builder", "random", "cautious", "greedy"), RuleConfig(mulligan_limit=0, hazard_placeable=False), None),
    (2, ("random", "expert"), RuleConfig(hazard_value=15, mulligan_value=2, negative_multiplier=3), SMALL),
])
def test_tracked_final_layouts_score_as_the_engine_scored(players, strategies, rules, deck):
    res = traced(players=players, games=12, seed=5, strategies=strategies, rules=rules, deck=deck, rotate=True)
    for i in range(res.games):
        narrator = Narrator(res, i)
        narrator.lines()
        assert len(narrator.final_layouts) == 3
        for r, layouts in enumerate(narrator.final_layouts):
            for s, lay in enumerate(layouts):
                row = res.round_stats[i, r, s]
                want = (row[F.F_MATCHED], row[F.F_UNMATCHED], row[F.F_NEGATIVES], row[F.F_HAZARDS])
                assert score_parts(lay, res.rules) == tuple(int(v) for v in want)


def test_the_score_story_tells_the_card_values_in_force():
    rules = RuleConfig(hazard_value=15, mulligan_value=2, negative_multiplier=3)
    rich = Deck.from_mapping({3: 8, 4: 8, 5: 8, -1: 3, "H": 4, "M": 4}, name="rich")   # hazards and mulligans stay
    res = traced(players=3, games=12, seed=5, strategies=("random",), rules=rules, deck=rich)
    text = "\n".join(narrate(res, i) for i in range(res.games))
    assert "x +15" in text and "x +10" not in text
    assert ") x 3" in text and "M(2)" in text


def test_reshuffles_and_stalls_are_told():
    res = traced(players=2, games=10, seed=2, deck=SMALL)
    kinds = [set(int(k) for k in t[:, 0]) for t in res.traces]
    i = next(i for i, k in enumerate(kinds) if T.RESHUFFLE in k)
    assert "shuffled into a new draw pile" in narrate(res, i)
    stalled = traced(players=2, seed=3, rules=RuleConfig(max_turns=4))
    text = narrate(stalled)
    assert "The round stalls: the turn limit" in text and "No early-finish bonus" in text


# ------------------------------------------------------------------ the text
@pytest.fixture(scope="module")
def story():
    res = traced(players=3, seed=1, strategies=("random", "greedy", "rusher"), rotate=True)
    return res, narrate(res)


def test_every_turn_is_told(story):
    res, text = story
    trace = res.traces[0]
    assert len(re.findall(r"^Turn \d+ \(round \d of 3, turn \d+ of the round\): seat \d", text, re.M)) == int((trace[:, 0] == T.TURN).sum())
    assert text.count("final lap") == int(((trace[:, 0] == T.TURN) & (trace[:, 3] == 1)).sum())
    assert text.count("draws ") + text.count("takes ") >= int((trace[:, 0] == T.DRAW).sum())
    assert text.count("bounces to") == int((trace[:, 0] == T.BOUNCE).sum())
    assert text.count("finishes the round") == int((trace[:, 0] == T.FINISH).sum())


def test_rounds_reveals_and_scores_are_told(story):
    res, text = story
    for r in range(3):
        assert f"== Round {r + 1} of 3:" in text and f"Scoring, round {r + 1}:" in text
    assert text.count("Reveal:") == 3
    for r in range(3):
        for s in range(3):
            assert re.search(rf"^  seat {s} \(\w+\): {res.round_stats[0, r, s, F.F_SCORE]}$", text, re.M)
    assert "== Game over ==" in text and ("Winner: seat" in text or "Shared win" in text)


def test_hazards_and_flips_are_told():
    res = traced(players=4, games=20, seed=8)
    i = next(i for i, t in enumerate(res.traces) if (t[:, 0] == T.HAZARD_FLIP).any())
    text = narrate(res, i)
    flips = res.traces[i][res.traces[i][:, 0] == T.HAZARD_FLIP]
    assert "it leaves the game" in text
    told = text.count("declines to flip") + text.count("cannot flip") + len(
        re.findall(r"^    seat \d \(\w+\) turns up", text, re.M))
    assert told == len(flips)


def test_narration_needs_a_trace():
    with pytest.raises(ValueError, match="trace=True"):
        Narrator(simulate(players=2, games=1, seed=0))


# ------------------------------------------------------------------ the command
def test_play_command_tells_the_same_game_as_simulate(cli_run, tmp_path):
    seats = ["--players", "3", "--seats", "greedy,random,builder", "--seed", "4"]
    played = cli_run(["play", *seats, "--game", "6"])
    out = tmp_path / "b.parquet"
    cli_run(["simulate", *seats, "--games", "8", "--out", out])
    df = pd.read_parquet(out)
    game = df[df["game"] == 6]
    for seat, rows in game.groupby("seat"):
        strategy = rows["strategy"].iloc[0]
        total = int(rows["score"].sum())
        assert re.search(rf"^  seat {seat} \({strategy}\): .* = {total}$", played.stdout, re.M)
    assert played.stdout.startswith("Gnoming A Round: game 6 of seed 4, 3 players")


def test_play_defaults(cli_run):
    result = cli_run(["play", "--players", "2"])
    assert "seat 0 (random), seat 1 (random)" in result.stdout and "rules: the defaults" in result.stdout


def test_play_shows_changed_rules(cli_run, write_toml):
    path = write_toml("max_turns = 200\n")
    result = cli_run(["play", "--players", "2", "--rules", str(path)])
    assert "rules: max_turns=200" in result.stdout
    json.dumps(result.stdout)  # plain text
