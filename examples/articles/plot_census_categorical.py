"""
Census incomes: Naive Bayes as a table of counts
================================================

The third article fastnb started from explains categorical Naive Bayes on the
"50K income" census data: for each class, count how often each value of each
feature occurs, turn the counts into relative frequencies, and multiply the
frequencies of a new person's values. Its worked example has three features
(native country, hours per week, occupation) and three people in each class,
and asks about a person from the United States, working 40 hours a week as an
executive manager:

* ``P(x | >50K) = 1/3 * 2/3 * 1/3 = 2/27``
* ``P(x | <=50K) = 2/3 * 2/3 * 2/3 = 8/27``

so the answer is ``<=50K``. :class:`fastnb.CategoricalNB` fits the table from
the raw strings, without an encoder; with (almost) no smoothing it reproduces
the article's numbers.
"""

import matplotlib.pyplot as plt
import numpy as np

from fastnb import CategoricalNB

features = ["native-country", "hours-per-week", "occupation"]
X = np.array([
    ["United-States", "40", "Exec-managerial"],
    ["India", "40", "Prof-specialty"],
    ["Germany", "50", "Sales"],
    ["United-States", "40", "Exec-managerial"],
    ["United-States", "40", "Exec-managerial"],
    ["Mexico", "30", "Craft-repair"],
], dtype=object)
income = np.array([">50K", ">50K", ">50K", "<=50K", "<=50K", "<=50K"])
person = np.array([["United-States", "40", "Exec-managerial"]], dtype=object)

model = CategoricalNB(alpha=1e-12).fit(X, income)
likelihood = np.exp(model.predict_joint_log_proba(person)[0] - model.class_log_prior_)
for label, value in zip(model.classes_, likelihood):
    print(f"P(x | {label:>5}) = {value:.4f}")
print("article:  2/27 =", round(2 / 27, 4), "and 8/27 =", round(8 / 27, 4))
print("predicted:", model.predict(person)[0])

# %%
# The fitted table
# ----------------
# ``categories_[i]`` names the columns of ``feature_log_prob_[i]``: here, the
# relative frequency of each value of each feature within each class. The
# person's values are outlined; multiplying them gives the likelihoods above.

fig, axes = plt.subplots(1, 3, figsize=(12, 4.2), layout="constrained")
width = 0.4
for i, ax in enumerate(axes):
    values = model.categories_[i]
    positions = np.arange(len(values))
    for c, (label, colour) in enumerate(zip(model.classes_, ["#e76f51", "#2a9d8f"])):
        frequency = np.exp(model.feature_log_prob_[i][c])
        bars = ax.bar(positions + (c - 0.5) * width, frequency, width, color=colour,
                      label=label)
        for position, bar in zip(values, bars):
            if position == person[0, i]:
                bar.set_edgecolor("black")
                bar.set_linewidth(2)
    ax.set_xticks(positions, values, rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_title(features[i])
axes[0].set_ylabel("P(value | income)")
axes[0].legend(title="income")
fig.suptitle("Relative frequency of each value within each class "
             "(outlined: the person's values)")
plt.show()

# %%
# Smoothing
# ---------
# The article's table gives a value never seen in a class a probability of
# zero, which vetoes the class whatever the other features say. The default
# ``alpha=1`` adds one to every count instead; the answer here stays ``<=50K``,
# with probabilities that are less extreme:

smoothed = CategoricalNB().fit(X, income)
for label, p in zip(smoothed.classes_, smoothed.predict_proba(person)[0]):
    print(f"P({label:>5} | x) = {p:.3f}")
