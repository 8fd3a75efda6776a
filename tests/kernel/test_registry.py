"""The strategy registry is an object: registries are independent, a test or a
run installs its own with ``using`` and the module functions follow it, and a user strategy's
base is looked up in the registry it is built in."""
from __future__ import annotations

import pytest

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.registry import BUILTIN, DEFAULT, Registry


def _patient(reg: Registry, base: str = "greedy"):
    return reg.from_dict("patient", {"base": base, "finish_margin": 6})


def test_a_new_registry_holds_the_builtins_and_registers_apart_from_the_default():
    mine, other = Registry(), Registry()
    assert mine.names() == [s.name for s in BUILTIN]
    mine.register(_patient(mine))
    assert "patient" in mine.names()
    assert "patient" not in other.names() and "patient" not in DEFAULT.names()
    assert mine.get("patient").params["finish_margin"] == 6.0
    with pytest.raises(GnomingError, match="unknown strategy 'patient'"):
        other.get("patient")


def test_using_installs_a_registry_for_the_module_functions_and_restores_the_previous():
    mine = Registry()
    with registry.using(mine):
        assert registry.current() is mine
        registry.register(_patient(mine))
        assert registry.get("patient") is mine.get("patient")
        with registry.using(Registry()):                 # nested: the inner one wins
            assert "patient" not in registry.names()
        assert "patient" in registry.names()
    assert registry.current() is DEFAULT and "patient" not in registry.names()


def test_using_restores_the_previous_registry_after_an_error():
    with pytest.raises(RuntimeError):
        with registry.using(Registry()):
            raise RuntimeError("boom")
    assert registry.current() is DEFAULT


def test_a_base_is_looked_up_in_the_registry_the_strategy_is_built_in():
    mine = Registry()
    mine.register(_patient(mine))
    assert mine.from_dict("calmer", {"base": "patient", "reveal_bonus": 1.0}).params["finish_margin"] == 6.0
    with pytest.raises(GnomingError, match="base: unknown strategy 'patient'"):
        Registry().from_dict("calmer", {"base": "patient"})


def test_load_file_registers_into_its_registry_only(write_toml):
    mine = Registry()
    made = mine.load_file(write_toml("[strategy.patient]\nbase = 'greedy'\nfinish_margin = 6\n"))
    assert [s.name for s in made] == ["patient"] and "patient" in mine.names()
    assert "patient" not in DEFAULT.names()
