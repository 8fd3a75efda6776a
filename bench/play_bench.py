"""The board's play mode, for ``make bench`` (``python bench/bench.py --play`` alone): a real ``gnoming-sim board
--no-browser`` process (warm numba cache), one game of 4 players (the person's seat and three ``net``) played
through ``/api/play`` as the page plays it, the person's moves chosen as ``net`` would (any legal move costs
the same), timed:

* a click to the page's update: each ``/api/play/act`` request from send to the whole answer read (the view
  and the story's new lines: all the page waits on before it redraws), the median and the slowest;
* another seat's turn (``/api/play/others``, the page calls it after its pause), the median;
* the end of the game to its review: ``/api/play/review`` (the record graded as ``review`` grades it, the
  board's review view built, its marks added to the drill deck);
* in the page itself (Chromium, /usr/bin/chromium, through playwright, where installed): a click on the table
  to the page redrawn with the game moved on (a 2-player game's first 30 clicks of the person, ``pause`` 0).

    python bench/play_bench.py
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

PLAYERS, SEED = 4, 7


def _post(url: str, body: dict, token: str) -> tuple[dict, float]:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json",
                                                                  "X-Board-Token": token})
    t = time.perf_counter()
    with urllib.request.urlopen(req, timeout=600) as r:
        data = json.loads(r.read())
    return data, time.perf_counter() - t


def _choose(view: dict, rng: random.Random) -> int:
    d = view["decision"]
    if d["kind"] == "init_flip":
        a, b = rng.sample(d["legal"], 2)
        return a * 9 + b
    return rng.choice(d["legal"])


def play_times(base: str, token: str) -> dict:
    """One whole game through the routes: the seconds of every click and every other seat's turn, the review's."""
    rng = random.Random(SEED)
    r, _ = _post(f"{base}api/play/new", {"players": PLAYERS, "seat": 0, "opponents": "net", "seed": SEED}, token)
    clicks, others = [], []
    while r["view"]["state"] != "game_over":
        body = {"game": r["game"], "moves": r["view"]["moves"], "seen": r["seen"]}
        state = r["view"]["state"]
        if state == "you":
            r, s = _post(f"{base}api/play/act", {**body, "action": _choose(r["view"], rng)}, token)
            clicks.append(s)
        elif state == "others":
            r, s = _post(f"{base}api/play/others", body, token)
            others.append(s)
        else:
            r, _ = _post(f"{base}api/play/next-round", body, token)
    body = {"game": r["game"], "moves": r["view"]["moves"]}
    review, seconds = _post(f"{base}api/play/review", body, token)
    return {"clicks": sorted(clicks), "others": sorted(others), "review": seconds,
            "graded": len(review["opened"]["moves"]), "totals": r["view"]["totals"]}


CLICK = {"draw": "#play-draw", "bounce": "#play-stop", "hazard_flip": "#play-decline"}


def page_clicks(url: str, clicks: int = 30) -> list[float] | None:
    """Seconds from each click on the page to the page redrawn with the game moved on, or None without
    playwright or Chromium."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not os.path.exists("/usr/bin/chromium"):
        return None
    out = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--headless"])
        page = browser.new_page()
        page.goto(url)
        page.wait_for_selector("#status.ok, #status.error", timeout=120_000)
        page.select_option("#play-players", "2")
        page.fill("#play-seed", str(SEED))
        page.fill("#play-pause", "0")
        page.click("#play-new")
        slot = "#play-table .seat[data-seat='0'] .slot[data-slot='{}']"
        while len(out) < clicks:
            page.wait_for_function("() => P.view && P.view.state !== 'others' && !P.busy", timeout=120_000)
            view = page.evaluate("() => P.view")
            if view["state"] == "game_over":
                break
            if view["state"] == "round_over":
                target = "#play-next"
            else:
                d = view["decision"]
                if d["kind"] == "init_flip":
                    page.click(slot.format(d["legal"][0]))
                    target = slot.format(d["legal"][1])
                elif d["kind"] == "place":
                    target = slot.format(d["legal"][0]) if d["legal"][0] < 9 else "#play-nokeep"
                elif d["kind"] == "discard":
                    target = f"#play-pile{d['legal'][0]}"
                else:
                    target = CLICK[d["kind"]]
            t = time.perf_counter()
            page.click(target)
            page.wait_for_function(f"() => P.view.moves > {view['moves']} && !P.busy", timeout=120_000)
            out.append(time.perf_counter() - t)
        browser.close()
    return sorted(out)


def play_section() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([sys.executable, "-m", "gnoming_sim", "board", "--no-browser", "--drill-deck",
                                 os.path.join(tmp, "drills.parquet")],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            url = urllib.parse.urlsplit(proc.stdout.readline().split("serving on ", 1)[1].split()[0])
            base, token = f"{url.scheme}://{url.netloc}/", urllib.parse.parse_qs(url.query)["token"][0]
            _wait(base, token)
            play_times(base, token)   # the first game loads (or compiles) the kernels the play mode calls
            r = play_times(base, token)
            page = page_clicks(f"{base}?token={token}")
        finally:
            proc.terminate()
            proc.wait(10)
    c, o = r["clicks"], r["others"]
    print("| play mode (4 players, 3 `net`) | clicks | click -> page update, median ms | slowest ms | "
          "another seat's turn, median ms | end of game -> review s (decisions graded) |")
    print("|---|---|---|---|---|---|")
    print(f"| warm process | {len(c)} | {1000 * c[len(c) // 2]:.1f} | {1000 * c[-1]:.1f} | "
          f"{1000 * o[len(o) // 2]:.1f} | {r['review']:.1f} ({r['graded']}) |")
    if page:
        print(f"| in the page (Chromium) | {len(page)} | {1000 * page[len(page) // 2]:.1f} | {1000 * page[-1]:.1f} "
              "| | |")
    print(f"\n(targets: a click 0.1 s, the review 20 s; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores)")


def _wait(base: str, token: str) -> None:
    while True:
        try:
            req = urllib.request.Request(f"{base}api/start", headers={"X-Board-Token": token})
            with urllib.request.urlopen(req, timeout=5) as r:
                r.read()
            return
        except OSError:
            time.sleep(0.02)


if __name__ == "__main__":
    play_section()
