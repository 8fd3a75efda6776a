"""The board's play mode (:mod:`gnoming_sim.cli.board.play_api`): a game played by the kernel's one step, the
wire that never carries a hidden card, illegal and stale moves refused in a sentence, the hint and the tutor on
the evaluator's table, save and resume, and the record ``review`` reads."""
from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest

pytest.importorskip("starlette")

from click.testing import CliRunner  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from gnoming_sim.cli.board import inputs as I  # noqa: E402
from gnoming_sim.cli.board import play_table as PT  # noqa: E402
from gnoming_sim.cli.board.server import Board, make_app  # noqa: E402
from gnoming_sim.game.cards import card_name  # noqa: E402
from gnoming_sim.game.deck import PUBLISHED  # noqa: E402
from gnoming_sim.game.rules import RuleConfig  # noqa: E402

# every key a play answer may hold (a key added to the wire must be added here, and so looked at)
VIEW_KEYS = {"state", "players", "seat", "seats", "round", "turn", "starter", "finisher", "layouts", "piles",
             "draw_pile", "removed", "scores", "moves", "decision", "round_scores", "totals", "winners"}
DECISION_KEYS = {"kind", "card", "source", "discarder", "legal", "ask"}
ANSWER_KEYS = {"ok", "game", "view", "log", "seen"}


def board(**kw) -> Board:
    return Board(I.Opened(), RuleConfig(), PUBLISHED, threads=1, **kw)


def connect(b: Board) -> TestClient:
    return TestClient(make_app(b), base_url="http://127.0.0.1", headers={"X-Board-Token": b.token})


class Player:
    """A page's side of a game: the requests it sends, every answer kept (``wire``) with the server's table as
    it stood when the answer left (``hidden``: the true cards of every face-down slot, the draw pile's order)."""

    def __init__(self, b: Board, c: TestClient, **setup):
        self.b, self.c, self.wire = b, c, []
        self.r = self.post("resume", {"text": setup["resume"]}) if "resume" in setup else self.post("new", setup)
        self.gid = self.r["game"]

    def post(self, route: str, body: dict, status: int = 200) -> dict:
        if route != "new" and route != "resume":
            body = {"game": self.gid, "moves": self.r["view"]["moves"], "seen": self.r.get("seen", 0), **body}
        res = self.c.post(f"/api/play/{route}", json=body)
        assert res.status_code == status, res.text
        data = res.json()
        game = self.b.plays.get(data.get("game", ""))
        self.wire.append((data, None if game is None else hidden(game)))
        if status == 200 and "view" in data:
            self.r = data
        return data

    @property
    def game(self) -> PT.PlayGame:
        return self.b.plays[self.gid]

    def play(self, choose, stop=lambda view: False) -> None:
        """Play on: the person's moves by ``choose(view)``, the others' and the next rounds as the page asks."""
        while self.r["view"]["state"] != "game_over" and not stop(self.r["view"]):
            state = self.r["view"]["state"]
            if state == "you":
                self.post("act", {"action": choose(self.r["view"])})
            elif state == "others":
                self.post("others", {})
            else:
                self.post("next-round", {})


def hidden(game: PT.PlayGame) -> dict:
    from gnoming_sim.kernel.state import S_DEND, S_DPTR

    t = game.t
    down = {(s, q): card_name(int(t.lay[s, q])) for s in range(t.lay.shape[0]) for q in range(9) if not t.up[s, q]}
    draw = [card_name(int(c)) for c in t.draw[t.st[S_DPTR]:t.st[S_DEND]]]
    return {"down": down, "draw": draw, "over": game.state() in ("round_over", "game_over")}


def random_choice(rng: random.Random):
    def choose(view):
        d = view["decision"]
        if d["kind"] == "init_flip":
            a, b = rng.sample(d["legal"], 2)
            return a * 9 + b
        return rng.choice(d["legal"])
    return choose


def strategy_choice(player: Player):
    return lambda view: player.game.strategy_move()


@pytest.fixture(scope="module")
def shared():
    b = board()
    yield b, connect(b)
    b.worker.shutdown(wait=False)


def sub_lists(x):
    if isinstance(x, dict):
        for v in x.values():
            yield from sub_lists(v)
    elif isinstance(x, list):
        yield x
        for v in x:
            yield from sub_lists(v)


