"""The first derivation's printable card and page (tuning/guide/card.png, index.html), redrawn by the current code from
the derivation its run wrote (tuning/guide/guide.json: its tables, check and ladder): `python tuning/guide/page.py`
from the repository root (`make card-redraw` runs it with tuning/guide-iteration/page.py)."""
import json
from pathlib import Path

from gnoming_sim.tune.card import page, printed

here = Path(__file__).parent
guide = json.loads((here / "guide.json").read_text())
(here / "card.png").write_bytes(printed.card_png(guide))
(here / "index.html").write_text(page.page_html(guide))
print("wrote", here / "card.png", here / "index.html")
