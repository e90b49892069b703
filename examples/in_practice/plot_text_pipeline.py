"""
Text: raw documents to predictions
==================================

Raw documents go through :class:`fastnb.text.HashingVectorizer` into
:class:`fastnb.MultinomialNB`: no vocabulary to learn, so the vectorizer needs no
``fit``. The corpus is generated here: short documents on three topics, made of
common words plus words of their topic (some of them accented, or in other
scripts, since the tokeniser is Python's Unicode ``\\w``).

When scikit-learn is installed, its ``HashingVectorizer`` and ``MultinomialNB``
run beside fastnb's: the matrices are compared entry by entry, and each stage is
timed. (Times are of one run on whatever machine built this page, so read the
ratio rather than the milliseconds.)
"""

import time

import matplotlib.pyplot as plt
import numpy as np

import fastnb
from fastnb.text import HashingVectorizer

rng = np.random.default_rng(0)
common = ("the a of and to in is it that was for on with as by this at from "
          "but not are we they he she which there their have has had one all").split()
topic_words = {
    "sport": ("match goal team player coach league season score referee stadium "
              "penalty striker keeper cup final victory defeat fans médaille "
              "fútbol Mannschaft 足球").split(),
    "cooking": ("recipe oven flour butter sugar salt pepper garlic onion sauce "
                "simmer roast bake dough cream cheese tomato crème brûlée "
                "soufflé Küche 料理").split(),
    "space": ("planet orbit rocket launch star galaxy telescope astronaut moon "
              "mars satellite gravity comet asteroid mission nebula cosmos "
              "étoile Weltraum 宇宙").split(),
}
topics = np.array(list(topic_words))


def corpus(n_docs):
    """n_docs documents of about 15 words; about one word in eight is its topic's."""
    labels = rng.integers(0, len(topics), n_docs)
    docs = []
    for label in labels:
        n_words = rng.poisson(12) + 3
        own = rng.random(n_words) < 0.125
        words = np.where(own, rng.choice(topic_words[topics[label]], n_words),
                         rng.choice(common, n_words))
        docs.append(" ".join(words).capitalize() + ".")
    return docs, topics[labels]


train_docs, train_y = corpus(20_000)
test_docs, test_y = corpus(5_000)
print(train_docs[0][:120], "...")

# %%
# fastnb: hashing, fitting, predicting
# ------------------------------------
#
# ``alternate_sign=False``: MultinomialNB needs non-negative counts.

stages = ["vectorize (train + test)", "fit", "predict"]


def run(vectorizer, model):
    times = []
    start = time.perf_counter()
    X_train = vectorizer.transform(train_docs)
    X_test = vectorizer.transform(test_docs)
    times.append(time.perf_counter() - start)
    start = time.perf_counter()
    model.fit(X_train, train_y)
    times.append(time.perf_counter() - start)
    start = time.perf_counter()
    predicted = model.predict(X_test)
    times.append(time.perf_counter() - start)
    return X_train, predicted, times


n_features = 2**18
fast_X, fast_pred, fast_times = run(
    HashingVectorizer(n_features=n_features, alternate_sign=False),
    fastnb.MultinomialNB())
print(f"matrix: {fast_X.shape[0]} documents x {fast_X.shape[1]} columns, "
      f"{fast_X.nnz} non-zeros")
print(f"fastnb accuracy on held-out documents: {np.mean(fast_pred == test_y):.3f}")

# %%
# scikit-learn beside it, when it is installed
# --------------------------------------------

timings = {"fastnb": fast_times}
try:
    from sklearn.feature_extraction.text import HashingVectorizer as SkHashing
    from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
except ImportError:
    print("scikit-learn is not installed: fastnb only")
else:
    sk_X, sk_pred, sk_times = run(
        SkHashing(n_features=n_features, alternate_sign=False), SkMultinomialNB())
    timings["scikit-learn"] = sk_times
    same = (fast_X != sk_X).nnz == 0 and np.array_equal(fast_X.indices, sk_X.indices)
    print(f"same matrix as scikit-learn's: {same}")
    print(f"same predictions: {np.array_equal(fast_pred, sk_pred)}")

# %%
# Time of each stage
# ------------------

fig, ax = plt.subplots(figsize=(8, 3.5), layout="constrained")
height = 0.8 / len(timings)
positions = np.arange(len(stages))
for i, (name, times) in enumerate(timings.items()):
    bars = ax.barh(positions + i * height, np.array(times) * 1e3, height, label=name)
    ax.bar_label(bars, fmt="%.0f ms", padding=3)
ax.set_yticks(positions + height * (len(timings) - 1) / 2, stages)
ax.invert_yaxis()
ax.set_xlabel("milliseconds (one run)")
ax.set_title("20,000 + 5,000 documents, HashingVectorizer -> MultinomialNB")
ax.legend(loc="lower right")
ax.margins(x=0.2)
plt.show()
