"""A model file is untrusted input: every invariant a kernel relies on is checked
at load (each model's ``_check_state_invariants`` and the checks of its derived
state), so a crafted file gives a ValueError naming the member and the rule,
never an out-of-bounds read, NaN predictions or wrong probabilities. Each test
here is a file that loaded (and crashed, or predicted NaN or wrong
probabilities) before the checks."""

import json
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import fastnb

INT64_MAX = 2**63 - 1


def _members(path):
    with np.load(path) as archive:
        return {name: archive[name] for name in archive.files}


def _rewrite(path, **changes):
    """The saved file at ``path`` with members replaced (the header unchanged)."""
    arrays = _members(path)
    arrays.update(changes)
    np.savez(path, **arrays)


def _saved(model, tmp_path, name="model.npz"):
    path = tmp_path / name
    model.save(path)
    return path


def _refused(path, member, rule):
    with pytest.raises(ValueError, match=f"{member}: .*{rule}"):
        fastnb.load(path)


def _text_counts(n, d, k, seed, nnz_per_row=30, missing=False):
    rng = np.random.default_rng(seed)
    nnz = n * nnz_per_row
    rows = np.sort(rng.integers(0, n, nnz))
    X = sp.csr_matrix((rng.integers(1, 4, nnz).astype(float),
                       (rows, rng.integers(0, d, nnz))), shape=(n, d))
    X.sum_duplicates()
    if missing:
        X.data[::9] = np.nan
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    return X, y


def _table_model(name, tmp_path, missing=False, **params):
    """A table-backed count model (2**19 features) saved, and its data."""
    X, y = _text_counts(300, 2**19, 4, seed=3, missing=missing)
    model = getattr(fastnb, name)(**params).fit(X, y)
    assert "_table" in model.__dict__
    return model, _saved(model, tmp_path), X


# -- CategoricalNB: n_categories_ summed in exact arithmetic -----------------------
def _wrapping_categorical(tmp_path):
    """A CategoricalNB file whose n_categories_ sum, in wrapping int64, to the
    count columns: feature 2 got zero columns, feature 3 another feature's."""
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 3, (60, 5)), rng.integers(0, 2, 60)
    model = fastnb.CategoricalNB().fit(X, y)
    path = _saved(model, tmp_path)
    arrays = _members(path)
    assert arrays["category_count"].shape[1] == 15
    wrapping = np.array([3, 3, INT64_MAX, INT64_MAX, 11], dtype=np.int64)
    assert int(wrapping.sum()) == 15  # numpy's sum wraps to the column count
    _rewrite(path, n_categories_=wrapping, class_count_=arrays["class_count_"] * 10)
    return model, path, X


def test_categorical_n_categories_that_wrap_are_refused(tmp_path):
    _, path, _ = _wrapping_categorical(tmp_path)
    _refused(path, "n_categories_", "must lie in")
    # the values: [2**63-1-V, V, 2**63-1, C+2]
    arrays = _members(path)
    c, v = arrays["category_count"].shape[1], 1000
    _rewrite(path, n_categories_=np.array([INT64_MAX - v, v, INT64_MAX, 0, c + 2],
                                          dtype=np.int64))
    _refused(path, "n_categories_", "must lie in")
    _rewrite(path, n_categories_=np.array([3, 3, 3, 3, 4], dtype=np.int64))
    _refused(path, "n_categories_", "must sum to the columns")


def test_categorical_crafted_file_never_reaches_predict(tmp_path):
    # in a child process: a file that loads and then reads past its tables would
    # take the test run down with it
    _, path, X = _wrapping_categorical(tmp_path)
    np.save(tmp_path / "X.npy", X)
    script = textwrap.dedent(f"""
        import numpy as np, fastnb
        X = np.load({str(tmp_path / 'X.npy')!r})
        try:
            model = fastnb.load({str(path)!r})
        except ValueError as error:
            print("refused:", error)
        else:
            print("loaded", model.predict_proba(X).sum())
        """)
    run = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("refused:") and "n_categories_" in run.stdout


