"""Parameter-search workload H1: fastnb.model_selection.GridSearchCV against
scikit-learn's GridSearchCV, on the same fastnb estimator and on scikit-learn's.

- H1 text: the T1 documents (100,000, ~30 non-zeros over 2**20 hashed features,
  35 classes; a tenth when quick), MultinomialNB, 10 alphas x 2 fit_prior, 5
  folds, scored by accuracy and log loss; and the whole search against one fit
  plus one predict_proba over the data (the target: within 5x).
- H1 Gaussian: the G1 data (1,000,000 x 100, 10 classes; a twentieth when
  quick), GaussianNB, 20 var_smoothing values, 5 folds, accuracy.
- H1 pipeline: Pipeline(HashingVectorizer, MultinomialNB) over the V1 raw
  documents, 5 alphas x 2 fit_prior, 5 folds, accuracy and log loss.

Every search runs with ``refit=False`` (the refit is one more fit, the same on
both sides). scikit-learn's search of its own MultinomialNB over 2**20 features
is slow (minutes at full size), so the module runs only when named:
``--only H1``.
"""

import numpy as np

from harness import Case
from workloads_discrete import text_counts
from workloads_gaussian import _data as gaussian_data
from workloads_text import v1_corpus

ONLY_WHEN_NAMED = "H1"
SCORING = ["accuracy", "neg_log_loss"]


def _searches(estimator, grid, X, y, scoring):
    """(our search, scikit-learn's search on ``estimator``) as callables."""
    from sklearn.model_selection import GridSearchCV as SklearnGridSearchCV

    from fastnb.model_selection import GridSearchCV

    kwargs = dict(cv=5, scoring=scoring, refit=False)

    def ours():
        return GridSearchCV(estimator, grid, **kwargs).fit(X, y)

    def theirs():
        return SklearnGridSearchCV(estimator, grid, **kwargs).fit(X, y)

    return ours, theirs


def cases(quick=False):
    import fastnb
    from sklearn import naive_bayes as sk
    from sklearn.feature_extraction.text import HashingVectorizer
    from sklearn.pipeline import make_pipeline

    out = []
    # H1 text
    n = 10_000 if quick else 100_000
    X, y = text_counts(n, 2**20, 35, nnz_per_row=30, seed=11)
    grid = {"alpha": [float(a) for a in np.logspace(-3, 1, 10)],
            "fit_prior": [True, False]}
    text = f"H1 text n={n:.0e} V=2^20 k=35 20 candidates x 5 folds"
    ours, theirs = _searches(fastnb.MultinomialNB(), grid, X, y, SCORING)
    _, theirs_sklearn = _searches(sk.MultinomialNB(), grid, X, y, SCORING)

    def fit_and_predict():
        return fastnb.MultinomialNB().fit(X, y).predict_proba(X)

    out += [
        Case(text, "GridSearchCV vs scikit-learn's on fastnb", ours, theirs, 20,
             baseline="sklearn search, fastnb model"),
        Case(text, "GridSearchCV vs scikit-learn's on its own", ours, theirs_sklearn,
             100, baseline="sklearn search, sklearn model"),
        # the whole search against one fit and one predict_proba over the data
        Case(text, "GridSearchCV vs fit + predict_proba", ours, fit_and_predict, 0.2,
             baseline="one fit + predict_proba"),
    ]
    # H1 Gaussian
    scale = 20 if quick else 1
    Xg, yg = gaussian_data(1_000_000 // scale, 100, 10)
    grid = {"var_smoothing": [float(v) for v in np.logspace(-12, 0, 20)]}
    gauss = f"H1 Gaussian n={Xg.shape[0]:.0e} d=100 k=10 20 candidates x 5 folds"
    ours, theirs = _searches(fastnb.GaussianNB(), grid, Xg, yg, "accuracy")
    out.append(Case(gauss, "GridSearchCV vs scikit-learn's on fastnb", ours, theirs, 20,
                    baseline="sklearn search, fastnb model"))
    # H1 pipeline over raw text
    docs, labels = v1_corpus(25_000 // (20 if quick else 1))
    grid = {"multinomialnb__alpha": [0.01, 0.1, 0.3, 1.0, 3.0],
            "multinomialnb__fit_prior": [True, False]}
    pipe = f"H1 pipeline {len(docs):,} docs 10 candidates x 5 folds"
    ours, theirs = _searches(make_pipeline(HashingVectorizer(alternate_sign=False),
                                           fastnb.MultinomialNB()),
                             grid, docs, labels, SCORING)
    _, theirs_sklearn = _searches(make_pipeline(HashingVectorizer(alternate_sign=False),
                                                sk.MultinomialNB()),
                                  grid, docs, labels, SCORING)
    out += [
        Case(pipe, "GridSearchCV vs scikit-learn's on fastnb", ours, theirs,
             baseline="sklearn search, fastnb model"),
        Case(pipe, "GridSearchCV vs scikit-learn's on its own", ours, theirs_sklearn,
             baseline="sklearn search, sklearn model"),
    ]
    return out
