"""Ensemble probe (issue #34, round 6, offline; not installed): validation regret (rollout value of the answer picked minus the best's) of placement heads and their averages.
The round 6 fits (commands in round6-probes.out) are written under /work/scratch, not committed; run from the repository root.
Written for the 37-input layout before round 7's layout features (run at commit 3e17edc; the chunk folders it reads
hold 37-input rows, the current head takes 46).
"""
import json, itertools, numpy as np
from gnoming_sim.tune import net_train as T
folders = ["tuning/net/data", "tuning/net/data-learned", "tuning/net/data-net2", "tuning/net/data-net3", "tuning/net/data-net4"]
data = T.read_chunks(folders)
X, y, nopt, pl = data["inputs"], data["vals"], data["nopt"], data["players"]
mask = (np.arange(X.shape[1])[None, :] < nopt[:, None])
files = {"installed": "tuning/net/weights.json", "long1000": "/work/scratch/fit-net5-1000/weights.json",
         "l2e5": "/work/scratch/fit-net5-l2e5/weights.json", "wmse": "/work/scratch/loss-wmse-3.json",
         "ce": "/work/scratch/loss-ce-2.json", "round3": "tuning/net/fit-net2/weights.json", "step11": "tuning/net/fit-net3/weights.json"}
F = {}
for k, p in files.items():
    try:
        w = np.array(json.load(open(p))["weights"])
    except FileNotFoundError:
        continue
    F[k] = np.concatenate([T.forward(w, X[i:i + 20000]) for i in range(0, len(X), 20000)])
val = T.held_aside(len(nopt), 1)   # the held-aside tenth of step 14's fit (seed 1)
def regret(f, sel):
    r = T.decision_regret(f[sel], y[sel], mask[sel])
    return r.mean(), r.std() / np.sqrt(len(r))
four = pl == 4
for name, f in list(F.items()) + [("avg:" + "+".join(c), np.mean([F[x] for x in c], axis=0)) for n in (2, 3) for c in itertools.combinations([k for k in F if k in ("installed", "long1000", "wmse", "ce", "l2e5")], n)]:
    a, sa = regret(f, val); b, sb = regret(f, val & four)
    print(f"{name:40s} val regret {a:.4f} ({sa:.4f})   4p {b:.4f} ({sb:.4f})", flush=True)
