"""Every design cell plays deals of its own: no two cells of a study share a
game number (with the study seed, game numbers fix the deals), while the arms and lineups of one
cell do share theirs (common random numbers).  And the small estimators behave as documented."""
from __future__ import annotations

import math

import numpy as np
import pytest

from gnoming_sim.stats import Estimate, clustered_share, holm
from gnoming_sim.analyses.framework.study import Context
from gnoming_sim.analyses.report import STUDIES
from gnoming_sim.analyses.tournament.design import HEADLINE_PLAYERS, is_slow


def _cell(study_id, table):
    if study_id == "tournament":   # a slow entrant's tables (one among experts) are a cell of their own
        return (table.players, is_slow(table))
    if study_id in ("early-finish", "ladder", "card", "pocket-rules"):
        return (table.players,)
    if study_id == "finish-play-on":
        return (table.seats[0], table.players)
    return (table.experiment, table.players)


# house-rules has its own test; agreement plays no games (it reads the committed decision set); the pocket rules'
# rungs share their table size's deals on purpose (paired), so its cell is the table size
@pytest.mark.parametrize("study", [s for s in STUDIES if s.id not in ("house-rules", "agreement", "value")],
                         ids=lambda s: s.id)
def test_cells_never_share_a_game_number(study):
    tables = study.design(Context(quick=True))
    ranges = {}
    for t in tables:
        ranges.setdefault(_cell(study.id, t), set()).update(range(t.first_game, t.first_game + t.games))
    cells = list(ranges)
    assert len(cells) > 1
    for i, a in enumerate(cells):
        for b in cells[i + 1:]:
            assert not ranges[a] & ranges[b], (study.id, a, b)


def test_the_lineups_of_a_tournament_cell_share_their_deals():
    tournament = next(s for s in STUDIES if s.id == "tournament")
    tables = tournament.design(Context())
    assert any(is_slow(t) for t in tables)   # mc is registered: it plays its own smaller cells
    # a preview seats no slow entrant (a dozen games could not place it; its compile takes minutes)
    assert not any(is_slow(t) for t in tournament.design(Context(quick=True)))
    for p in {t.players for t in tables}:
        for slow in (False, True):
            cells = {(t.first_game, t.games) for t in tables if t.players == p and is_slow(t) == slow}
            # the slow entrant plays at the headline table size only
            assert len(cells) == (1 if not slow or p == HEADLINE_PLAYERS else 0), (p, slow, cells)


def test_clustered_share_matches_the_ratio_and_widens_with_alike_rows():
    # the same 40% share, as 100 independent-looking clusters and as 100 all-or-nothing clusters of 4
    mixed = clustered_share(np.tile([2, 1, 2, 1, 2], 20), np.full(100, 4))
    alike = clustered_share(np.tile([4, 0, 4, 0, 0], 20), np.full(100, 4))
    assert math.isclose(mixed.mean, 0.4) and math.isclose(alike.mean, 0.4)
    assert alike.half_width > 3 * mixed.half_width
    assert alike.n == 100


def test_holm_is_step_down():
    # two-sided p about 0.001, 0.01, 0.04 and 0.6 among 4 tests: Holm compares them in order with
    # 0.05/4, 0.05/3, 0.05/2: keeps the first two and stops at the third (0.04 > 0.025)
    def est(z):
        return Estimate(z, z - 1.96, z + 1.96, 100)   # standard error 1: z-score = mean
    keep = holm([est(0.5), est(3.29), est(2.054), est(2.576)])
    assert keep == [False, True, False, True]
    assert holm([est(2.1), est(2.1)]) == [False, False]   # each p = 0.036 > 0.05 / 2


def test_the_house_rules_variants_are_one_cell_on_the_same_deals():
    """The house-rules section compares variants game by game: for each set of players (the mix and each rung of
    the strong ladder) one cell, every variant the same games."""
    from gnoming_sim.analyses.framework.study import RUNGS

    study = next(s for s in STUDIES if s.id == "house-rules")
    tables = study.design(Context(quick=True))
    arms = {t.label.split(":")[0] for t in tables}
    assert arms == set(RUNGS)
    for arm in arms:
        mine = [t for t in tables if t.label.startswith(arm + ":")]
        assert len(mine) >= 7
        assert len({(t.first_game, t.games, t.players, t.seats) for t in mine}) == 1, arm