def test_the_wire_never_carries_a_face_down_card_or_the_draw_pile(shared):
    """A whole 3-player game, every answer the page received: only the keys of the view, every face-down slot
    sent as '?', no run of the draw pile's order in any list, and a card another seat drew blind told only in
    the answer that also shows where it went."""
    b, c = shared
    p = Player(b, c, players=3, seat=1, opponents="net", seed=11)
    p.play(random_choice(random.Random(3)))
    assert p.r["view"]["state"] == "game_over" and len(p.wire) > 30
    mine = False   # whose turn the story tells (its first line may have come in an earlier answer)
    for data, secret in p.wire:
        assert set(data) <= ANSWER_KEYS, set(data) - ANSWER_KEYS
        view = data["view"]
        assert set(view) <= VIEW_KEYS
        if view["decision"] is not None:
            assert set(view["decision"]) <= DECISION_KEYS
        if not secret["over"]:
            for (s, q) in secret["down"]:
                assert view["layouts"][s][q] == "?", (s, q)
        else:   # the reveal: every card is turned up, as the rules do at a round's end
            assert "?" not in sum(view["layouts"], [])
        draw = secret["draw"]
        for lst in sub_lists(data):
            names = [x for x in lst if isinstance(x, str)]
            for i in range(len(draw) - 3):
                assert draw[i:i + 4] != names[:4] or len(names) < 4, "the draw pile's order on the wire"
        blind = []
        for i, line in enumerate(data["log"]):
            if not line.startswith(" ") and ": seat " in line:   # a turn's first line names its seat
                mine = "(you)" in line
            if "from the draw pile" in line and not mine:
                blind.append(i)
        for i in blind:   # another seat's blind card is told with what became of it, in the same answer
            rest = data["log"][i + 1:]
            assert any(re.search(r"places it|does not keep it|discards", x) for x in rest), data["log"][i:]


@pytest.mark.parametrize("name", ["net", "value", "rules"])
def test_a_game_played_as_its_strategy_would_is_that_game_of_simulate(shared, name):
    """The person's seat played by the opponents' strategy through the routes: the trace and the totals of
    `simulate` and `play`'s game 0 of the seed, record for record (one kernel, one deal, one play stream; the
    value player by its own decision function, as `simulate` plays it)."""
    from gnoming_sim.kernel.engine import simulate

    b, c = shared
    p = Player(b, c, players=2, seat=0, opponents=name, seed=5)
    p.play(strategy_choice(p))
    res = simulate(players=2, strategies=[name], games=1, seed=5, trace=True, threads=1)
    assert np.array_equal(res.traces[0], p.game.trace())
    assert p.r["view"]["totals"] == [int(v) for v in res.totals[0]]
    story = "\n".join(json.loads(json.dumps(line)) for data, _ in p.wire for line in data["log"])
    assert "== Game over ==" in story and story.count("Scoring, round") == 3


def test_illegal_and_stale_moves_are_refused_in_a_sentence(shared):
    b, c = shared
    p = Player(b, c, players=2, seat=1, opponents="net", seed=2)
    while p.r["view"]["state"] != "you":
        p.post("others", {})
    moves = p.r["view"]["moves"]
    r = p.post("act", {"action": 4 * 9 + 4}, status=400)   # the same card twice
    assert r["error"] == "turn up two different face-down cards of your layout"
    p.play(strategy_choice(p), stop=lambda v: v["state"] == "you" and v["decision"]["kind"] == "draw")
    r = p.post("act", {"action": 7}, status=400)
    assert "is not allowed now; the rules allow: the draw pile" in r["error"] and "\n" not in r["error"]
    p.post("act", {"action": 1})   # discard pile 0's top: a card from a pile must be kept
    if 9 not in p.r["view"]["decision"]["legal"]:
        r = p.post("act", {"action": 9}, status=400)
        assert r["error"].startswith("not keeping it is not allowed now; the rules allow: placing it at position")
    assert p.game.moves[-1] == 1 and p.r["view"]["moves"] > moves
    stale = c.post("/api/play/act", json={"game": p.gid, "moves": moves, "action": 0})
    assert stale.status_code == 409 and "behind the game" in stale.json()["error"]
    other = c.post("/api/play/others", json={"game": p.gid, "moves": p.r["view"]["moves"]})
    assert other.status_code == 400 and other.json()["error"] == "no other seat is to move"
    assert c.post("/api/play/act", json={"game": "nope", "moves": 0, "action": 0}).status_code == 400


@pytest.mark.parametrize("body,said", [
    ({"players": 9}, "players must be a whole number in 2..7, got 9"),
    ({"players": 3, "seat": 3}, "seat must be a whole number in 0..2, got 3"),
    ({"opponents": "nobody"}, "opponents: "),
    ({"players": 3, "opponents": ["net"]}, "opponents: one strategy name, or a list of 2"),
    ({"seed": -1}, "seed must be a whole number"),
    ({"strategies": {"name": "mine.toml", "text": "[[strategy]]\nname = 3\n"}}, "strategies: "),
])
def test_a_bad_setup_is_a_400_sentence(shared, body, said):
    b, c = shared
    r = c.post("/api/play/new", json=body)
    assert r.status_code == 400 and said in r.json()["error"] and "\n" not in r.json()["error"]


