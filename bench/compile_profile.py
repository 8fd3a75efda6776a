"""Where a cold compile goes: seconds per jitted function, exclusive of the functions it compiles in turn,
and how many times each was compiled (``xN``: N signatures, often a literal argument typed once per value).

    NUMBA_CACHE_DIR=$(mktemp -d) python bench/compile_profile.py -- "from gnoming_sim.kernel.engine import simulate; simulate(4, ['greedy'], 10)"
"""
import sys, time, atexit, collections
from numba.core import event
stack = []
excl = collections.Counter(); incl = collections.Counter(); cnt = collections.Counter()
class L(event.Listener):
    def on_start(self, ev):
        d = (ev.data or {}).get("dispatcher"); name = getattr(d, "__qualname__", None) or getattr(getattr(d,'py_func',None),'__qualname__','?')
        mod = getattr(d, "__module__", "?")
        stack.append([f"{mod}.{name}", time.perf_counter(), 0.0])
    def on_end(self, ev):
        name, t0, child = stack.pop()
        dt = time.perf_counter() - t0
        excl[name] += dt - child; incl[name] += dt; cnt[name] += 1
        if stack: stack[-1][2] += dt
event.register("numba:compile", L())
T0 = time.perf_counter()
@atexit.register
def rep():
    tot = sum(excl.values())
    print(f"\n== compile total {tot:.1f}s (wall {time.perf_counter()-T0:.1f}s), {sum(cnt.values())} compiles", file=sys.stderr)
    for k, v in excl.most_common(40):
        print(f"{v:7.1f}s excl {incl[k]:7.1f}s incl x{cnt[k]} {k}", file=sys.stderr)
code = sys.argv[sys.argv.index('--')+1]
exec(compile(code, "<prof>", "exec"), {"__name__": "__prof__"})
