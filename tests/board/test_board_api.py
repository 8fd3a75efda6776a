"""The board's API (``gnoming-sim board``), through Starlette's TestClient and one real server: the loader's
checks and sentences, export and import, live analysis numbers equal to ``analyse``'s, a dropped stream
cancelling its rollouts, no file outside the named inputs, the port in use."""
from __future__ import annotations

import json
import socket
import threading
import time
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from starlette.testclient import TestClient  # noqa: E402

from gnoming_sim.cli.board import inputs as I  # noqa: E402
from gnoming_sim.cli.board.server import Board, make_app  # noqa: E402
from gnoming_sim.game.deck import PUBLISHED  # noqa: E402
from gnoming_sim.game.errors import GnomingError  # noqa: E402
from gnoming_sim.game.position import from_mapping, from_toml  # noqa: E402
from gnoming_sim.game.rules import RuleConfig  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "position.toml"
RECORD = ROOT / "examples" / "review-record.toml"


def example() -> dict:
    with EXAMPLE.open("rb") as f:
        return tomllib.load(f)


def client(opened=None) -> TestClient:
    return connect(Board(opened or I.Opened(), RuleConfig(), PUBLISHED))


def connect(board: Board) -> TestClient:
    """A test client of ``board``'s app that sends the launch's token, as the page does."""
    return TestClient(make_app(board), base_url="http://127.0.0.1", headers={"X-Board-Token": board.token})


def events(c: TestClient, job: str) -> list[tuple[str, dict]]:
    out, kind = [], None
    with c.stream("GET", f"/api/analysis/{job}/events") as s:
        for line in s.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                out.append((kind, json.loads(line[6:])))
    return out


def test_validate_accepts_a_position_and_lists_its_options():
    r = client().post("/api/validate", json={"position": example()}).json()
    assert r["ok"], r
    assert r["describe"] == from_toml(EXAMPLE).describe().replace(str(EXAMPLE), "position")
    assert [o["key"] for o in r["options"]] == [f"pos{q}" for q in range(9)] + ["discard"]


@pytest.mark.parametrize("edit", ["five hazards", "turn of another seat", "finisher to move"])
def test_an_impossible_position_is_refused_with_the_loaders_sentence(edit):
    pos = example()
    if edit == "five hazards":
        pos["layouts"][0][1:6] = ["H"] * 5
    elif edit == "turn of another seat":
        pos["turn"] = 14
    else:
        pos["finisher"] = 1
    with pytest.raises(GnomingError) as loader:
        from_mapping(pos, RuleConfig(), PUBLISHED, "position")
    r = client().post("/api/validate", json={"position": pos}).json()
    assert r == {"ok": False, "error": str(loader.value)}
    assert client().post("/api/analysis", json={"position": pos}).json() == r   # never analysed


def test_the_draw_pile_is_counted_on_request():
    pos = example()
    pos["draw_pile"] = 3
    c = client()
    assert "draw_pile" in c.post("/api/validate", json={"position": pos}).json()["error"]
    r = c.post("/api/validate", json={"position": pos, "fill_draw_pile": True}).json()
    assert r["ok"] and r["position"]["draw_pile"] == example()["draw_pile"]


def test_export_writes_the_file_analyse_reads_and_import_reads_it_back(tmp_path):
    c = client()
    text = c.post("/api/export", json={"position": example()}).json()["toml"]
    (tmp_path / "p.toml").write_text(text, encoding="utf-8")
    assert from_toml(tmp_path / "p.toml").to_dict() == from_toml(EXAMPLE).to_dict()
    r = c.post("/api/import", json={"text": text, "name": "mine.toml"}).json()
    assert r["ok"] and r["position"] == from_toml(EXAMPLE).to_dict()
    bad = c.post("/api/import", json={"text": "players = [", "name": "mine.toml"}).json()
    assert not bad["ok"] and bad["error"].startswith("position file mine.toml is not valid TOML")
    assert "\n" not in bad["error"] and "upload" not in bad["error"]


