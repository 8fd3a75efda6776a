"""Limits on what a run may ask for, shared by the engine, the batch runner and the command line."""
from __future__ import annotations

MAX_SEED = 2**64 - 1   # a master seed is one uint64 word of the counter-based streams
MAX_GAME = 2**63 - 1   # game numbers are int64 in the kernels: first game + games - 1 must fit