def test_categorical_wrapping_file_inside_a_columnwise_model_is_refused(tmp_path):
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 3, (60, 5)), rng.integers(0, 2, 60)
    model = fastnb.ColumnwiseNB(
        [("cat", fastnb.CategoricalNB(), [0, 1, 2, 3, 4])]).fit(X, y)
    path = _saved(model, tmp_path)
    arrays = _members(path)
    layout = json.loads(arrays["layout"].tobytes())
    where = layout["estimators"][0]["arrays"]
    pool_name, offset, shape = where["n_categories_"]
    assert pool_name == "int" and shape == [5]
    int_pool = arrays["int_pool"].copy()
    int_pool[offset:offset + 5] = [3, 3, INT64_MAX, INT64_MAX, 11]
    float_pool = arrays["float_pool"].copy()
    _, count_offset, _ = where["class_count_"]
    float_pool[count_offset:count_offset + 2] *= 10
    _rewrite(path, int_pool=int_pool, float_pool=float_pool,
             class_count_=arrays["class_count_"] * 10)
    _refused(path, "n_categories_", "must lie in")


def test_categorical_features_without_categories_still_load(tmp_path):
    # a column that was all missing has zero categories: a valid model
    X = np.array([[np.nan, 1.0], [np.nan, 2.0], [np.nan, 0.0]])
    model = fastnb.CategoricalNB().fit(X, [0, 1, 0])
    assert model.n_categories_[0] == 0
    loaded = fastnb.load(_saved(model, tmp_path))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


# -- BernoulliNB: counts within their class counts ---------------------------------
def _bernoulli_dense(tmp_path):
    rng = np.random.default_rng(1)
    X, y = rng.integers(0, 2, (50, 4)).astype(float), rng.integers(0, 2, 50)
    model = fastnb.BernoulliNB().fit(X, y)
    return model, _saved(model, tmp_path), X


def test_bernoulli_count_above_its_class_count_is_refused(tmp_path):
    _, path, _ = _bernoulli_dense(tmp_path)
    arrays = _members(path)
    count = arrays["feature_count_"].copy()
    count[0, 0] = arrays["class_count_"][0] + 5
    _rewrite(path, feature_count_=count)
    _refused(path, "feature_count_", "must not exceed class_count_")


def test_bernoulli_missing_count_leaving_no_room_is_refused(tmp_path):
    _, path, _ = _bernoulli_dense(tmp_path)
    arrays = _members(path)
    missing = np.zeros_like(arrays["missing_count"])
    missing[0] = arrays["class_count_"][0]  # every row of class 0 missing ...
    _rewrite(path, missing_count=missing)   # ... though it counted ones
    _refused(path, "feature_count_", "less its missing_count")
    missing[0] = arrays["class_count_"][0] * 2
    _rewrite(path, missing_count=missing)
    _refused(path, "missing_count", "must not exceed class_count_")


def test_bernoulli_table_count_above_its_class_count_is_refused(tmp_path):
    _, path, _ = _table_model("BernoulliNB", tmp_path, missing=True)
    arrays = _members(path)
    counts = arrays["table_count"].copy()
    counts[0] = arrays["class_count_"][arrays["table_class"][0]] + 1
    totals = np.bincount(arrays["table_class"], counts, minlength=4)
    _rewrite(path, table_count=counts, table_class_total=totals)
    _refused(path, "feature_count_", "must not exceed class_count_")


def test_bernoulli_table_missing_pair_without_a_count_entry_is_refused(tmp_path):
    _, path, _ = _table_model("BernoulliNB", tmp_path, missing=True)
    arrays = _members(path)
    assert arrays["missing_feature"].size
    # a missing value at a (feature, class) pair the count entries do not list
    taken = set(zip(arrays["table_feature"].tolist(), arrays["table_class"].tolist()))
    feature = next(j for j in range(2**19) if (j, 0) not in taken)
    order = np.argsort(np.append(arrays["missing_feature"], feature), kind="stable")
    _rewrite(path,
             missing_feature=np.append(arrays["missing_feature"], feature)[order],
             missing_class=np.append(arrays["missing_class"], 0)[order],
             missing_count=np.append(arrays["missing_count"], 1.0)[order])
    _refused(path, "missing_feature", "every pair with missing values")