def test_a_rules_file_sent_as_text_is_read_by_the_rules_loader():
    c = client()
    r = c.post("/api/validate", json={"position": example(), "rules": {"name": "r.toml", "text": "bogus = 1"}}).json()
    assert not r["ok"] and r["error"].startswith("r.toml: unknown rules option 'bogus'")
    ok = c.post("/api/validate", json={"position": example(), "rules": {"name": "r.toml",
                                                                         "text": "early_finish_bonus = 10"}})
    assert ok.json()["ok"]


def test_zero_ply_is_the_value_networks_table_of_every_legal_option():
    from gnoming_sim.search.evaluator import zero_ply

    c = client()
    r = c.post("/api/zero-ply", json={"position": example(), "seed": 2})
    assert r.status_code == 200
    got = r.json()
    assert got["ok"] and got["level"] == "0-ply" and got["n"] == 64
    options = c.post("/api/validate", json={"position": example()}).json()["options"]
    assert sorted(o["key"] for o in got["options"]) == sorted(o["key"] for o in options)
    assert [o["key"] for o in got["options"] if o["best"]] == [got["best"]]
    pos = from_mapping(example(), RuleConfig(), PUBLISHED, "position")
    want = zero_ply(pos, seed=2)
    assert {k: v for k, v in got.items() if k not in ("ok", "card")} == want   # the evaluator's, to the last digit
    from gnoming_sim.search.card import card_line, card_view, compare
    from gnoming_sim.search.options import legal_options

    card = compare(card_view(pos), want, legal_options(pos))   # the card's answer beside it, as analyse's
    assert got["card"] == json.loads(json.dumps({**card, "line": card_line(card)}))
    assert got["card"]["line"].startswith("card: the card says ")
    assert got["options"] != c.post("/api/zero-ply", json={"position": example()}).json()["options"]   # seed 0's


def test_zero_ply_needs_the_token_and_refuses_a_bad_position_in_one_sentence():
    b = Board(I.Opened(), RuleConfig(), PUBLISHED)
    bare = TestClient(make_app(b), base_url="http://127.0.0.1")
    assert bare.post("/api/zero-ply", json={"position": example()}).status_code == 403
    pos = example()
    pos["turn"] = 14
    with pytest.raises(GnomingError) as loader:
        from_mapping(pos, RuleConfig(), PUBLISHED, "position")
    r = connect(b).post("/api/zero-ply", json={"position": pos})
    assert r.status_code == 400 and r.json() == {"ok": False, "error": str(loader.value)}
    r = connect(b).post("/api/zero-ply", json={"position": example(), "seed": -1})
    assert r.status_code == 400 and r.json()["error"].startswith("seed must be a number")


def test_live_analysis_gives_analyses_numbers_for_the_same_seed_and_budget():
    from gnoming_sim.cli.board.live import WARM_POSITION
    from gnoming_sim.search.estimates import estimate

    small = {**WARM_POSITION, "draw_pile": I.draw_pile_for(WARM_POSITION, PUBLISHED)}   # 2 players, 3 options
    c = client()
    job = c.post("/api/analysis", json={"position": small, "seed": 3, "cap": 300, "k": 20,
                                        "why": False}).json()["job"]
    got = events(c, job)
    updates = [d for kind, d in got if kind == "update"]
    assert [u["n"] for u in updates] == [100, 300]   # batches of 100, then 200: the cap
    assert updates[-1]["stopped"] == "cap" and got[-1] == ("done", {"stopped": "cap", "n": 300})
    want = estimate(from_mapping(small), ["net"], seed=3, rollouts=300, second_policies=None)
    mine = {o["key"]: o for o in updates[-1]["options"]}
    assert set(mine) == {o["key"] for o in want["options"]}
    for o in want["options"]:
        m = mine[o["key"]]
        for key in ("mean", "ci95", "diff", "diff_ci95", "rank", "best", "margin", "points", "n"):
            assert m[key] == o[key], (o["key"], key)
    assert updates[-1]["best"] == want["best"] and updates[-1]["lead"] == want.get("lead")


