"""Rules every estimator shares, checked on every registered estimator: the
partial_fit ``classes`` contract (scikit-learn's) and parameter checks that say the
same thing in the same words everywhere."""

import pickle

import numpy as np
import pytest

from _registry import ESTIMATORS, names

sklearn_nb = pytest.importorskip("sklearn.naive_bayes")

SAME_CLASSES_MESSAGE = "is not the same as on last call to partial_fit"


def _data(spec, rng, n=60, d=3, k=3):
    y = np.arange(n) % k
    if spec.data_kind == "continuous":
        X = rng.normal(size=(n, d)) + y[:, None]
    elif spec.data_kind == "positive":   # the parametric models: x >= 1
        X = rng.integers(1, 5, (n, d)) + y[:, None]
    else:  # counts and categories alike: small non-negative integers
        X = rng.integers(0, 4, (n, d)) + y[:, None]
    return X.astype(np.float64), y


@pytest.mark.parametrize("name", names())
@pytest.mark.parametrize("later_classes", [
    [0, 1, 2, 3],        # one more
    [0, 1],              # one fewer
    [0, 1, 1],           # duplicates (the fitted classes are 0, 1, 2)
    [0, 1, 2, 2],        # the fitted classes, one repeated
    ["a", "b", "c"],     # other labels
    [[0, 1, 2]],         # not one-dimensional
])
def test_later_partial_fit_with_other_classes_raises(name, later_classes, rng):
    spec = ESTIMATORS[name]
    X, y = _data(spec, rng)
    model = spec.make().partial_fit(X, y, classes=[0, 1, 2])
    # The whole state, sub-models (ColumnwiseNB) included, byte for byte.
    state = pickle.dumps(vars(model))
    with pytest.raises(ValueError, match=SAME_CLASSES_MESSAGE):
        model.partial_fit(X, y, classes=later_classes)
    assert pickle.dumps(vars(model)) == state


@pytest.mark.parametrize("name", [name for name in names() if hasattr(sklearn_nb, name)])
def test_scikit_learn_raises_the_same_error(name, rng):
    """The oracle: scikit-learn's estimator of the same name raises the same error
    for a later call with other classes."""
    spec = ESTIMATORS[name]
    X, y = _data(spec, rng)
    theirs = getattr(sklearn_nb, name)().partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match=SAME_CLASSES_MESSAGE):
        theirs.partial_fit(X, y, classes=[0, 1, 2, 3])


@pytest.mark.parametrize("name", names())
@pytest.mark.parametrize("later_classes", [None, [0, 1, 2], [2, 0, 1], np.array([1, 2, 0])])
def test_later_partial_fit_may_repeat_the_classes(name, later_classes, rng):
    spec = ESTIMATORS[name]
    X, y = _data(spec, rng)
    once = spec.make().fit(np.vstack([X, X]), np.concatenate([y, y]))
    twice = spec.make().partial_fit(X, y, classes=[0, 1, 2])
    twice.partial_fit(X, y, classes=later_classes)
    np.testing.assert_allclose(twice.predict_joint_log_proba(X),
                               once.predict_joint_log_proba(X), rtol=1e-12)


@pytest.mark.parametrize("name", names())
def test_first_partial_fit_needs_classes(name, rng):
    spec = ESTIMATORS[name]
    X, y = _data(spec, rng)
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        spec.make().partial_fit(X, y)


@pytest.mark.parametrize("name", names())
@pytest.mark.parametrize("n_threads, error, message", [
    (0, ValueError, "The 'n_threads' parameter of {} must be None, -1 or a non-zero int"),
    (1.5, TypeError, "The 'n_threads' parameter of {} must be an int or None"),
    (True, TypeError, "The 'n_threads' parameter of {} must be an int or None"),
])
def test_n_threads_is_checked_in_one_wording(name, n_threads, error, message, rng):
    spec = ESTIMATORS[name]
    X, y = _data(spec, rng)
    with pytest.raises(error, match=message.format(name)):
        spec.make(n_threads=n_threads).fit(X, y)


@pytest.mark.parametrize("name", names())
@pytest.mark.parametrize("priors, message", [
    ([0.5, 0.5], "Number of priors must match number of classes"),
    ([1.2, -0.1, -0.1], "Priors must be non-negative"),
    ([np.nan, 0.5, 0.5], "Priors must be finite"),
    ("abc", "must be an array-like or None"),
])
def test_priors_are_checked_in_one_wording(name, priors, message, rng):
    spec = ESTIMATORS[name]
    X, y = _data(spec, rng)
    error = TypeError if isinstance(priors, str) else ValueError
    with pytest.raises(error, match=message) as raised:
        spec.make(**{spec.prior_param: priors}).fit(X, y)
    assert spec.prior_param in str(raised.value)
