"""
Mixed columns: one model per kind of column with ``ColumnwiseNB``
=================================================================

The Palmer penguins (:func:`fastnb.datasets.load_penguins`) mix text (the
island, the sex), four measurements and a year, with missing values.
:class:`fastnb.ColumnwiseNB` gives each kind of column the model that suits it
and adds up their log-likelihoods: no encoder and no imputer.

Below: the model it chooses per column, its cross-validated accuracy against a
single model on the columns that model can read, and, for one penguin, how the
two sub-models' evidence combines into the posterior.
"""

import matplotlib.pyplot as plt
import numpy as np

import fastnb
from fastnb.datasets import load_penguins

X, y = load_penguins(return_X_y=True, as_frame=True)
print(X.dtypes.to_string())

# %%
# The per-column choice
# ---------------------
#
# ``estimators="auto"``: floats get a GaussianNB; strings, and integer columns of
# at most 32 distinct values (the year), a CategoricalNB, whose categories are
# the values seen (three years, not integer codes 0..2009).

model = fastnb.ColumnwiseNB().fit(X, y)
print(model.summary())

# %%
# Against single models
# ---------------------
#
# 5-fold cross-validation, repeated 10 times with different shuffles. A single
# GaussianNB reads the measurements only; a single CategoricalNB the text and
# the year only, the year as strings: a CategoricalNB of its own reads integers
# below 65536 as codes 0..n-1. (Missing values are left out of the likelihood by
# all three.)

measurements = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
categories = ["island", "sex", "year"]
candidates = {   # name: (a new model, its data)
    "ColumnwiseNB (auto)\nall columns": (fastnb.ColumnwiseNB, X),
    "GaussianNB\nmeasurements": (fastnb.GaussianNB, X[measurements].to_numpy(float)),
    "CategoricalNB\nisland, sex, year": (fastnb.CategoricalNB,
                                          X[categories].astype({"year": str})
                                          .to_numpy(object)),
}


def rows(data, index):
    return data.iloc[index] if hasattr(data, "iloc") else data[index]


rng = np.random.default_rng(0)
scores = {name: [] for name in candidates}
for repeat in range(10):
    folds = np.array_split(rng.permutation(len(y)), 5)
    for k, test in enumerate(folds):
        train = np.concatenate(folds[:k] + folds[k + 1:])
        for name, (make, data) in candidates.items():
            fitted = make().fit(rows(data, train), y[train])
            scores[name].append(fitted.score(rows(data, test), y[test]))

for name, values in scores.items():
    print(f"{name.replace(chr(10), ', '):45s} {np.mean(values):.4f} ± {np.std(values):.4f}")

# %%
# How the sub-models' evidence adds up
# ------------------------------------
#
# For one penguin, the posterior of each sub-model on its own columns, and the
# posterior of the whole model: ColumnwiseNB adds the sub-models' log-likelihoods
# (each without its log prior) to one log prior. Where the measurements leave
# two species close, the island, the sex and the year can tip the balance; note
# that dividing out each sub-model's prior weighs the evidence, not the class
# frequencies, so the combined posterior is not an average of the two.

gaussian = model.named_estimators_["gaussian"]
categorical = model.named_estimators_["categorical"]
columns_of = {name: columns for name, _, columns in model.estimators_}
gaussian_columns, categorical_columns = columns_of["gaussian"], columns_of["categorical"]
p_gaussian = gaussian.predict_proba(X[gaussian_columns].to_numpy(dtype=float))
p_categorical = categorical.predict_proba(X[categorical_columns].to_numpy(dtype=object))
p_all = model.predict_proba(X)

# A penguin that the measurements alone get wrong and the whole model gets right
# (the first one, or if there is none, the one the measurements are least sure of).
observed = ~X[measurements].isna().any(axis=1).to_numpy()
classes = model.classes_
rescued = np.flatnonzero(observed & (classes[p_gaussian.argmax(axis=1)] != y)
                         & (classes[p_all.argmax(axis=1)] == y))
margin = np.where(observed, p_gaussian.max(axis=1), np.inf)
row = int(rescued[0]) if rescued.size else int(np.argmin(margin))
print(X.iloc[row].to_string())
print("species:", y[row])

fig, (ax_acc, ax_post) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
names = list(scores)
ax_acc.boxplot([scores[name] for name in names])
ax_acc.set_xticks(np.arange(1, len(names) + 1), names, fontsize="small")
ax_acc.set_ylabel("accuracy, 5-fold CV x 10")
ax_acc.set_title("ColumnwiseNB against single models")

parts = {"GaussianNB\n(measurements)": p_gaussian[row],
         "CategoricalNB\n(island, sex, year)": p_categorical[row],
         "ColumnwiseNB": p_all[row]}
left = np.zeros(len(parts))
for c, species in enumerate(model.classes_):
    widths = [p[c] for p in parts.values()]
    ax_post.barh(list(parts), widths, left=left, label=species)
    left += widths
ax_post.invert_yaxis()
ax_post.set_xlim(0, 1)
ax_post.set_xlabel("posterior probability")
ax_post.set_title(f"penguin {row} ({y[row]})")
ax_post.legend(loc="lower right", fontsize="small")
plt.show()