def test_a_separated_leader_stops_the_analysis():
    c = client()
    job = c.post("/api/analysis", json={"position": example(), "seed": 1, "k": 2, "cap": 5000, "horizon": "round",
                                        "why": False}).json()["job"]
    updates = [d for kind, d in events(c, job) if kind == "update"]
    assert len(updates) >= 2 and updates[-1]["stopped"] == "separated"
    assert updates[-1]["lead_se"] >= 2 and updates[-1]["n"] < 5000
    assert all(u["stopped"] == "" for u in updates[:-1])


def test_a_dropped_stream_cancels_its_rollouts():
    import httpx2 as httpx   # the client Starlette's TestClient uses (the test extra installs it)
    import uvicorn

    board = Board(I.Opened(), RuleConfig(), PUBLISHED, threads=1)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(make_app(board), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        for _ in range(100):
            if server.started:
                break
            time.sleep(0.05)
        job = httpx.post(f"{base}/api/analysis", json={"position": example(), "cap": 400_000, "k": 20},
                         headers={"X-Board-Token": board.token}).json()["job"]
        live = board.jobs[job]
        with httpx.stream("GET", f"{base}/api/analysis/{job}/events?token={board.token}", timeout=30) as s:
            for line in s.iter_lines():
                if line.startswith("event: update"):
                    break   # one update read, then the connection is dropped
        for _ in range(200):
            if live.cancelled:
                break
            time.sleep(0.05)
        assert live.cancelled
        board.worker.submit(lambda: None).result(timeout=120)   # the batch under way has finished
        ran = live.batches
        time.sleep(0.5)   # and none starts after it
        assert live.batches == ran < len(live.sizes)
    finally:
        server.should_exit = True
        thread.join(5)


def test_no_file_outside_the_named_inputs_is_served():
    c = client(I.open_input(EXAMPLE, RuleConfig(), PUBLISHED))
    for path in ("/static/../pyproject.toml", "/static/%2e%2e/%2e%2e/pyproject.toml", "/static/..%2f..%2fREADME.md",
                 "/api/file?path=/etc/passwd", "/etc/passwd"):
        r = c.get(path)
        assert r.status_code == 404, path
    assert c.get("/static/board.js").status_code == 200
    start = c.get("/api/start").json()
    assert start["opened"]["name"] == "position.toml"   # the page is not told the folders
    assert c.get("/api/start", headers={"host": "attacker.example"}).status_code == 400
    assert c.post("/api/validate", content=json.dumps({"position": example()}),
                  headers={"content-type": "text/plain"}).status_code == 415


def test_a_record_opens_as_its_seats_decisions():
    opened = I.open_input(RECORD, RuleConfig(), PUBLISHED)
    assert opened.kind == "record" and opened.seat == 2 and len(opened.moves) > 10
    first = opened.moves[0]
    assert first["played"] in [o["key"] for o in client().post(
        "/api/validate", json={"position": first["position"]}).json()["options"]]


def test_a_review_opens_with_its_marks(tmp_path):
    opened = I.open_input(RECORD, RuleConfig(), PUBLISHED)
    decisions = [{"where": m["where"], "position": m["position"], "played": m["played"], "mark": "ok", "symbol": "",
                  "options": [{"key": m["played"], "p_win": 0.25}], "loss_win": {"est": 0.0}}
                 for m in opened.moves[:3]]
    decisions[1].update(mark="mistake", symbol="?", loss_win={"est": 0.05})
    path = tmp_path / "review.json"
    path.write_text(json.dumps({"decisions": decisions, "game": {"seat": 2}}), encoding="utf-8")
    got = I.open_input(path, RuleConfig(), PUBLISHED)
    assert got.kind == "review" and [m["symbol"] for m in got.moves] == ["", "?", ""]
    assert got.moves[1]["loss_pp"] == pytest.approx(5.0) and got.moves[0]["win"] == pytest.approx(25.0)
    decisions[2]["position"]["players"] = 9
    path.write_text(json.dumps({"decisions": decisions}), encoding="utf-8")
    with pytest.raises(GnomingError, match=r"decision 2: key 'players' must be an integer in 2\.\.7"):
        I.open_input(path, RuleConfig(), PUBLISHED)


def test_a_review_is_analysed_by_the_chance_of_winning_as_its_marks_are(tmp_path):
    """The review's marks rank by win chance (the game horizon): the table beside them starts the same way, and
    so does a position or record (analyse's default is the oracle's, the game horizon)."""
    opened = I.open_input(RECORD, RuleConfig(), PUBLISHED)
    decisions = [{"where": m["where"], "position": m["position"], "played": m["played"], "mark": "ok", "symbol": "",
                  "options": [{"key": m["played"], "p_win": 0.25}], "loss_win": {"est": 0.0}}
                 for m in opened.moves[:2]]
    path = tmp_path / "review.json"
    path.write_text(json.dumps({"decisions": decisions, "game": {"seat": 2}}), encoding="utf-8")
    assert client(I.open_input(path, RuleConfig(), PUBLISHED)).get("/api/start").json()["defaults"]["horizon"] == "game"
    assert client(opened).get("/api/start").json()["defaults"]["horizon"] == "game"
    assert client(I.open_input(EXAMPLE, RuleConfig(), PUBLISHED)).get("/api/start").json()["defaults"]["horizon"] == "game"


def test_the_port_in_use_is_one_line_and_exit_2():
    from click.testing import CliRunner

    from gnoming_sim.cli.app import cli

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        if port < 1024:
            pytest.skip("the free port found is below 1024")
        r = CliRunner().invoke(cli, ["board", "--no-browser", "--port", str(port)])
    finally:
        taken.close()
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == [f"gnoming-sim: error: --port {port}: the port is in use on 127.0.0.1; "
                                             "name another, or leave --port out for a free one"]


def test_a_bad_input_file_is_one_line_and_exit_2(tmp_path):
    from click.testing import CliRunner

    from gnoming_sim.cli.app import cli

    bad = tmp_path / "p.toml"
    bad.write_text("players = 4\nme = 9\nlayouts = []\ndraw_pile = 1\n", encoding="utf-8")
    r = CliRunner().invoke(cli, ["board", "--no-browser", str(bad)])
    assert r.exit_code == 2 and r.output.count("\n") == 1
    assert "key 'me' must be an integer in 0..3" in r.output
    r = CliRunner().invoke(cli, ["board", "--no-browser", "g1:AAAA"])   # a malformed position ID
    assert r.exit_code == 2 and r.output.count("\n") == 1 and r.output.startswith("gnoming-sim: error: position ID")


@pytest.mark.slow
def test_the_why_text_is_analyse_whys(tmp_path):
    from click.testing import CliRunner

    from gnoming_sim.cli.app import cli

    c = client()
    job = c.post("/api/analysis", json={"position": example(), "seed": 3, "cap": 300, "k": 20,
                                        "horizon": "round"}).json()["job"]   # the cheaper horizon: the same text
    why = next(d for kind, d in events(c, job) if kind == "why")
    assert why["rollouts"] == 300
    r = CliRunner().invoke(cli, ["analyse", "--position", str(EXAMPLE), "--seed", "3", "--rollouts", "300",
                                 "--horizon", "round", "--why", "--threads", "1"])
    assert r.exit_code == 0, r.output
    text = r.output[r.output.index("\nwhy: ") + 1:].rstrip("\n")
    assert why["text"] == text


def test_the_position_id_is_shown_and_read_back():
    from gnoming_sim.game.position_id import encode

    c = client()
    r = c.post("/api/validate", json={"position": example()}).json()
    assert r["id"] == encode(from_toml(EXAMPLE))
    back = c.post("/api/position-id", json={"id": r["id"]}).json()
    assert back["ok"] and back["position"] == from_toml(EXAMPLE).to_dict() and back["rules"] is None
    bad = c.post("/api/position-id", json={"id": r["id"][:-2] + ("AA" if r["id"][-2:] != "AA" else "BB")}).json()
    assert not bad["ok"] and bad["error"].startswith("position ID") and "\n" not in bad["error"]
    opened = I.open_input(r["id"], RuleConfig(), PUBLISHED)   # `gnoming-sim board ID`
    assert opened.kind == "position" and opened.position == from_toml(EXAMPLE).to_dict()


def drill_deck(tmp_path) -> Path:
    """A drill deck of the marked decisions of tests/board/data/review.json (7 cards, 5 of them ? or ??, due today)."""
    from gnoming_sim.drills import deck as D

    path = tmp_path / "drills.parquet"
    review = json.loads((Path(__file__).parent / "data" / "review.json").read_text(encoding="utf-8"))
    D.add(path, D.cards_from_review(review, "review.json"))
    return path


def test_a_drill_card_is_shown_without_its_answer_then_graded_and_rescheduled(tmp_path):
    from gnoming_sim.drills import deck as D

    path = drill_deck(tmp_path)
    c = connect(Board(I.Opened(), RuleConfig(), PUBLISHED, threads=1, drill_deck=path))
    assert c.get("/api/start").json()["drill"] is True
    shown = c.post("/api/drill/next", json={}).json()
    card = shown["card"]
    assert shown["due"] == 5 and not {"best", "best_label", "played", "loss_pp"} & set(card)
    want = next(x for x in D.load(path) if x.id == card["id"])
    assert sorted(o["key"] for o in card["options"]) == sorted(o.key for o in want.options)
    assert c.post("/api/validate", json={"position": card["position"]}).json()["ok"]
    verdict = c.post("/api/drill/answer", json={"id": card["id"], "key": want.best}).json()
    assert verdict["right"] and verdict["box"] == 2 and verdict["attempts"] == 1
    after = next(x for x in D.load(path) if x.id == card["id"])
    assert (after.box, after.attempts, after.hits, after.last_result) == (2, 1, 1, "hit")
    second = c.post("/api/drill/next", json={"skip": [card["id"]]}).json()["card"]
    miss = c.post("/api/drill/answer", json={"id": second["id"], "key": None}).json()
    assert miss["skipped"] and not miss["right"] and miss["box"] == 1
    assert c.post("/api/drill/next", json={}).json()["due"] == 3   # the two drilled are no longer due
    assert c.post("/api/drill/next", json={"include_inaccuracies": True}).json()["due"] == 5   # ?! too


def test_a_corrupt_drill_deck_is_refused_in_one_line_and_left_as_it_is(tmp_path):
    from click.testing import CliRunner

    from gnoming_sim.cli.app import cli

    path = tmp_path / "drills.parquet"
    path.write_bytes(b"not a deck")
    c = connect(Board(I.Opened(), RuleConfig(), PUBLISHED, drill_deck=path))
    r = c.post("/api/drill/next", json={}).json()
    assert not r["ok"] and r["error"].startswith(f"drill deck {path}: not a readable Parquet file")
    assert not c.post("/api/drill/answer", json={"id": "x", "key": None}).json()["ok"]
    out = CliRunner().invoke(cli, ["board", "--no-browser", "--drill-deck", str(path)])
    assert out.exit_code == 2 and out.output.count("\n") == 1 and "not a readable Parquet file" in out.output
    assert path.read_bytes() == b"not a deck"


def test_without_the_board_extra_the_command_says_so_in_one_line(monkeypatch):
    import sys

    from click.testing import CliRunner

    from gnoming_sim.cli.app import cli

    monkeypatch.setitem(sys.modules, "starlette", None)   # import starlette -> ImportError
    r = CliRunner().invoke(cli, ["board", "--no-browser"])
    assert r.exit_code == 2 and r.output.count("\n") == 1
    assert "pip install 'gnoming-sim[board]'" in r.output


def five_positions() -> list:
    """Positions of every kind of decision, at 2 to 6 players: the example (place), a record's draw, place
    and hazard flip decisions, and a simulated game's draw at 6 players."""
    from gnoming_sim.search.estimates import position_from_game

    moves = I.open_input(RECORD, RuleConfig(), PUBLISHED).moves
    kinds = {}
    for m in moves:
        kinds.setdefault(m["position"]["decision"]["kind"], m["position"])
    out = [from_toml(EXAMPLE)] + [from_mapping(kinds[k], RuleConfig(), PUBLISHED) for k in ("draw", "hazard_flip")
                                  if k in kinds]
    out.append(from_mapping(moves[-1]["position"], RuleConfig(), PUBLISHED))
    out.append(position_from_game(5, 0, 20, 6, ["expert"] * 6))
    return out[:5]


@pytest.mark.slow
@pytest.mark.parametrize("horizon", ["round", "game"])
def test_live_analysis_agrees_with_analyse_on_five_positions(horizon):
    from gnoming_sim.search.estimates import estimate

    c = client()
    positions = five_positions()
    assert len(positions) == 5 and len({p.decision for p in positions}) == 3
    for i, pos in enumerate(positions if horizon == "round" else positions[:2]):   # the game horizon: longer
        job = c.post("/api/analysis", json={"position": pos.to_dict(), "seed": 7 + i, "cap": 200, "k": 20,
                                            "horizon": horizon, "why": False}).json()["job"]
        last = [d for kind, d in events(c, job) if kind == "update"][-1]
        want = estimate(pos, ["net"], seed=7 + i, rollouts=last["n"], horizon=horizon, second_policies=None,
                        threads=1)
        assert last["best"] == want["best"], (i, pos.describe())
        mine = {o["key"]: o for o in last["options"]}
        for o in want["options"]:
            for key in ("mean", "diff", "diff_ci95", "rank"):
                assert mine[o["key"]][key] == o[key], (i, o["key"], key)


@pytest.mark.slow
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_ctrl_c_or_sigterm_during_a_stream_stops_the_board_in_one_line(signame):
    """Ctrl-C (or SIGTERM) while the page reads a live analysis: "stopped", exit 0, nothing on stderr (no
    cancelled stream's traceback, no uvicorn line); the stream ends at once."""
    import signal
    import subprocess
    import sys
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "gnoming_sim", "board", "--no-browser", "--threads", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("gnoming-sim board: serving on http://127.0.0.1:"), line
        url = line.split("serving on ", 1)[1].split()[0]   # http://127.0.0.1:PORT/?token=...
        base, token = url.split("?token=")
        with urllib.request.urlopen(urllib.request.Request(f"{base}api/start", headers={"X-Board-Token": token}),
                                    timeout=30) as r:
            assert r.status == 200
        post = urllib.request.Request(f"{base}api/analysis", json.dumps({"position": example(), "cap": 400_000,
                                                                         "k": 20}).encode(),
                                      {"Content-Type": "application/json", "X-Board-Token": token})
        with urllib.request.urlopen(post, timeout=300) as r:
            job = json.loads(r.read())["job"]
        with urllib.request.urlopen(f"{base}api/analysis/{job}/events?token={token}", timeout=300) as stream:
            for raw in stream:
                if raw.startswith(b"event: update"):
                    break   # the stream is open and running
            proc.send_signal(getattr(signal, signame))
            rest = stream.read().decode()   # ends once the server stops
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert out.strip().splitlines() == ["gnoming-sim board: stopped"]
    assert err == "" or all(line.startswith("gnoming-sim: compil") or line.startswith("gnoming-sim:   compiled")
                            for line in err.splitlines()), err   # a cold numba cache says what it compiles
    assert "event: done" in rest   # the stream was ended, not cut
