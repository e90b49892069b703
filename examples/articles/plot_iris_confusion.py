"""
Iris flowers: accuracy and the confusion matrix
===============================================

The first article fastnb started from fits a Gaussian Naive Bayes classifier on
Fisher's iris flowers (four measurements in centimetres, three species), trains
on 75% of them and reports "Result: 100.00% Correct" on the rest, with its
confusion matrix.

The article split the flowers at random without a seed. Here the split is
seeded, so the figure is reproducible, and the same experiment is repeated over
200 random splits to show how typical 100% is.
"""

import matplotlib.pyplot as plt
import numpy as np

from fastnb import GaussianNB
from fastnb.datasets import load_iris

iris = load_iris()
X, y, species = iris["data"], iris["target"], iris["target_names"]

# %%
# One split, as in the article
# ----------------------------
# 112 flowers to train on, 38 to test on.

order = np.random.default_rng(4).permutation(len(y))
train, test = order[:112], order[112:]
model = GaussianNB().fit(X[train], y[train])
predicted = model.predict(X[test])
print(f"Result: {100 * np.mean(predicted == y[test]):.2f}% Correct")

confusion = np.zeros((3, 3), dtype=int)
np.add.at(confusion, (y[test], predicted), 1)
print(confusion)

# %%
# Many splits
# -----------
# The same experiment over 200 other random splits: 100% is a good split, not
# the rule.

scores = []
for seed in range(1000, 1200):
    order = np.random.default_rng(seed).permutation(len(y))
    fitted = GaussianNB().fit(X[order[:112]], y[order[:112]])
    scores.append(fitted.score(X[order[112:]], y[order[112:]]))
print(f"Mean accuracy over {len(scores)} splits: {100 * np.mean(scores):.1f}%")

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2), layout="constrained")
image = left.imshow(confusion, cmap="Blues")
for (i, j), count in np.ndenumerate(confusion):
    left.text(j, i, count, ha="center", va="center",
              color="white" if count > confusion.max() / 2 else "black")
left.set_xticks(range(3), species)
left.set_yticks(range(3), species)
left.set_xlabel("predicted species")
left.set_ylabel("true species")
left.set_title(f"Confusion matrix, {len(test)} test flowers")

right.hist(np.array(scores) * 100, bins=np.arange(84, 102, 2), color="#2a9d8f",
           edgecolor="white")
right.axvline(100 * np.mean(scores), color="black", linestyle="--",
              label=f"mean {100 * np.mean(scores):.1f}%")
right.set_xlabel("test accuracy (%)")
right.set_ylabel("number of random splits")
right.set_title("Accuracy over 200 random 75/25 splits")
right.legend(loc="upper left")
plt.show()