# -- the sparse count table: entries and per-class totals ---------------------------
@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB", "BernoulliNB"])
def test_table_totals_that_disagree_with_the_entries_are_refused(name, tmp_path):
    model, path, X = _table_model(name, tmp_path)
    arrays = _members(path)
    totals = arrays["table_class_total"].copy()
    totals[0] *= 50
    _rewrite(path, table_class_total=totals)
    _refused(path, "table_class_total", "must equal the sum")
    # the totals as saved load, and predict the saved model's bits
    _rewrite(path, table_class_total=arrays["table_class_total"])
    np.testing.assert_array_equal(fastnb.load(path).predict_proba(X),
                                  model.predict_proba(X))


@pytest.mark.parametrize("change, member, rule", [
    (lambda a: {"table_feature": np.where(a["table_feature"] == a["table_feature"][-1],
                                          2**19, a["table_feature"])},
     "table_feature", "must lie in"),
    (lambda a: {"table_feature": a["table_feature"] - a["table_feature"][0] - 1},
     "table_feature", "must lie in"),
    (lambda a: {"table_feature": a["table_feature"][::-1].copy()},
     "table_feature", "grouped by feature"),
    (lambda a: {"table_class": np.full_like(a["table_class"], 4)},
     "table_class", "must lie in"),
    (lambda a: {"table_class": np.full_like(a["table_class"], -1)},
     "table_class", "must lie in"),
    (lambda a: {"table_class": np.zeros_like(a["table_class"])},
     "table_class", "repeats|more entries than there are classes"),
    (lambda a: {"table_feature": a["table_feature"].astype(np.float64)},
     "table_feature", "int64"),
    (lambda a: {"table_count": a["table_count"][:-1].copy()},
     "table_count", ""),
])
def test_table_entries_that_break_the_layout_are_refused(change, member, rule, tmp_path):
    _, path, _ = _table_model("MultinomialNB", tmp_path)
    _rewrite(path, **change(_members(path)))
    with pytest.raises(ValueError, match=member):
        fastnb.load(path)
    if rule:
        _refused(path, member, rule)


# -- counts whose sums overflow, variances that overflow ----------------------------
@pytest.mark.parametrize("name", ["ComplementNB", "MultinomialNB", "BernoulliNB"])
def test_counts_whose_sums_overflow_are_refused(name, tmp_path):
    rng = np.random.default_rng(2)
    X, y = rng.integers(0, 2, (50, 4)).astype(float), rng.integers(0, 2, 50)
    path = _saved(getattr(fastnb, name)().fit(X, y), tmp_path)
    count = np.full_like(_members(path)["feature_count_"], 1e308)
    _rewrite(path, feature_count_=count)
    with pytest.raises(ValueError, match="feature_count_: "):
        fastnb.load(path)


def test_complement_table_counts_whose_sums_overflow_are_refused(tmp_path):
    _, path, _ = _table_model("ComplementNB", tmp_path)
    arrays = _members(path)
    counts = np.full_like(arrays["table_count"], 1e308)
    _rewrite(path, table_count=counts)
    with pytest.raises(ValueError, match="table_c"):
        fastnb.load(path)


@pytest.mark.parametrize("member", ["seen_count", "feature_count"])
def test_gaussian_denormal_counts_are_refused(member, tmp_path):
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(50, 4)), rng.integers(0, 2, 50)
    path = _saved(fastnb.GaussianNB().fit(X, y), tmp_path)
    _rewrite(path, **{member: np.full_like(_members(path)[member], 5e-324)})
    _refused(path, "(seen|class)_ssd", "overflows float64")


def test_gaussian_fitted_with_small_weights_saves_and_loads(tmp_path):
    # seen_count counts rows (unweighted); class_count_ sums the weights: a
    # rule tying them refused every model fitted with weights below 1
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(50, 4)), rng.integers(0, 2, 50)
    model = fastnb.GaussianNB().fit(X, y, sample_weight=rng.random(50) * 0.5)
    loaded = fastnb.load(_saved(model, tmp_path))
    np.testing.assert_array_equal(loaded.predict_joint_log_proba(X),
                                  model.predict_joint_log_proba(X))


