"""`play` and `analyse` count turns and name positions the same way: the game
turn `play` prints for a turn is the `--turn` that `analyse` takes for it, and both tell the
round, the turn of the round and the layout positions in the same words."""
from __future__ import annotations

import re


from gnoming_sim.search.options import legal_options
from gnoming_sim.search.estimates import position_from_game
from gnoming_sim.batch.runner import BatchSpec
from gnoming_sim.game.naming import position_name, round_turn_name

SEED, GAME, PLAYERS, SEATS = 3, 2, 3, ("random", "builder", "greedy")
TURN_LINE = re.compile(r"^Turn (\d+) \((round (\d) of 3, turn (\d+) of the round)\): seat (\d) ", re.M)


def _story(cli_run) -> str:
    result = cli_run(["play", "--players", str(PLAYERS), "--seats", ",".join(SEATS),
                      "--seed", str(SEED), "--game", str(GAME)])
    return result.stdout


def test_the_turn_play_prints_is_the_turn_analyse_takes(cli_run):
    turns = TURN_LINE.findall(_story(cli_run))
    assert [int(t[0]) for t in turns] == list(range(len(turns)))     # game turns, from 0, over all rounds
    assert {t[2] for t in turns} == {"1", "2", "3"}
    spec = BatchSpec.make(PLAYERS, SEATS, 1, SEED)
    later = next(t for t in turns if t[2] == "3")                    # a turn of the last round
    for game_turn, words, rnd, round_turn, seat in (turns[0], turns[len(turns) // 2], later):
        pos = position_from_game(SEED, GAME, int(game_turn), PLAYERS, spec.seats, rotate=spec.rotate)
        assert (pos.me, pos.round + 1, pos.turn) == (int(seat), int(rnd), int(round_turn))
        assert round_turn_name(pos.round, pos.turn) == words
        assert pos.describe().startswith(f"seed {SEED} game {GAME} turn {game_turn}: {words}, seat {seat} to move")


def test_positions_are_named_alike_in_the_story_and_the_options(cli_run):
    story = _story(cli_run)
    spec = BatchSpec.make(PLAYERS, SEATS, 1, SEED)
    told = re.findall(r" at (\d \(row \d col \d\))", story)
    assert told and all(name == position_name(int(name[0])) for name in told)
    assert not re.search(r"(?<!\d \()row \d col \d", story)          # never a bare "row r col c"
    pos = position_from_game(SEED, GAME, 0, PLAYERS, spec.seats, rotate=spec.rotate)
    assert "pile 0 (" in [o.label for o in legal_options(pos)][1]
    assert "Discard pile 0 starts with" in story and "pile A" not in story
