"""Loss probe (issue #34, round 6): the placement head fitted on the round-5 data under another loss, warm-started from the
installed head; writes a weights file (the installed one with the placement weights replaced) to play on validation deals.
Written for the 37-input layout before round 7's layout features (run at commit 3e17edc; the chunk folders it reads
hold 37-input rows, the current head takes 46).
    python tuning/net/loss_probe.py KIND T MAXITER OUT.json

KIND wmse: the centred squared error weighted by exp(-(value - best value) / T) (the answers near the best count
most); ce: the cross-entropy of the head's softmax over a decision's answers against softmax(-value / T) (only the
ranking matters).  Prints the validation regret (the decisions held aside by net_train's own split: mean rollout
value of the answer picked minus the best answer's) every 25 iterations.  The chunk folders as step 14 of run.sh.
"""
import sys, json, time, numpy as np
from scipy.optimize import minimize
from gnoming_sim.tune import net_train as T
from gnoming_sim.kernel.policy import net as NN
kind, temp, maxiter, out = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
folders = ["tuning/net/data", "tuning/net/data-learned", "tuning/net/data-net2", "tuning/net/data-net3", "tuning/net/data-net4"]
data = T.read_chunks(folders)
head = T.PLACE
X, y, nopt = data["inputs"], data["vals"], data["nopt"]
mask = (np.arange(X.shape[1])[None, :] < nopt[:, None]).astype(np.float64)
mu, sd = T.standardise(X, mask)
Xs = (X - mu) / sd * mask[..., None]
val = T.held_aside(len(nopt), 1)   # step 14's fit (seed 1)
tr = ~val
inst = json.load(open("tuning/net/fit-net4/weights.json"))
w_raw = np.array(inst["weights"], dtype=np.float64)
w0 = T.unfold(w_raw, mu, sd, head)   # weights on standardised inputs
assert np.allclose(T.fold(w0, mu, sd, head), w_raw)
big = 1e9

def fwd_grad(w, X, y, mask, l2):
    Wm, bm, um, am = T.unpack(w, head)
    Z = X @ Wm.T + bm
    A = np.maximum(Z, 0.0)
    f = X[..., :head.nf] @ am + A @ um
    D = mask.shape[0]
    if kind == "wmse":
        ymin = np.where(mask > 0, y, big).min(axis=1, keepdims=True)
        om = np.exp(-(y - ymin) / temp) * mask
        n = np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
        e = (f - y) * mask
        r = (e - e.sum(axis=1, keepdims=True) / n) * mask
        tot = om.sum()
        loss = float((om * r * r).sum() / tot)
        gr = 2.0 * om * r / tot
        g_f = (gr - gr.sum(axis=1, keepdims=True) / n) * mask
    else:
        ly = np.where(mask > 0, -y / temp, -big)
        q = np.exp(ly - ly.max(axis=1, keepdims=True)); q /= q.sum(axis=1, keepdims=True)
        lf = np.where(mask > 0, -f, -big)
        m = lf.max(axis=1, keepdims=True)
        lse = m + np.log(np.exp(lf - m).sum(axis=1, keepdims=True))
        logp = (lf - lse) * mask
        p = np.exp(lf - lse) * mask
        loss = float(-(q * logp).sum() / D)
        g_f = (q - p) / D
    g = T.backprop(w, X, Z, A, g_f, head)
    return loss + l2 * float(w @ w), g + 2.0 * l2 * w, f

def regret(w, X, y, mask):
    return float(T.decision_regret(fwd_grad(w, X, y, mask, 0.0)[2], y, mask).mean())

print("start val regret", regret(w0, Xs[val], y[val], mask[val]), "train", regret(w0, Xs[tr], y[tr], mask[tr]), flush=True)
t0 = time.perf_counter()
it = [0]
def cb(wk):
    it[0] += 1
    if it[0] % 25 == 0:
        print(it[0], "val regret", round(regret(wk, Xs[val], y[val], mask[val]), 4), round(time.perf_counter() - t0), flush=True)
res = minimize(lambda w: fwd_grad(w, Xs[tr], y[tr], mask[tr], 1e-4)[:2], w0, jac=True, method="L-BFGS-B", callback=cb,
               options={"maxiter": maxiter})
print("end val regret", regret(res.x, Xs[val], y[val], mask[val]), "train", regret(res.x, Xs[tr], y[tr], mask[tr]), flush=True)
inst["weights"] = [float(v) for v in T.fold(res.x, mu, sd, head)]
inst["description"] = f"loss probe {kind} T={temp} maxiter={maxiter} (scratch)"
json.dump(inst, open(out, "w"))
