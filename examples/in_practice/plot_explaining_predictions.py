"""
Why did it predict that? Explaining predictions
===============================================

A naive Bayes model's joint log likelihood is a sum over features, so every
prediction splits *exactly* into one contribution a feature:
:mod:`fastnb.inspection` gives those contributions, the few that decided each
row, and the most informative features of each class of a whole model.

First the fourth seed article's thirteen people (Scottish or English, four
yes/no answers), where every number can be checked by hand; then a text model
on hashed words, whose columns are named back by
:class:`fastnb.text.HashedTermNames`. The corpus is generated here, honestly
labelled: support tickets on three topics, made of common words and words of
their topic.
"""

import matplotlib.pyplot as plt
import numpy as np

from fastnb import BernoulliNB, MultinomialNB
from fastnb.inspection import (contributions, informative_features,
                               plot_contributions, plot_informative_features,
                               top_contributions)
from fastnb.text import HashedTermNames, HashingVectorizer

# %%
# Thirteen people, one question
# -----------------------------
# The article classifies ``x = [1 0 1 0]`` (likes shortbread, no lager, eats
# porridge, did not watch England) as Scottish with ``P = 160/209``. Its
# log-odds, Scottish against English, is the base (the log prior ratio plus
# what every feature adds when absent) plus one term a present feature. All
# seven Scots like shortbread: with (almost) no smoothing its absence would
# rule Scottish out, so the base holds a large negative term that liking
# shortbread takes back (+25).

features = ["likes shortbread", "likes lager", "eats porridge", "watched England"]
people = np.array([
    [0, 0, 1, 1, 0], [1, 0, 1, 0, 0], [1, 1, 0, 1, 0], [1, 1, 0, 0, 0],
    [0, 1, 0, 1, 0], [0, 0, 1, 0, 0], [1, 0, 1, 1, 1], [1, 1, 0, 1, 1],
    [1, 1, 1, 0, 1], [1, 1, 1, 0, 1], [1, 1, 1, 1, 1], [1, 0, 1, 0, 1],
    [1, 0, 0, 0, 1],
])
X = people[:, :4].astype(bool)
nationality = np.where(people[:, 4] == 1, "Scottish", "English")
x = np.array([[1, 0, 1, 0]], dtype=bool)
model = BernoulliNB(alpha=1e-10).fit(X, nationality)

base, values = contributions(model, x)
jll = model.predict_joint_log_proba(x)
print("base + sum of contributions:", base[0] + values[0].sum(axis=1))
print("predict_joint_log_proba:     ", jll[0])
explained = top_contributions(model, x, n=4, classes=("Scottish", "English"),
                              feature_names=features)
print(explained.to_frame()[["name", "value"]])
print(f"P(Scottish | x) = {1 / (1 + np.exp(-explained.log_odds[0])):.4f}, "
      f"by hand 160/209 = {160 / 209:.4f}")

# %%
# Support tickets, hashed
# -----------------------
# Hashed columns have no names; :class:`~fastnb.text.HashedTermNames` records
# the terms that land in each column (the most frequent few, bounded) from the
# training documents.

rng = np.random.default_rng(0)
common = ("the a of and to in is it that was for on with my your i we please "
          "thanks hello can not have has this when after").split()
topics = {
    "billing": ("invoice charge refund payment card charged twice bill price "
                "subscription receipt vat discount").split(),
    "bug": ("crash error app freezes login fails screen blank update broken "
            "button slow timeout").split(),
    "shipping": ("parcel delivery courier tracking late address arrived damaged "
                 "box package shipped warehouse").split(),
}
labels = rng.choice(list(topics), 4000)
docs = []
for label in labels:
    n = int(rng.integers(8, 25))
    words = np.array(common, dtype=object)[rng.integers(0, len(common), n)]
    on_topic = rng.random(n) < 0.3
    words[on_topic] = np.array(topics[label], dtype=object)[
        rng.integers(0, len(topics[label]), int(on_topic.sum()))]
    docs.append(" ".join(words))

vectorizer = HashingVectorizer(n_features=2**18, alternate_sign=False, norm=None)
counts = vectorizer.transform(docs)
text_model = MultinomialNB().fit(counts, labels)
names = HashedTermNames(vectorizer).fit(docs)

best = informative_features(text_model, n=8, feature_names=names)
print(best.score)
for label, words in zip(best.classes, best.names):
    print(f"{label:>9}: {', '.join(words)}")

# %%
# The most informative words per class, and one ticket explained
# ----------------------------------------------------------------
# Left: each topic's words by how much more likely they are under it than
# under the other topics. Right: why one ticket was filed under its topic
# rather than the runner-up: the base, each word's contribution to the
# log-odds, and the total.

ticket = ["my parcel arrived damaged and the refund has not come"]
one = top_contributions(text_model, vectorizer.transform(ticket), n=6,
                        feature_names=names)
print(f"{ticket[0]!r}: {one.explained[0]} against {one.against[0]}, "
      f"log-odds {one.log_odds[0]:.2f}")

fig = plt.figure(figsize=(12, 4.5), layout="constrained")
left, right = fig.subfigures(1, 2, width_ratios=[3, 2])
plot_informative_features(best, ax=left.subplots(1, 3))
plot_contributions(one, row=0, ax=right.subplots())
plt.show()
