"""What the hidden layer adds on the training's own targets: learned's model (a linear fit of the 22 option
features, the centred ridge of gnoming_sim.tune.learn.fit, one weight set) against the net's fit, on the same
validation tenth as the net's fit (net_train.fit's split).  Run: python tuning/net/linear_baseline.py"""
import numpy as np

from gnoming_sim.kernel.policy import net as NN
from gnoming_sim.tune.learn import fit as ridge
from gnoming_sim.tune.net_train import held_aside, read_chunks

data = read_chunks(["tuning/net/data", "tuning/net/data-learned"])
X, y, nopt = data["inputs"], data["vals"], data["nopt"]
val = held_aside(len(nopt), 1)   # the net's split (its fit's seed 1)
coef, r2_train = ridge(X[~val], y[~val], nopt[~val], NN.NF, 1.0)
mask = np.arange(X.shape[1])[None, :] < nopt[val][:, None]
pred = X[val][..., :NN.NF] @ coef
e = (pred - y[val]) * mask
e = (e - e.sum(1, keepdims=True) / mask.sum(1, keepdims=True)) * mask
yc = y[val] * mask
yc = (yc - yc.sum(1, keepdims=True) / mask.sum(1, keepdims=True)) * mask
print(f"linear, 22 features: validation MSE {(e * e).sum() / mask.sum():.4f}, R2 {1 - (e * e).sum() / (yc * yc).sum():.4f}"
      f" (train R2 {r2_train:.4f}); the net: see log.csv")
