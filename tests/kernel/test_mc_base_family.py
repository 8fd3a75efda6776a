"""An MC strategy's ``mc_learned_base`` selects its base policy's family; a strategies file that
selects the learned (1) or net (2) family without that family's weights is refused in one line
(it used to play a family of zero weights)."""
from __future__ import annotations

import pytest

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel.policy import registry


@pytest.mark.parametrize("base, family, name", [("mc", 2, "net"), ("mc", 1, "learned"), ("mcx", 2, "net"),
                                                ("mc-learned", 2, "net")])
def test_a_family_without_its_weights_is_refused(tmp_path, own_registry, base, family, name):
    path = tmp_path / "s.toml"
    path.write_text(f'[strategy.x]\nbase = "{base}"\nmc_learned_base = {family}\n')
    with pytest.raises(GnomingError) as err:
        registry.load_file(path)
    msg = str(err.value)
    assert "\n" not in msg and f"'mc_learned_base' = {family} selects the {name} family" in msg
    assert f'set policy = "{name}"' in msg


@pytest.mark.parametrize("text, family", [('base = "mc"\npolicy = "net"\n', 2),
                                          ('base = "mc"\npolicy = "learned"\nmc_learned_base = 1\n', 1),
                                          ('base = "mc-net"\nmc_learned_base = 1\n', 1),    # net carries learned's
                                          ('base = "mc-net"\nmc_learned_base = 0\n', 0),
                                          ('base = "mc"\nmc_learned_base = 0\n', 0)])
def test_a_family_with_its_weights_is_accepted(tmp_path, own_registry, text, family):
    path = tmp_path / "s.toml"
    path.write_text("[strategy.x]\n" + text)
    (made,) = registry.load_file(path)
    assert made.params["mc_learned_base"] == family
