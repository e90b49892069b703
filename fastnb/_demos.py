"""The worked examples of the articles fastnb started from, run on fastnb.

Each function returns a printable report; ``python -m fastnb`` prints them all.
The articles split iris at random without a seed; fastnb uses a fixed, documented
split (``IRIS_SPLIT_SEED``) that gives the published figure, and also reports the
mean accuracy over many random splits, so the figure is seen in context.
"""

import math
import time

import numpy as np

from ._columnwise import ColumnwiseNB
from ._gaussian import GaussianNB
from .datasets import IRIS_TARGET_NAMES, load_iris, load_penguins

__all__ = [
    "IRIS_SPLIT_SEED",
    "bernoulli_seed_demo",
    "categorical_seed_data",
    "categorical_seed_demo",
    "iris_all_features_demo",
    "iris_two_features_demo",
    "iris_split",
    "mixed_columns_demo",
    "speed_demo",
]

IRIS_SPLIT_SEED = 4


def iris_split(train_fraction, seed=IRIS_SPLIT_SEED):
    """Row indices (train, test) of a seeded random split of the 150 iris rows.

    Examples
    --------
    >>> train, test = iris_split(0.75)
    >>> len(train), len(test)
    (112, 38)
    """
    order = np.random.default_rng(seed).permutation(150)
    n_train = int(round(150 * train_fraction))
    return order[:n_train], order[n_train:]


def _mean_accuracy_over_splits(X, y, train_fraction, n_splits=200):
    scores = []
    for seed in range(1000, 1000 + n_splits):
        train, test = iris_split(train_fraction, seed)
        model = GaussianNB(n_threads=1).fit(X[train], y[train])
        scores.append(model.score(X[test], y[test]))
    return float(np.mean(scores))


def _confusion(y_true, y_pred, n_classes):
    matrix = np.zeros((n_classes, n_classes), dtype=np.int64)
    np.add.at(matrix, (y_true, y_pred), 1)
    return matrix


def iris_all_features_demo():
    """GaussianNB on iris, all four features, 75/25 split: 100% (article 000).

    Examples
    --------
    >>> print(iris_all_features_demo().splitlines()[1])
    Result: 100.00% Correct (38 test flowers, split seed 4)
    """
    X, y = load_iris(return_X_y=True)
    train, test = iris_split(0.75)
    model = GaussianNB().fit(X[train], y[train])
    predicted = model.predict(X[test])
    accuracy = float(np.mean(predicted == y[test]))
    matrix = _confusion(y[test], predicted, 3)
    lines = [
        "Measurements - GaussianNB: iris species from 4 flower measurements, "
        "75/25 train/test split",
        f"Result: {100 * accuracy:.2f}% Correct ({len(test)} test flowers, "
        f"split seed {IRIS_SPLIT_SEED})",
        "Confusion matrix (rows: true " + ", ".join(IRIS_TARGET_NAMES) + "):",
    ]
    lines += ["    " + " ".join(f"{value:3d}" for value in row) for row in matrix]
    lines.append(
        "Mean accuracy over 200 random 75/25 splits: "
        f"{100 * _mean_accuracy_over_splits(X, y, 0.75):.1f}%"
    )
    return "\n".join(lines)


def iris_two_features_demo():
    """GaussianNB on the first two iris features, 80/20 split: 80% (article 001).

    Examples
    --------
    >>> print(iris_two_features_demo().splitlines()[1])
    Accuracy of our model: 80.0% (30 test flowers, split seed 4)
    """
    X, y = load_iris(return_X_y=True)
    X = X[:, :2]
    train, test = iris_split(0.8)
    model = GaussianNB().fit(X[train], y[train])
    accuracy = model.score(X[test], y[test])
    return "\n".join([
        "Fewer measurements - GaussianNB: iris species from sepal length and width "
        "only, 80/20 split",
        f"Accuracy of our model: {100 * accuracy:.1f}% ({len(test)} test flowers, "
        f"split seed {IRIS_SPLIT_SEED})",
        "Mean accuracy over 200 random 80/20 splits: "
        f"{100 * _mean_accuracy_over_splits(X, y, 0.8):.1f}%",
    ])