def test_the_hint_is_the_evaluators_table_and_the_tutor_warns_before_a_loss(shared):
    from gnoming_sim.search import evaluator

    b, c = shared
    p = Player(b, c, players=2, seat=0, opponents="net", seed=7)
    p.play(strategy_choice(p), stop=lambda v: v["state"] == "you" and v["decision"]["kind"] == "place")
    h = p.post("hint", {})
    want = evaluator.zero_ply(p.game.position(), seed=b.seed, policies=b.policies, threads=1)
    assert [(o["key"], o["mean"]) for o in h["zero"]["options"]] == [(o["key"], o["mean"]) for o in want["options"]]
    assert h["card"] is None or h["card"]["line"].startswith("card: the card says")
    worst = max(h["zero"]["options"], key=lambda o: o["diff"])
    action = 9 if worst["key"] == "discard" else int(worst["key"][3:])
    before = p.r["view"]["moves"]
    w = p.post("act", {"action": action, "tutor": 0.0})
    assert w["warn"]["played"] == worst["key"] and "Take it back?" in w["warn"]["text"]
    assert p.game.moves.__len__() == before   # taken back: nothing was played
    best = next(o for o in h["zero"]["options"] if o["best"])
    quiet = p.post("act", {"action": 9 if best["key"] == "discard" else int(best["key"][3:]), "tutor": 0.0})
    assert "warn" not in quiet and quiet["view"]["moves"] == before + 1


def test_a_saved_game_resumes_in_the_exact_state_and_an_edited_one_is_refused(shared):
    b, c = shared
    p = Player(b, c, players=3, seat=2, opponents=["net", "expert"], seed=21)
    rng = random.Random(8)
    p.play(random_choice(rng), stop=lambda v: v["round"] == 2 and v["state"] == "you")
    saved = p.post("save", {})
    q = Player(b, c, resume=saved["saved"])   # a second page resumes the saved file
    assert q.r["view"] == p.r["view"]
    assert np.array_equal(q.game.trace(), p.game.trace()) and q.game.moves == p.game.moves
    for player in (p, q):   # the same moves from here: the same game
        player.play(random_choice(random.Random(1)))
    assert np.array_equal(q.game.trace(), p.game.trace()) and q.r["view"]["totals"] == p.r["view"]["totals"]
    data = json.loads(saved["saved"])
    data["moves"][3] = 80   # an impossible initial flip
    r = c.post("/api/play/resume", json={"text": json.dumps(data)})
    assert r.status_code == 400 and r.json()["error"].startswith("saved game: move 3 cannot be played: ")
    r = c.post("/api/play/resume", json={"text": "{}"})
    assert r.status_code == 400 and "not a game saved by the board" in r.json()["error"]


def test_the_saved_record_is_one_review_accepts(shared, tmp_path):
    from gnoming_sim.cli.app import cli

    b, c = shared
    p = Player(b, c, players=2, seat=1, opponents="net", seed=4)
    p.play(random_choice(random.Random(5)))
    saved = p.post("save", {})
    path = tmp_path / saved["record_name"]
    path.write_text(saved["record"], encoding="utf-8")
    r = CliRunner().invoke(cli, ["review", str(path), "--no-drills", "--screen-deals", "20", "--confirm", "20",
                                  "--why-rollouts", "0", "--out", str(tmp_path / "rev"), "--threads", "1", "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    assert res["game"]["seat"] == 1 and res["game"]["players"] == 2 and len(res["decisions"]) > 10


@pytest.mark.slow   # a whole game graded as review grades it (about 30 s on 2 cores)
def test_the_review_button_grades_the_game_and_drills_its_marks(tmp_path):
    from gnoming_sim.drills import deck as drill

    b = board(drill_deck=tmp_path / "drills.parquet")
    c = connect(b)
    p = Player(b, c, players=2, seat=0, opponents="net", seed=9)
    early = c.post("/api/play/review", json={"game": p.gid, "moves": p.r["view"]["moves"]})
    assert early.status_code == 400 and "once it is over" in early.json()["error"]
    p.play(random_choice(random.Random(2)))
    r = p.post("review", {})
    opened = r["opened"]
    assert opened["kind"] == "review" and opened["seat"] == 0 and len(opened["moves"]) > 10
    marked = [m for m in opened["moves"] if m["mark"] in ("mistake", "blunder", "inaccuracy")]
    cards = drill.load(tmp_path / "drills.parquet") if (tmp_path / "drills.parquet").exists() else []
    assert len(cards) == len(marked) and r["drills"].startswith(f"drills: {len(marked)} marked")
    b.worker.shutdown(wait=False)


def test_a_game_saved_at_its_start_has_no_record_yet_and_resumes(shared):
    b, c = shared
    p = Player(b, c, players=5, seat=4, opponents="expert", seed=30)
    saved = p.post("save", {})
    assert "record" not in saved and json.loads(saved["saved"])["moves"] == []
    q = Player(b, c, resume=saved["saved"])
    assert q.r["view"] == p.r["view"]
