"""
Scottish or English? Bernoulli Naive Bayes by hand and by fastnb
================================================================

The fourth article fastnb started from implements Bernoulli Naive Bayes in
Matlab on thirteen people described by four yes/no features: do they like
shortbread, like lager, eat porridge, and did they watch England play football?
Six are English and seven Scottish. It then classifies a person who likes
shortbread and eats porridge, but neither likes lager nor watched England:
``x = [1 0 1 0]``.

From the counts, by hand, ``P(Scottish | x) = 160/209``. :class:`fastnb.BernoulliNB`
on a ``bool`` matrix, with (almost) no smoothing, gives the same.
"""

import matplotlib.pyplot as plt
import numpy as np

from fastnb import BernoulliNB

features = ["likes shortbread", "likes lager", "eats porridge", "watched England"]
people = np.array([
    [0, 0, 1, 1, 0], [1, 0, 1, 0, 0], [1, 1, 0, 1, 0], [1, 1, 0, 0, 0],
    [0, 1, 0, 1, 0], [0, 0, 1, 0, 0], [1, 0, 1, 1, 1], [1, 1, 0, 1, 1],
    [1, 1, 1, 0, 1], [1, 1, 1, 0, 1], [1, 1, 1, 1, 1], [1, 0, 1, 0, 1],
    [1, 0, 0, 0, 1],
])
X = people[:, :4].astype(bool)        # bool input: read as it is, 1 byte a value
nationality = np.where(people[:, 4] == 1, "Scottish", "English")
x = np.array([[1, 0, 1, 0]], dtype=bool)

model = BernoulliNB(alpha=1e-10).fit(X, nationality)
proba = model.predict_proba(x)[0]
print("classes:", model.classes_, "counts:", model.class_count_)
print(f"P(Scottish | x) = {proba[1]:.4f}, by hand 160/209 = {160 / 209:.4f}")
print("x is", model.predict(x)[0])

# %%
# The fitted probabilities
# ------------------------
# ``exp(feature_log_prob_)`` is ``P(feature | class)``: the fraction of each
# nationality answering yes. The person's answer multiplies in
# ``P(feature | class)`` for a yes and ``1 - P(feature | class)`` for a no.

p_yes = np.exp(model.feature_log_prob_)
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained",
                                  gridspec_kw={"width_ratios": [2, 1]})
positions = np.arange(len(features))
for c, colour in enumerate(["#e76f51", "#264653"]):
    left.bar(positions + (c - 0.5) * 0.4, p_yes[c], 0.4, color=colour,
             label=model.classes_[c])
left.set_xticks(positions, [f"{name}\n(x: {'yes' if v else 'no'})"
                            for name, v in zip(features, x[0])])
left.set_ylabel("P(yes | nationality)")
left.set_ylim(0, 1.05)
left.legend()
left.set_title("What each nationality answers")

right.bar(model.classes_, proba, color=["#e76f51", "#264653"])
right.axhline(160 / 209, color="black", linestyle="--", linewidth=0.8,
              label="160/209, by hand")
right.set_ylim(0, 1)
right.set_ylabel("P(nationality | x)")
right.set_title("x = [1 0 1 0]")
right.legend(loc="upper left")
plt.show()
