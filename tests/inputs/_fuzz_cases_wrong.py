"""Command lines that were accepted and did something other than they said: each must now be refused in one
line with exit 2.

A case file of the fuzz harness (see ``_fuzz_cases.EXTRA_MODULES``): ``cases`` the command lines,
``REGRESSIONS`` the ids `make test-fast` runs (all of them: each is refused before any work).

* ``card --rounds N`` without ``--iterate``: the rounds cap only the policy iteration; the derivation has
  none, and the option was ignored.
* ``analyse --position-id`` with a crafted ID that is not the one ID of the position it holds (check bytes
  right for what it holds): a rules or deck flag with nothing that differs, an option "changed" to its
  published value, the published deck spelt out (in order or not), padding bits set, a byte past the
  position, a base64 spare bit set.  Each was read as the position, so one position had several IDs (and
  could become several drill cards).
"""
from __future__ import annotations


CARD = ["card", "--out", "@tmp/card", "--games", "4", "--check-deals", "0"]
ANALYSE = ["analyse", "--rollouts", "10", "--position-id"]
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _packing(pos) -> tuple[int, int]:
    """(value, bits) of ``pos``'s packing before its padding, as the encoder counts them."""
    from gnoming_sim.game import position_id as pid

    seen = {}

    class Recording(pid._Writer):
        def to_bytes(self):
            seen.update(value=self.value, n=self.n)
            return super().to_bytes()

    original, pid._Writer = pid._Writer, Recording
    try:
        pid.encode(pos)
    finally:
        pid._Writer = original
    return seen["value"], seen["n"]


def crafted() -> dict[str, str]:
    """{name: ID}: the example position (published rules and deck) spelt in ways the encoder never writes, each
    with check bytes that are right for its bytes."""
    from _examples import position

    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.rules import RuleConfig
    from gnoming_sim.game import position_id as pid

    value, n = _packing(position())
    body, body_bits = value & ((1 << (n - 2)) - 1), n - 2      # the bits after the rules and deck flags

    def make(*head, rules=(), deck=None, pad=0, extra=b""):
        w = pid._Writer()
        for bit in head:
            w.bits(bit, 1)
        if deck is not None:
            w.gamma(len(deck) - 1)
            for code, count in deck:
                w.bits(pid._symbol(code), pid._SYMBOL_BITS)
                w.gamma(count - 1)
        for name in pid.RULE_FIELDS if rules != () else ():
            w.bits(name in rules, 1)
            if name in rules and rules[name] is not None:
                w.signed(rules[name])
        w.bits(body, body_bits)
        payload = bytearray(w.to_bytes())
        payload[-1] |= pad & ((1 << (-w.n % 8)) - 1)
        payload = bytes(payload) + extra
        return pid.PREFIX + pid._text(payload + pid._check(payload))

    default = RuleConfig()
    out = {
        "rules_flag_nothing_differs": make(1, 0, rules={}),
        "hazard_value_changed_to_published": make(1, 0, rules={"hazard_value": default.hazard_value}),
        "max_turns_changed_to_published": make(1, 0, rules={"max_turns": default.max_turns}),
        "published_deck_spelt_out": make(0, 1, deck=PUBLISHED.counts),
        "published_deck_spelt_out_reversed": make(0, 1, deck=PUBLISHED.counts[::-1]),
        "padding_bits_set": make(1, 0, rules={"bouncing": None}, pad=0xFF),
        "zero_byte_past_the_position": make(0, 0, extra=b"\x00"),
    }
    # an ID whose last character has spare bits (the good one, else with a byte or two more): the lowest set
    spare = next(t for t in (make(0, 0), make(0, 0, extra=b"\x00"), make(0, 0, extra=b"\x00\x00"))
                 if len(t[3:]) % 4 in (2, 3))
    out["base64_spare_bit_set"] = spare[:-1] + ALPHABET[ALPHABET.index(spare[-1]) ^ 1]
    return out


def cases() -> list[tuple[str, list[str]]]:
    out = [(f"wrong:card--rounds-without-iterate={v}", [*CARD, "--rounds", v]) for v in ("1", "4", "50")]
    out += [(f"wrong:analyse--position-id={name}", [*ANALYSE, text]) for name, text in crafted().items()]
    return out


REGRESSIONS = [name for name, _ in cases()]
