"""The committed card's printable card and page (tuning/guide-iteration/card.png, index.html): the card in
gnoming_sim/kernel/policy/card_cells.json with the margins of margins-after.json (the report's card study's deals):
`python tuning/guide-iteration/page.py` from the repository root (`make card-redraw` runs it with tuning/guide/page.py)."""
import json
from pathlib import Path

from gnoming_sim.kernel.policy import registry
from gnoming_sim.tune.card import page, printed

here = Path(__file__).parent
data = json.loads(registry.CARD_CELLS.read_text())
margins = json.loads((here / "margins-after.json").read_text())["margins"]
card = page.iterated_card(data, margins)
(here / "card.png").write_bytes(printed.card_png(card))
(here / "index.html").write_text(page.iteration_page_html(card))
print("wrote", here / "card.png", here / "index.html")
