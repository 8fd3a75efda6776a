"""The cells the policy iteration's later rounds concentrate on (issue 50 item 3): from disagree.json (4-player
games of experts: each cell's covered decisions and where the card's option is not expert's) and the last round's
estimates in history.json, every cell that comes up often at 4 players (at least MIN_FREQ decisions a seat and
game) whose best other action's 95% interval still holds 0, or where the card and expert disagree at least
MIN_DIS times a seat and game. Prints the cells, comma-separated (`gnoming-sim card --iterate --focus`), and why each is in.
`python tuning/guide-iteration/focus.py [HISTORY_JSON]` from the repository root."""
import json
import sys
from pathlib import Path

MIN_FREQ, MIN_DIS = 0.2, 0.05
here = Path(__file__).parent
dis = json.loads((here / "disagree.json").read_text())
hist = json.loads(Path(sys.argv[1] if len(sys.argv) > 1 else here / "history.json").read_text())
seat_games = dis["games"] * 4
chosen = []
for e in dis["cells"]:
    c, freq, d = e["cell"], e["n"] / seat_games, e["differ"] / seat_games
    st = hist["stats"].get(str(c))
    straddles = False
    if st:
        rivals = {a: g for a, g in st["gain"].items() if a != st["current"]}
        best = max(rivals.values(), key=lambda g: g["mean"])
        straddles = best["ci95"][0] <= 0 <= best["ci95"][1]
    if (freq >= MIN_FREQ and straddles) or d >= MIN_DIS:
        chosen.append(c)
        print(f"cell {c} ({e['table']}, {e['action']}): {freq:.2f} a seat-game, disagrees {d:.2f}, "
              f"last interval holds 0: {straddles}", file=sys.stderr)
print(",".join(str(c) for c in sorted(chosen)))