@pytest.mark.parametrize("member", ["theta_", "seen_mean"])
def test_gaussian_means_whose_deviations_overflow_are_refused(member, tmp_path):
    # Loaded and predicted before; the next partial_fit made every probability NaN.
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(50, 4)), rng.integers(0, 2, 50)
    path = _saved(fastnb.GaussianNB().fit(X, y), tmp_path)
    values = _members(path)[member].copy()
    values.flat[0] = 1e308
    _rewrite(path, **{member: values})
    _refused(path, member, "at most 1e\\+154")
    # and save refuses what load would: a model fitted on such means
    model = fastnb.GaussianNB().fit(np.array([[1e200], [1e200]]), [0, 1])
    with pytest.raises(ValueError, match="load would refuse"):
        model.save(tmp_path / "huge.npz")


# -- every model: what loads predicts finite probabilities, and the hook ----------
def test_every_model_has_the_hook_and_accepts_its_own_state():
    from _registry import ESTIMATORS
    from test_persistence import ESTIMATORS as MAKERS

    rng = np.random.default_rng(4)
    for name, spec in ESTIMATORS.items():
        factory, make = MAKERS[name]
        X, y = make(rng)
        model = factory().fit(X, y)
        hook = type(model)._check_state_invariants
        hook(model.classes_, model._sufficient_state(), model.n_features_in_)


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB", "BernoulliNB"])
def test_hook_accepts_a_table_backed_state(name, tmp_path):
    model, _, _ = _table_model(name, tmp_path, missing=name == "BernoulliNB")
    type(model)._check_state_invariants(model.classes_, model._sufficient_state(),
                                        model.n_features_in_)


def test_hook_refuses_a_bernoulli_model_that_load_would_refuse():
    # binarize=None on values above one: counts above their class counts, whose
    # probabilities are NaN (as scikit-learn's): save's hook refuses the state
    X, y = np.array([[3.0, 0.0], [0.0, 1.0]]), np.array([0, 1])
    model = fastnb.BernoulliNB(binarize=None).fit(X, y)
    with pytest.raises(ValueError, match="feature_count_: must not exceed"):
        fastnb.BernoulliNB._check_state_invariants(
            model.classes_, model._sufficient_state(), 2)


def test_table_restore_allocates_for_the_entries_not_k_by_d(tmp_path):
    # 2**26 declared features, 20 documents: the load holds the (d,) block index
    # (12 bytes a feature) and what the entries need, no k x d or 8-byte (d,)
    # temporaries (before: ~40 bytes a feature, 2.9 GiB at its peak here)
    d = 2**26
    rng = np.random.default_rng(5)
    rows = np.repeat(np.arange(20), 30)
    X = sp.csr_matrix((np.ones(600), (rows, rng.integers(0, d, 600))), shape=(20, d))
    X.sum_duplicates()
    model = fastnb.MultinomialNB().fit(X, np.arange(20) % 3)
    assert "_table" in model.__dict__
    path = _saved(model, tmp_path)
    del model
    tracemalloc.start()
    try:
        loaded = fastnb.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 13 * d + (16 << 20), peak / d
    np.testing.assert_array_equal(loaded.predict(X), np.argmax(
        loaded.predict_proba(X), axis=1))


@pytest.mark.parametrize("n_classes", [3, 64, 65, 200])
def test_table_entry_pairs_are_distinct_whatever_the_classes(n_classes):
    from fastnb import _invariants

    features = np.array([0, 0, 2, 2, 2, 7], dtype=np.int64)
    classes = np.array([1, 0, n_classes - 1, 0, 1, 2], dtype=np.int64)
    counts = np.arange(1.0, 7.0)
    live, lengths, _, sums = _invariants.table_entries(
        "table", features, classes, counts, n_classes, 8)
    np.testing.assert_array_equal(live, [0, 2, 7])
    np.testing.assert_array_equal(lengths, [2, 3, 1])
    np.testing.assert_array_equal(sums.sums,
                                  np.bincount(classes, counts, minlength=n_classes))
    largest = [counts[classes == c].max() if np.any(classes == c) else -np.inf
               for c in range(n_classes)]
    np.testing.assert_array_equal(sums.largest, largest)
    assert not sums.negative
    classes[4] = n_classes - 1
    with pytest.raises(ValueError, match="table_class: a .* pair repeats"):
        _invariants.table_entries("table", features, classes, counts, n_classes, 8)
    with pytest.raises(ValueError, match="n_features_in: .*2\\*\\*62"):
        _invariants.table_entries("table", features, classes, counts, n_classes, 2**62)
