"""
Are the probabilities right? A reliability diagram
==================================================

``predict_proba`` returns probabilities. They are *calibrated* if, among the
rows given 0.8, about 80% belong to the class. A reliability diagram checks
this: group rows by their predicted probability, and plot each group's mean
prediction against the fraction of it that really is in the class.

Naive Bayes is calibrated when its assumption holds: the features are
independent within each class. When they are not, the model counts the same
evidence several times and becomes over-confident. This example shows both,
and the usual repair: scikit-learn's ``CalibratedClassifierCV`` wraps a fastnb
estimator like any other.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import CalibratedClassifierCV

from fastnb import GaussianNB

rng = np.random.default_rng(0)
n = 40_000
y = rng.integers(0, 2, n)
# Four features, each weakly informative and independent within a class.
independent = rng.normal(size=(n, 4)) + 0.6 * y[:, None]
# The same information, each feature repeated five times with a little noise:
# strongly correlated within a class, which Naive Bayes ignores.
repeated = np.repeat(independent, 5, axis=1) + 0.1 * rng.normal(size=(n, 20))
train, test = slice(0, n // 2), slice(n // 2, None)


def reliability(proba, truth, bins=10):
    """Mean predicted probability and observed frequency per probability bin."""
    which = np.minimum((proba * bins).astype(int), bins - 1)
    counts = np.bincount(which, minlength=bins)
    kept = counts > 0
    mean_proba = np.bincount(which, proba, bins)[kept] / counts[kept]
    observed = np.bincount(which, truth, bins)[kept] / counts[kept]
    return mean_proba, observed, counts


models = {
    "independent features": (GaussianNB().fit(independent[train], y[train]), independent),
    "features repeated 5x": (GaussianNB().fit(repeated[train], y[train]), repeated),
    "repeated, isotonic-calibrated": (
        CalibratedClassifierCV(GaussianNB(), method="isotonic", cv=3).fit(
            repeated[train], y[train]), repeated),
}

# %%
# The diagram
# -----------
# On the diagonal, predictions are calibrated. Below it on the right (and above
# it on the left), the model is more confident than it should be. The lower
# panel shows how many test rows received each probability.

fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 8), sharex=True, layout="constrained",
                                  gridspec_kw={"height_ratios": [3, 1]})
top.plot([0, 1], [0, 1], color="grey", linestyle=":", label="perfectly calibrated")
for (name, (model, X)), style in zip(models.items(), ["o-", "s-", "^--"]):
    proba = model.predict_proba(X[test])[:, 1]
    mean_proba, observed, counts = reliability(proba, y[test])
    top.plot(mean_proba, observed, style, label=name)
    bottom.hist(proba, bins=20, range=(0, 1), histtype="step", linewidth=1.5, label=name)
    gap = np.average(np.abs(mean_proba - observed), weights=counts[counts > 0])
    print(f"{name:>30}: mean calibration gap {gap:.3f}")
top.set_ylabel("fraction of rows in class 1")
top.set_title("Reliability of GaussianNB's predict_proba")
top.legend(loc="upper left")
bottom.set_xlabel("predicted probability of class 1")
bottom.set_ylabel("test rows")
bottom.set_yscale("log")
plt.show()

# %%
# With independent features the points follow the diagonal. Repeating each
# feature five times multiplies the log-odds by about five, so the predictions
# crowd at 0 and 1 and the curve turns into an S. ``CalibratedClassifierCV``
# learns a monotone map from the fitted model's output back to frequencies, on
# held-out folds.
