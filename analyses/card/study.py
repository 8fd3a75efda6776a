"""The card as a :class:`~gnoming_sim.analyses.framework.study.Study`: it renders the committed card (the package
data the ``card`` and ``card-starred`` presets read) and plays its own check of each against expert."""
from __future__ import annotations

import json

from gnoming_sim.experiments.card_check import MARGIN_RIVALS, MARGIN_SIZES, versus_expert_along, versus_expert_each
from gnoming_sim.kernel.policy import registry

from ..framework.design import STRONG_LADDER
from ..framework.study import Study
from . import design, findings


class CardStudy(Study):
    id = "card"
    stream = "guide"    # the deals it played as the guide study
    title = "The card"
    # deals per table size (each played once per rotation: by the card among each rival's players and by the rival
    # alone at 2, 4 and 6 players (the card's margins; a sixth of the deals against the rivals other than expert:
    # design.margin_deals), by its starred cells among experts at 4 and 6;
    # at the headline's size also by the card and by expert among each rung's rivals, design.ALONG_SHARE times as
    # many deals: the ladder's equivalence test needs them for 80% power at its margin)
    default_games = 3000
    quick_games = 100
    tables, conclude = staticmethod(design.tables), staticmethod(findings.conclude)

    def play(self, ctx, seed, tables, advance):
        committed = json.loads(registry.CARD_CELLS.read_text())
        deals = ctx.cell_games(self)
        checks, margins = [], {}
        for p in design.SIZES:
            for r in MARGIN_RIVALS if p in MARGIN_SIZES else ("expert",):
                xs, n = design.checked(p, r), design.margin_deals(deals, r)
                got = versus_expert_each(xs, p, n, seed, ctx.rules, ctx.deck, ctx.threads,
                                         first_game=design.first_game(p), rivals=r, reference=r)
                if p in MARGIN_SIZES:
                    margins.setdefault(str(p), {})[r] = got[0]
                if r == "expert" and p in design.PLAYERS:
                    checks += got
                advance((len(xs) + 1) * n * p)
        p = design.HEADLINE_PLAYERS
        along = versus_expert_along(design.ALONG, STRONG_LADDER, p, design.along_deals(deals), seed, ctx.rules,
                                    ctx.deck, ctx.threads, first_game=design.first_game(p))
        advance(2 * len(STRONG_LADDER) * design.along_deals(deals) * p)
        return {"card": committed, "checks": checks, "along": along, "margins": margins}

