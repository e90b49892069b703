"""CategoricalNB models written by fastnb 0.1 (pickles and ``.npz`` files) still
load, predict as they did, and keep learning (fixtures: tests/data/).

Their log probabilities are recomputed from their counts by today's kernels (whose
libm may round a last bit differently from the NumPy that wrote the fixtures), so
predictions are compared to 1e-13."""

import copy
import pathlib
import pickle
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import fastnb

pytest.importorskip("pandas")  # one fixture's X is a DataFrame

DATA = pathlib.Path(__file__).resolve().parent / "data"
CASES = ["codes", "ints", "floats", "objects", "dataframe", "hash_buckets",
         "min_categories", "partial_fit"]


def _fixtures():
    with open(DATA / "categorical_v0_1.pickle", "rb") as handle, \
            warnings.catch_warnings():
        # A pickle of another fastnb version warns; that is the point of the test.
        warnings.simplefilter("ignore", UserWarning)
        return pickle.load(handle)["cases"]


@pytest.fixture(scope="module")
def fixtures():
    return _fixtures()


def _assert_predicts_as_saved(model, case):
    assert type(model) is fastnb.CategoricalNB
    assert_allclose(model.predict_joint_log_proba(case["X"]), case["jll"], rtol=1e-13,
                    atol=0)
    assert_array_equal(model.predict(case["X"]), case["predict"])


@pytest.mark.parametrize("name", CASES)
def test_a_pickle_of_fastnb_0_1_predicts_as_it_did(fixtures, name):
    _assert_predicts_as_saved(fixtures[name]["model"], fixtures[name])


@pytest.mark.parametrize("name", CASES)
def test_a_file_saved_by_fastnb_0_1_predicts_as_it_did(fixtures, name):
    model = fastnb.load(DATA / f"categorical_v0_1_{name}.npz")
    _assert_predicts_as_saved(model, fixtures[name])


@pytest.mark.parametrize("name", CASES)
def test_old_models_keep_learning_as_new_ones(fixtures, name, tmp_path):
    """A 0.1 pickle, its 0.1 file and today's round trip of either are one model:
    they take the same partial_fit and save to the same file."""
    case = fixtures[name]
    X = case["X"]
    unpickled = copy.deepcopy(case["model"])
    loaded = fastnb.load(DATA / f"categorical_v0_1_{name}.npz")
    y = unpickled.classes_[np.arange(len(X)) % unpickled.classes_.size]
    for model in (unpickled, loaded):
        model.partial_fit(X, y)
    assert_array_equal(unpickled.predict_joint_log_proba(X),
                       loaded.predict_joint_log_proba(X))
    for a, b in zip(unpickled.category_count_, loaded.category_count_):
        assert_array_equal(a, b)
    unpickled.save(tmp_path / "a.npz")
    loaded.save(tmp_path / "b.npz")
    with np.load(tmp_path / "a.npz") as a, np.load(tmp_path / "b.npz") as b:
        assert sorted(a.files) == sorted(b.files)
        for member in a.files:
            if member != "header":
                assert_array_equal(a[member], b[member])
    again = pickle.loads(pickle.dumps(unpickled))
    assert_array_equal(again.predict_joint_log_proba(X),
                       unpickled.predict_joint_log_proba(X))
