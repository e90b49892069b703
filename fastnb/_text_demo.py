"""``python -m fastnb``'s text section: raw documents to predictions.

A seeded corpus of short documents on three topics goes through
``fastnb.text.HashingVectorizer`` into ``fastnb.MultinomialNB``, and through
scikit-learn's pipeline beside it when scikit-learn is installed.
"""

import time

import numpy as np

__all__ = ["topic_corpus", "text_demo"]

_COMMON = ("the a of and to in is it that was for on with as by this at from "
           "but not are we they he she which there their have has had one all "
           "would about more when will some can if what so up out into").split()
_TOPICS = {
    "sport": ("match goal team player coach league season score referee stadium "
              "penalty striker keeper cup final tournament victory defeat fans "
              "training injury transfer championship olympic médaille fútbol "
              "Mannschaft 足球 比赛").split(),
    "cooking": ("recipe oven flour butter sugar salt pepper garlic onion sauce "
                "simmer boil roast bake knife pan dough cream cheese tomato "
                "spice crème brûlée soufflé Küche 料理 味噌 herbs").split(),
    "space": ("planet orbit rocket launch star galaxy telescope astronaut moon "
              "mars satellite gravity comet asteroid nasa mission module "
              "spacecraft nebula cosmos étoile Weltraum 宇宙 火星 lunar").split(),
}
TOPICS = tuple(_TOPICS)
N_FEATURES = 2**18  # the hashed columns (a common choice for a small corpus)


def topic_corpus(n_docs=6000, words_per_doc=60, seed=0):
    """Seeded documents on three topics, and each one's topic.

    Parameters
    ----------
    n_docs : int, default=6000
    words_per_doc : int, default=60
        The mean number of words of a document.
    seed : int, default=0

    Returns
    -------
    docs : list of str
    topics : ndarray of str

    Examples
    --------
    >>> from fastnb._text_demo import topic_corpus
    >>> docs, topics = topic_corpus(n_docs=3, seed=1)
    >>> len(docs), sorted(set(topics)) <= ["cooking", "space", "sport"]
    (3, True)
    """
    rng = np.random.default_rng(seed)
    topics = rng.choice(np.array(TOPICS), n_docs)
    common = np.array(_COMMON, dtype=object)
    vocab = {t: np.array(words, dtype=object) for t, words in _TOPICS.items()}
    docs = []
    for topic in topics:
        n = max(5, int(rng.poisson(words_per_doc)))
        words = common[rng.integers(0, len(common), n)]
        on_topic = rng.random(n) < 0.35
        source = vocab[topic] if rng.random() < 0.9 else vocab[rng.choice(TOPICS)]
        words[on_topic] = source[rng.integers(0, len(source), int(on_topic.sum()))]
        words[0] = words[0].capitalize()
        docs.append(" ".join(words) + rng.choice([".", "!", "?"]))
    return docs, topics


def _best_of(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def text_demo(n_docs=6000, repeats=3):
    """Raw documents -> HashingVectorizer -> MultinomialNB, as printable text.

    Fits on three quarters of :func:`topic_corpus`, predicts the rest, and, when
    scikit-learn is installed, checks that its pipeline gives the same matrix and
    the same predictions, and times both (best of ``repeats``).

    Parameters
    ----------
    n_docs : int, default=6000
    repeats : int, default=3

    Returns
    -------
    text : str

    Examples
    --------
    >>> from fastnb._text_demo import text_demo
    >>> print(text_demo(n_docs=400, repeats=1).splitlines()[0])
    Text: raw documents -> HashingVectorizer -> MultinomialNB, 3 topics
    """
    header = "Text: raw documents -> HashingVectorizer -> MultinomialNB, 3 topics"
    try:
        import scipy.sparse  # noqa: F401
    except ImportError:
        return "\n".join([header, '  needs SciPy: pip install "fastnb[text]" (from a clone: pip install ".[text]")'])
    from . import text
    from ._discrete import MultinomialNB

    docs, topics = topic_corpus(n_docs)
    n_train = 3 * n_docs // 4
    train, test = docs[:n_train], docs[n_train:]
    megabytes = sum(len(d.encode("utf-8")) for d in docs) / 1e6

    def fastnb_pipeline():
        vectorizer = text.HashingVectorizer(n_features=N_FEATURES,
                                            alternate_sign=False)
        model = MultinomialNB().fit(vectorizer.fit_transform(train), topics[:n_train])
        return model.predict(vectorizer.transform(test))

    ours, predicted = _best_of(fastnb_pipeline, repeats)
    accuracy = float(np.mean(predicted == topics[n_train:]))
    lines = [
        header,
        f"  {n_docs:,} documents ({n_train:,} to train, {n_docs - n_train:,} to test), "
        f"{megabytes:.1f} MB of text; test accuracy {100 * accuracy:.1f}%",
    ]
    try:
        from sklearn.feature_extraction.text import HashingVectorizer
        from sklearn.naive_bayes import MultinomialNB as SklearnMultinomialNB
    except ImportError:
        lines.append(f"  fit + predict: fastnb {ours * 1e3:.1f} ms "
                     "(scikit-learn is not installed: fastnb only)")
        return "\n".join(lines)

    def sklearn_pipeline():
        vectorizer = HashingVectorizer(n_features=N_FEATURES, alternate_sign=False)
        model = SklearnMultinomialNB().fit(vectorizer.fit_transform(train),
                                           topics[:n_train])
        return model.predict(vectorizer.transform(test))

    theirs, their_predicted = _best_of(sklearn_pipeline, repeats)
    ours_X = text.HashingVectorizer(n_features=N_FEATURES,
                                    alternate_sign=False).fit_transform(docs)
    their_X = HashingVectorizer(n_features=N_FEATURES,
                                alternate_sign=False).fit_transform(docs)
    same_matrix = (np.array_equal(ours_X.indptr, their_X.indptr)
                   and np.array_equal(ours_X.indices, their_X.indices)
                   and ours_X.data.tobytes() == their_X.data.tobytes())
    same_predictions = bool(np.array_equal(predicted, their_predicted))
    lines += [
        f"  the same matrix as scikit-learn's: {'yes' if same_matrix else 'NO'}; "
        f"the same predictions: {'yes' if same_predictions else 'NO'}",
        f"  fit + predict: fastnb {ours * 1e3:.1f} ms, scikit-learn "
        f"{theirs * 1e3:.1f} ms ({theirs / ours:.1f}x)",
    ]
    return "\n".join(lines)
