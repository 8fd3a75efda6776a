"""Counter-seeded random streams: splitmix64 seeds a xoshiro256** state per (seed, game, stream).

Every game owns its streams, so results do not depend on threads or chunking.
A state is a uint64 array of shape (4,), updated in place.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.kernel.jit import jit

STREAM_DEAL = 0  # the three deck orders of a game
STREAM_PLAY = 1  # strategy decisions and reshuffles

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@jit
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@jit
def seed_stream(state, seed, index, stream):
    """Fill ``state`` (uint64[4]) for stream ``stream`` of game ``index`` under master ``seed``."""
    x = _mix(np.uint64(seed) + _GOLDEN)
    x = _mix(x ^ (np.uint64(index) + _GOLDEN))
    x = _mix(x ^ (np.uint64(stream) * _GOLDEN + np.uint64(1)))
    for k in range(4):
        x = x + _GOLDEN
        state[k] = _mix(x)


@jit
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@jit
def next_u64(s):
    """xoshiro256** step: returns a uint64 and advances ``s`` in place."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@jit
def below(s, n):
    """A uniform integer in ``0 .. n-1`` (``n`` < 2**32; multiply-shift, bias < 2**-32)."""
    hi = next_u64(s) >> np.uint64(32)
    return np.int64((hi * np.uint64(n)) >> np.uint64(32))


@jit
def uniform01(s):
    """A uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@jit
def shuffle_prefix(s, a, n):
    """Fisher-Yates shuffle of ``a[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = below(s, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t
