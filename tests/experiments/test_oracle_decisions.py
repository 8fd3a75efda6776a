"""The oracle-valued decision set (experiments.oracle_decisions): every sampled decision rebuilds from its position
ID with the same legal options, net's own choice among them, the best the highest; bad input refused."""
from __future__ import annotations

import numpy as np
import pytest

from gnoming_sim.experiments import oracle_decisions as od


def test_bad_input_and_an_existing_output_are_refused(tmp_path, capsys):
    assert od.main(["--players", "2"]) == 2
    assert od.main(["--rollouts", "1"]) == 2
    out = tmp_path / "d.parquet"
    out.write_text("keep me")
    assert od.main(["--out", str(out)]) == 2
    assert out.read_text() == "keep me" and "not overwritten" in capsys.readouterr().err


def test_quotas_oversample_the_rules_kinds():
    q = od.quotas(600)
    assert q == {"take": 150, "hazard": 150, "mulligan": 150, "place": 75, "finish": 75}


@pytest.mark.slow
def test_a_small_set_rebuilds_from_its_position_ids():
    from gnoming_sim.search.options import legal_options
    from gnoming_sim.game.position_id import decode

    rows = od.run(4, 4, 10, 4, seed=3)
    assert {r["kind"] for r in rows} <= set(od.KINDS) and len(rows) >= 5
    for r in rows:
        pos = decode(r["position_id"])
        assert [o.key for o in legal_options(pos)] == r["keys"]
        assert r["net_key"] in r["keys"] and r["best_key"] == r["keys"][int(np.argmax(r["mean"]))]
        assert len(r["mean"]) == len(r["diff_se"]) and r["diff_se"][r["keys"].index(r["best_key"])] == 0.0
        if r["kind"] == "finish":
            assert r["finish_key"] in r["keys"] and r["gap"] is not None
        if r["kind"] == "hazard":
            assert r["hand_class"] == "hazard" and r["source"] == 0


def test_fewer_kinds_share_the_quota():
    assert od.quotas(600, ("finish",)) == {"finish": 600}
    assert od.main(["--kinds", "bogus"]) == 2
