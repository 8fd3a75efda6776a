"""The committed card's printable card and page (tuning/guide-iteration/card.png, index.html): the card in
gnoming_sim/kernel/policy/chart_cells.json with the margins of margins-after.json (the report's guide study's deals):
`python tuning/guide-iteration/page.py` from the repository root (`make card` runs it with tuning/guide/page.py)."""
import json
from pathlib import Path

from gnoming_sim.kernel.policy import registry
from gnoming_sim.tune import card_print, guide_card

here = Path(__file__).parent
data = json.loads(registry.CHART_CELLS.read_text())
margins = json.loads((here / "margins-after.json").read_text())["margins"]
card = guide_card.iterated_guide(data, margins)
(here / "card.png").write_bytes(card_print.card_png(card))
(here / "index.html").write_text(guide_card.iteration_page_html(card))
print("wrote", here / "card.png", here / "index.html")