def _best_time(function, repeats=3):
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def speed_demo(n_samples=200_000, n_features=50, n_classes=5):
    """Time fastnb's GaussianNB, and scikit-learn's beside it when installed."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, n_classes, n_samples)
    X = rng.normal(size=(n_samples, n_features)) + y[:, None]
    ours = GaussianNB()
    timings = {
        "fit": _best_time(lambda: ours.fit(X, y)),
        "predict": _best_time(lambda: ours.predict(X)),
        "predict_proba": _best_time(lambda: ours.predict_proba(X)),
    }
    header = (f"GaussianNB speed, n={n_samples:,} d={n_features} k={n_classes} "
              "(median of 3)")
    try:
        from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB
    except ImportError:
        lines = [header, "scikit-learn is not installed: fastnb times only."]
        lines += [f"  {op:<14} {t * 1e3:9.1f} ms" for op, t in timings.items()]
        return "\n".join(lines)
    theirs = SklearnGaussianNB()
    baseline = {
        "fit": _best_time(lambda: theirs.fit(X, y)),
        "predict": _best_time(lambda: theirs.predict(X)),
        "predict_proba": _best_time(lambda: theirs.predict_proba(X)),
    }
    lines = [header, f"  {'operation':<14} {'fastnb':>10} {'sklearn':>10} {'speedup':>8}"]
    for op, ours_time in timings.items():
        lines.append(
            f"  {op:<14} {ours_time * 1e3:8.1f}ms {baseline[op] * 1e3:8.1f}ms "
            f"{baseline[op] / ours_time:7.1f}x"
        )
    return "\n".join(lines)


# 13 people: likes shortbread, likes lager, eats porridge, watched England play
# football; nationality (1 Scottish, 0 English). From the article "Naive Bayes
# classifier in Matlab" (seed 003).
_SEED_DATA = np.array([
    [0, 0, 1, 1, 0], [1, 0, 1, 0, 0], [1, 1, 0, 1, 0], [1, 1, 0, 0, 0],
    [0, 1, 0, 1, 0], [0, 0, 1, 0, 0], [1, 0, 1, 1, 1], [1, 1, 0, 1, 1],
    [1, 1, 1, 0, 1], [1, 1, 1, 0, 1], [1, 1, 1, 1, 1], [1, 0, 1, 0, 1],
    [1, 0, 0, 0, 1],
], dtype=np.uint8)
_FEATURES = ["likes shortbread", "likes lager", "eats porridge", "watched England"]


def bernoulli_seed_demo():
    """Bernoulli NB on the article's Scottish/English data, as printable text.

    Fits :class:`fastnb.BernoulliNB` on a bool matrix with (almost) no smoothing,
    classifies x = [1 0 1 0], and sets the posterior beside the one counted by
    hand from the article's data: 160/209.

    Returns
    -------
    text : str

    Examples
    --------
    >>> from fastnb._demos import bernoulli_seed_demo
    >>> print(bernoulli_seed_demo().splitlines()[-1])
    x = [1 0 1 0] is Scottish
    """
    from ._discrete import BernoulliNB

    X = _SEED_DATA[:, :4].astype(bool)
    y = _SEED_DATA[:, 4]
    x = np.array([[1, 0, 1, 0]], dtype=bool)
    model = BernoulliNB(alpha=1e-10, force_alpha=True).fit(X, y)
    proba = model.predict_proba(x)[0]
    p_feature = np.exp(model.feature_log_prob_)
    lines = [
        "Yes/no features - BernoulliNB: Scottish (1) or English (0) from 4 habits "
        "of 13 people",
        f"  class counts: English {model.class_count_[0]:.0f}, "
        f"Scottish {model.class_count_[1]:.0f}",
    ]
    for j, feature in enumerate(_FEATURES):
        lines.append(
            f"  P({feature:<17}| English) = {p_feature[0, j]:.3f}   "
            f"P(...| Scottish) = {p_feature[1, j]:.3f}"
        )
    by_hand = 160 / 209  # (1 * 3/7 * 5/7 * 4/7 * 7/13) / (that + 1/16 * 6/13)
    lines += [
        f"  P(Scottish | x) = {proba[1]:.4f}   (by hand from the counts: 160/209 = "
        f"{by_hand:.4f})",
        f"x = [1 0 1 0] is {'Scottish' if model.predict(x)[0] == 1 else 'English'}",
    ]
    return "\n".join(lines)


def categorical_seed_data():
    """The census example of the Naive Bayes article (seed 002), as raw strings.

    Three features (native-country, hours-per-week, occupation) and two income
    classes of three people each. Within '>50K' the query's values
    (United-States, 40, Exec-managerial) occur 1, 2 and 1 times out of 3; within
    '<=50K' 2, 2 and 2 times out of 3.

    Returns
    -------
    X : ndarray of shape (6, 3), dtype=object
    y : ndarray of shape (6,)
    query : ndarray of shape (1, 3), dtype=object
    """
    X = np.array(
        [
            ["United-States", "40", "Exec-managerial"],
            ["India", "40", "Prof-specialty"],
            ["Germany", "50", "Sales"],
            ["United-States", "40", "Exec-managerial"],
            ["United-States", "40", "Exec-managerial"],
            ["Mexico", "30", "Craft-repair"],
        ],
        dtype=object,
    )
    y = np.array([">50K", ">50K", ">50K", "<=50K", "<=50K", "<=50K"])
    query = np.array([["United-States", "40", "Exec-managerial"]], dtype=object)
    return X, y, query


def categorical_seed_demo():
    """Fit CategoricalNB on the seed article's census example; return printable text.

    Examples
    --------
    >>> from fastnb._demos import categorical_seed_demo
    >>> print(categorical_seed_demo().splitlines()[-1])
    predicted: <=50K (by hand: <=50K)
    """
    from ._categorical import CategoricalNB

    X, y, query = categorical_seed_data()
    model = CategoricalNB(alpha=1e-12, force_alpha=True).fit(X, y)
    jll = model.predict_joint_log_proba(query)[0]
    expected = {">50K": 2 / 27, "<=50K": 8 / 27}
    lines = [
        "Categories as raw strings - CategoricalNB: income class from 3 census "
        "answers, 6 people",
        "(no encoder; alpha ~ 0, so each P(x | class) is a count that can be checked "
        "by hand)",
        "query: native-country=United-States, hours-per-week=40, "
        "occupation=Exec-managerial",
    ]
    for c, label in enumerate(model.classes_):
        likelihood = math.exp(jll[c] - model.class_log_prior_[c])
        lines.append(
            f"  P(x | {label:>5}) = {likelihood:.6f}   by hand: "
            f"{expected[str(label)]:.6f}   P({label}) = "
            f"{math.exp(model.class_log_prior_[c]):.3f}"
        )
    lines.append(
        f"predicted: {model.predict(query)[0]} (by hand: <=50K)"
    )
    return "\n".join(lines)


def mixed_columns_demo(n_folds=5):
    """ColumnwiseNB on the Palmer penguins: text, measurements and a year, with
    missing values, in one model, without encoding or imputation.

    Examples
    --------
    >>> print(mixed_columns_demo().splitlines()[0])
    Mixed columns - ColumnwiseNB on the Palmer penguins (344 rows, 11 with missing values)
    """
    X, y = load_penguins(return_X_y=True)
    model = ColumnwiseNB().fit(X, y)
    # Stratified-free but seeded folds: every row is tested once.
    folds = np.array_split(np.random.default_rng(0).permutation(len(y)), n_folds)
    correct = 0
    for fold in folds:
        train = np.setdiff1d(np.arange(len(y)), fold)
        correct += int(np.sum(ColumnwiseNB().fit(X[train], y[train]).predict(X[fold])
                              == y[fold]))
    missing = sum(1 for row in X if any(v is None or v != v for v in row))
    new = np.array([["Biscoe", 48.0, float("nan"), 215.0, None, None, 2009]],
                   dtype=object)
    proba = model.predict_proba(new)[0]
    columns = ["island", "bill_length_mm", "bill_depth_mm", "flipper_length_mm",
               "body_mass_g", "sex", "year"]
    lines = [
        f"Mixed columns - ColumnwiseNB on the Palmer penguins ({len(y)} rows, "
        f"{missing} with missing values)",
        "Sub-models chosen by estimators='auto' (columns by position: "
        + ", ".join(f"{j} {name}" for j, name in enumerate(columns)) + "):",
    ]
    lines += ["    " + line for line in model.summary().splitlines()]
    lines.append(f"{n_folds}-fold cross-validated accuracy: "
                 f"{100 * correct / len(y):.1f}% ({correct}/{len(y)})")
    lines.append("A Biscoe penguin, bill 48.0 mm, flipper 215 mm, depth, mass and sex "
                 "unknown: " + ", ".join(f"{c} {p:.3f}" for c, p in zip(
                     model.classes_, proba)))
    return "\n".join(lines)
