"""
Iris flowers: decision regions of two features
==============================================

The second article fastnb started from builds Gaussian Naive Bayes from scratch
on two iris features only, sepal length and sepal width, trains on 80% of the
flowers and reports "Accuracy of our model: 80.0%".

With two features the model can be drawn: each class is an axis-aligned
Gaussian (a mean and a variance per feature, no correlation: the "naive"
assumption), and the predicted class changes where two classes' joint
likelihoods are equal, along curved boundaries.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

from fastnb import GaussianNB
from fastnb.datasets import load_iris

iris = load_iris()
X, y = iris["data"][:, :2], iris["target"]
species = iris["target_names"]

order = np.random.default_rng(4).permutation(len(y))
train, test = order[:120], order[120:]
model = GaussianNB().fit(X[train], y[train])
print(f"Accuracy of our model: {100 * model.score(X[test], y[test]):.1f}%")

# %%
# The decision regions and the class Gaussians
# --------------------------------------------
# ``predict`` and ``predict_proba`` on a grid: the colour is the predicted class,
# its strength the probability of that class. The ellipses are one and two
# standard deviations of each class's fitted Gaussian (``theta_`` and ``var_``).

xx, yy = np.meshgrid(np.linspace(4, 8.2, 300), np.linspace(1.8, 4.6, 300))
grid = np.column_stack([xx.ravel(), yy.ravel()])
region = model.predict(grid).reshape(xx.shape)
confidence = model.predict_proba(grid).max(axis=1).reshape(xx.shape)

colours = ["#e76f51", "#2a9d8f", "#264653"]
fig, ax = plt.subplots(figsize=(8, 5.5), layout="constrained")
ax.contourf(xx, yy, region, levels=[-0.5, 0.5, 1.5, 2.5],
            cmap=ListedColormap(colours), alpha=0.25)
ax.contour(xx, yy, confidence, levels=[0.5, 0.7, 0.9], colors="grey",
           linewidths=0.6, linestyles="dotted")
angle = np.linspace(0, 2 * np.pi, 200)
for c, colour in enumerate(colours):
    mean, sd = model.theta_[c], np.sqrt(model.var_[c])
    for k in (1, 2):
        ax.plot(mean[0] + k * sd[0] * np.cos(angle), mean[1] + k * sd[1] * np.sin(angle),
                color=colour, linewidth=1.2 if k == 1 else 0.6)
    ax.scatter(*X[train][y[train] == c].T, color=colour, s=18, alpha=0.6,
               label=f"{species[c]} (train)")
    ax.scatter(*X[test][y[test] == c].T, color=colour, s=60, marker="*",
               edgecolor="black", linewidth=0.5, label=f"{species[c]} (test)")
ax.set_xlabel("sepal length (cm)")
ax.set_ylabel("sepal width (cm)")
ax.set_title(f"GaussianNB on two features: {100 * model.score(X[test], y[test]):.0f}% "
             f"of {len(test)} test flowers")
ax.legend(loc="upper right", fontsize=8, ncols=2)
plt.show()

# %%
# Setosa is well separated; versicolor and virginica overlap in these two
# features, which is where the test errors are. The petal measurements (the two
# features left out) separate them; see
# :ref:`sphx_glr_auto_examples_articles_plot_iris_confusion.py`.
