"""Golden fingerprints: any change of behaviour of a kind of player or an analysis command fails here.

A failure means that seeded results changed.  If the change is deliberate, run ``make golden``
and say why in the commit; otherwise the refactor changed what the game does.
"""
import pytest

import _golden as cases

EXPECTED = cases.load()
CASES = cases.all_cases()
SLOW = {"mc-3p", "mcx-3p", "analyse-game-default", "compare-3p", "tune-3p-1gen"}


def test_every_case_has_a_fingerprint():
    assert sorted(EXPECTED) == sorted(CASES), "run `make golden` after adding or removing a case"


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n
                                  for n in sorted(CASES)])
def test_fingerprint_unchanged(name):
    got = CASES[name]()
    assert got == EXPECTED[name], (
        f"golden case {name}: fingerprint {got}, expected {EXPECTED[name]}: behaviour changed. "
        "If deliberate, run `make golden` and say why in the commit.")


def test_fingerprint_sees_a_one_card_change():
    """The hash is not blind: one changed score changes it."""
    import numpy as np

    a = np.zeros((3, 4), dtype=np.int32)
    b = a.copy()
    b[2, 3] = 1
    assert cases._digest(a) != cases._digest(b)
    assert cases._json_digest({"mean": 1.0}) != cases._json_digest({"mean": 1.000001})
