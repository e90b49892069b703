"""BernoulliNB, MultinomialNB and ComplementNB against scikit-learn, the oracle.

Bad input has its file (test_discrete_bad_input.py), as have missing values
(test_discrete_missing.py) and the sparse table (test_count_table*.py)."""

import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from fastnb._threads import PARALLEL_MIN_WORK
from fastnb import BernoulliNB, ComplementNB, MultinomialNB
from _discrete_data import MODELS, _as_kind, _counts

sklearn_nb = pytest.importorskip("sklearn.naive_bayes")
sp = pytest.importorskip("scipy.sparse")

ATTRIBUTES = ["class_count_", "feature_count_", "feature_log_prob_", "class_log_prior_"]
OUTPUTS = ["predict_joint_log_proba", "predict_log_proba", "predict_proba"]
RTOL = 1e-10


def _pair(name, **params):
    return getattr(fastnb, name)(**params), getattr(sklearn_nb, name)(**params)


def _assert_same_model(ours, theirs, X_test, rtol=RTOL):
    assert_array_equal(ours.classes_, theirs.classes_)
    assert ours.n_features_in_ == theirs.n_features_in_
    for attr in ATTRIBUTES + (["feature_all_"] if hasattr(theirs, "feature_all_") else []):
        assert_allclose(getattr(ours, attr), getattr(theirs, attr), rtol=rtol,
                        atol=0, err_msg=attr)
    for method in OUTPUTS:
        assert_allclose(getattr(ours, method)(X_test), getattr(theirs, method)(X_test),
                        rtol=rtol, atol=1e-300, err_msg=method)
    _assert_same_labels(ours.predict(X_test), theirs, X_test, rtol)


def _assert_same_labels(labels, theirs, X_test, rtol=RTOL):
    """scikit-learn's labels, except where two classes tie in its joint log
    likelihood to rounding (binary rows and many classes make exact ties, which
    any other order of the same sums may break the other way): there, a label
    whose score is the top one within ``rtol``."""
    expected = theirs.predict(X_test)
    differ = np.flatnonzero(labels != expected)
    if differ.size:
        jll = theirs.predict_joint_log_proba(X_test[differ])
        ours = np.searchsorted(theirs.classes_, labels[differ])
        best = jll.max(axis=1)
        assert_allclose(jll[np.arange(differ.size), ours], best, rtol=rtol, atol=0,
                        err_msg=f"predict: rows {differ} are not ties")


KINDS = ["float64", "float32", "int64", "uint8", "bool", "fortran", "csr32", "csr64",
         "csr_float32", "csc", "coo", "csr_array"]


# -- agreement with scikit-learn ----------------------------------------------------------
@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_matches_sklearn(name, kind, weighted, n_threads, rng, monkeypatch):
    # Parallel paths on small data: lower the work thresholds.
    for work_kind in PARALLEL_MIN_WORK:  # the parallel paths, however small the data
        monkeypatch.setitem(PARALLEL_MIN_WORK, work_kind, 0)
    X, y = _counts(rng)
    Xk = _as_kind(X, kind)
    weights = rng.random(X.shape[0]) * 3 if weighted else None
    ours, theirs = _pair(name)
    ours.set_params(n_threads=n_threads)
    ours.fit(Xk, y, sample_weight=weights)
    theirs.fit(Xk, y, sample_weight=weights)
    # float32 input: both accumulate the float32 values exactly in float64, so the
    # float64 tolerance holds.
    _assert_same_model(ours, theirs, Xk)


@pytest.mark.parametrize(
    "name,params",
    [
        ("BernoulliNB", {"binarize": None}),
        ("BernoulliNB", {"binarize": 0.5}),
        ("BernoulliNB", {"binarize": 2.0}),
        ("BernoulliNB", {"alpha": 0.3, "fit_prior": False}),
        ("BernoulliNB", {"class_prior": [0.2, 0.5, 0.3]}),
        ("MultinomialNB", {"alpha": np.linspace(0.1, 2.0, 13)}),
        ("MultinomialNB", {"alpha": 0.0, "force_alpha": True}),
        ("MultinomialNB", {"fit_prior": False}),
        ("MultinomialNB", {"class_prior": [0.2, 0.5, 0.3]}),
        ("ComplementNB", {"norm": True}),
        ("ComplementNB", {"alpha": np.linspace(0.1, 2.0, 13), "norm": True}),
    ],
)
@pytest.mark.parametrize("kind", ["float64", "float32", "csr32", "int64"])
def test_matches_sklearn_parameters(name, params, kind, rng):
    X, y = _counts(rng)
    if params.get("binarize", 0.0) is None:
        X = (X > 0).astype(np.float64)  # binarize=None presumes binary input
    Xk = _as_kind(X, kind)
    ours, theirs = _pair(name, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # sklearn's log(0) with alpha=0
        ours.fit(Xk, y)
        theirs.fit(Xk, y)
        _assert_same_model(ours, theirs, Xk)


@pytest.mark.parametrize("name", MODELS)
def test_partial_fit_matches_sklearn(name, rng):
    X, y = _counts(rng, n=150)
    weights = rng.random(150)
    ours, theirs = _pair(name)
    for part in (slice(0, 40), slice(40, 41), slice(41, 150)):
        Xp = sp.csr_matrix(X[part]) if part.start == 40 else X[part]
        ours.partial_fit(Xp, y[part], classes=[0, 1, 2], sample_weight=weights[part])
        theirs.partial_fit(Xp, y[part], classes=[0, 1, 2], sample_weight=weights[part])
    _assert_same_model(ours, theirs, X)


@pytest.mark.parametrize("name", MODELS)
def test_single_class_and_string_labels(name, rng):
    X, _ = _counts(rng, n=30)
    y = np.array(["spam"] * 30)
    ours, theirs = _pair(name)
    _assert_same_model(ours.fit(X, y), theirs.fit(X, y), X)
    y = np.array(["ham", "spam", "eggs"])[rng.integers(0, 3, 30)]
    _assert_same_model(ours.fit(X, y), theirs.fit(X, y), X)


def test_bernoulli_array_alpha_is_per_feature(rng):
    # scikit-learn 1.9 cannot broadcast class_count_ + 2 * alpha for an array alpha;
    # fastnb uses the per-feature denominator class_count_[c] + 2 * alpha[j].
    X, y = _counts(rng)
    alpha = np.linspace(0.5, 1.5, X.shape[1])
    model = BernoulliNB(alpha=alpha).fit(X, y)
    binary = (X > 0).astype(np.float64)
    expected_fc = np.stack([binary[y == c].sum(axis=0) for c in range(3)])
    expected_cc = np.bincount(y).astype(np.float64)
    expected = np.log(expected_fc + alpha) - np.log(expected_cc[:, None] + 2 * alpha)
    assert_allclose(model.feature_log_prob_, expected, rtol=1e-12)


def test_force_alpha_false_warns_and_clips(rng):
    X, y = _counts(rng)
    with pytest.warns(UserWarning, match="alpha too small"):
        ours = MultinomialNB(alpha=0.0, force_alpha=False).fit(X, y)
    with pytest.warns(UserWarning, match="alpha too small"):
        theirs = sklearn_nb.MultinomialNB(alpha=0.0, force_alpha=False).fit(X, y)
    _assert_same_model(ours, theirs, X)


# -- the seed example: Bernoulli NB on the Scottish/English data ----------------------------
SEED_DATA = np.array([
    [0, 0, 1, 1, 0], [1, 0, 1, 0, 0], [1, 1, 0, 1, 0], [1, 1, 0, 0, 0], [0, 1, 0, 1, 0],
    [0, 0, 1, 0, 0], [1, 0, 1, 1, 1], [1, 1, 0, 1, 1], [1, 1, 1, 0, 1], [1, 1, 1, 0, 1],
    [1, 1, 1, 1, 1], [1, 0, 1, 0, 1], [1, 0, 0, 0, 1],
])


def test_seed_scottish_example_by_hand():
    X, y = SEED_DATA[:, :4].astype(bool), SEED_DATA[:, 4]
    x = np.array([[1, 0, 1, 0]], dtype=bool)
    model = BernoulliNB(alpha=1e-12, force_alpha=True).fit(X, y)
    assert model.predict(x)[0] == 1  # Scottish

    # The article's estimates, counted by hand: 7 Scots, 6 English.
    # Scots (rows 7-13):   shortbread 7/7, lager 4/7, porridge 5/7, football 3/7
    # English (rows 1-6):  shortbread 3/6, lager 3/6, porridge 3/6, football 3/6
    p_scot = np.array([7, 4, 5, 3]) / 7
    p_eng = np.array([3, 3, 3, 3]) / 6

    def likelihood(p):
        return np.prod(np.where(x[0], p, 1 - p))

    joint_scot = likelihood(p_scot) * 7 / 13  # (1)(3/7)(5/7)(4/7) * 7/13
    joint_eng = likelihood(p_eng) * 6 / 13
    posterior_scot = joint_scot / (joint_scot + joint_eng)
    assert_allclose(posterior_scot, 160 / 209, rtol=1e-14)
    assert_allclose(model.predict_proba(x)[0, 1], posterior_scot, rtol=1e-9)
    assert_allclose(model.class_count_, [6, 7])
    assert_allclose(model.feature_count_, [[3, 3, 3, 3], [7, 4, 5, 3]])
    # bool, uint8 and float input give the same model
    for Xk in (X.astype(np.uint8), X.astype(np.float64), sp.csr_matrix(X.astype(float))):
        assert_allclose(
            BernoulliNB(alpha=1e-12).fit(Xk, y).predict_proba(x), model.predict_proba(x)
        )


def test_seed_demo_text():
    from fastnb._demos import bernoulli_seed_demo

    text = bernoulli_seed_demo()
    assert "Scottish" in text
    assert "P(Scottish | x) = 0.7656" in text


# -- exact partial_fit and thread-count independence ----------------------------------------
@st.composite
def _fit_problem(draw):
    n = draw(st.integers(2, 60))
    d = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.poisson(draw(st.floats(0.1, 3.0)), size=(n, d)).astype(np.float64)
    y = rng.integers(0, draw(st.integers(1, 4)), n)
    cuts = sorted(draw(st.lists(st.integers(1, n - 1), max_size=4, unique=True)))
    weighted = draw(st.booleans())
    weights = rng.random(n) if weighted else None
    kind = draw(st.sampled_from(["float64", "float32", "bool", "csr32", "csr64"]))
    name = draw(st.sampled_from(MODELS))
    return name, X, y, cuts, weights, kind


def _slice_rows(X, start, stop):
    return X[start:stop]


@given(_fit_problem())
def test_partial_fit_over_any_split_equals_fit(problem):
    name, X, y, cuts, weights, kind = problem
    Xk = _as_kind(X, kind)
    classes = np.unique(y)
    whole = getattr(fastnb, name)().fit(Xk, y, sample_weight=weights)
    parts = getattr(fastnb, name)()
    bounds = [0] + cuts + [X.shape[0]]
    for start, stop in zip(bounds[:-1], bounds[1:]):
        parts.partial_fit(
            _slice_rows(Xk, start, stop), y[start:stop], classes=classes,
            sample_weight=None if weights is None else weights[start:stop],
        )
    # Counts are summed in the same row order either way: the same bits.
    assert_array_equal(parts.feature_count_, whole.feature_count_)
    assert_array_equal(parts.class_count_, whole.class_count_)
    assert_array_equal(parts.feature_log_prob_, whole.feature_log_prob_)
    assert_array_equal(parts.predict_proba(Xk), whole.predict_proba(Xk))


@given(_fit_problem())
def test_same_bits_for_any_thread_count(problem):
    name, X, y, _, weights, kind = problem
    Xk = _as_kind(X, kind)
    results = []
    with pytest.MonkeyPatch.context() as mp:
        for work_kind in PARALLEL_MIN_WORK:  # the parallel paths, however small the data
            mp.setitem(PARALLEL_MIN_WORK, work_kind, 0)
        for n_threads in (1, 2, 4):
            model = getattr(fastnb, name)(n_threads=n_threads).fit(
                Xk, y, sample_weight=weights
            )
            results.append((model.feature_count_, model.predict_joint_log_proba(Xk),
                            model.predict_proba(Xk), model.predict(Xk)))
    for other in results[1:]:
        for a, b in zip(results[0], other):
            assert_array_equal(a, b)


def test_threads_on_wide_data_same_bits(rng):
    # Rows wide enough (3 pages of bool) for column blocks by the default thresholds.
    X = rng.random((3000, 12_300)) < 0.3
    y = rng.integers(0, 4, 3000)
    ref = BernoulliNB(n_threads=1).fit(X, y)
    for n_threads in (2, 3, 4):
        model = BernoulliNB(n_threads=n_threads).fit(X, y)
        assert_array_equal(model.feature_count_, ref.feature_count_)
        assert_array_equal(model.predict_joint_log_proba(X), ref.predict_joint_log_proba(X))


# -- sparse specifics -------------------------------------------------------------------------
def _messy_csr(rng):
    """A CSR matrix with unsorted and duplicate column indices."""
    data = np.array([0.4, 0.4, 2.0, 1.0, 3.0, 0.3, 0.3, 0.3])
    indices = np.array([1, 1, 0, 3, 2, 0, 2, 0])
    indptr = np.array([0, 3, 5, 8])
    return sp.csr_matrix((data, indices, indptr), shape=(3, 4))


@pytest.mark.parametrize("name", MODELS)
def test_duplicate_and_unsorted_indices(name, rng):
    X = _messy_csr(rng)
    assert not X.has_canonical_format
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    y = np.array([0, 1, 0])
    dense = X.toarray()  # duplicates summed: the matrix's meaning
    params = {"binarize": 0.5} if name == "BernoulliNB" else {}
    ours = getattr(fastnb, name)(**params).fit(X, y)
    reference = getattr(fastnb, name)(**params).fit(dense, y)
    theirs = getattr(sklearn_nb, name)(**params).fit(dense, y)
    _assert_same_model(ours, theirs, dense)
    assert_allclose(ours.feature_count_, reference.feature_count_, rtol=1e-15)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(dense), rtol=RTOL)
    # the caller's matrix is left as it was
    for a, b in zip(before, (X.data, X.indices, X.indptr)):
        assert_array_equal(a, b)


def test_sparse_is_never_densified(rng):
    X = sp.random(2000, 50000, density=0.001, format="csr", random_state=0)
    y = rng.integers(0, 3, 2000)
    tracemalloc.start()
    model = MultinomialNB().fit(X, y)
    model.predict(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    dense_bytes = 2000 * 50000 * 8
    assert peak < dense_bytes / 20
    assert_allclose(model.predict_proba(X),
                    sklearn_nb.MultinomialNB().fit(X, y).predict_proba(X), rtol=RTOL)


# -- memory: no converted copy of X, no n x k temporary in predict ----------------------------
def test_bool_input_is_read_without_conversion(rng):
    X = rng.random((20000, 100)) < 0.5
    y = rng.integers(0, 5, 20000)
    tracemalloc.start()
    model = BernoulliNB().fit(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < X.nbytes / 2  # a float64 copy would be 8 * X.nbytes
    tracemalloc.start()
    labels = model.predict(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < labels.nbytes + 13 * 256 * 8 * 8 + 4096  # labels + the 8-bit table


def test_predict_string_labels_are_mapped(rng):
    X, y = _counts(rng)
    names = np.array(["a", "b", "c"])
    ours, theirs = _pair("MultinomialNB")
    assert_array_equal(ours.fit(X, names[y]).predict(X), theirs.fit(X, names[y]).predict(X))
    assert_array_equal(ours.fit(X, y + 10).predict(X), theirs.fit(X, y + 10).predict(X))


@pytest.mark.parametrize("name", MODELS)
def test_predict_peak_memory(name, rng):
    n, d, k = 20000, 30, 6
    X = rng.poisson(1.0, size=(n, d)).astype(np.float64)
    y = rng.integers(0, k, n)
    model = getattr(fastnb, name)().fit(X, y)
    model.predict(X[:10])
    budget = 64 * k * d + 4096
    tracemalloc.start()
    labels = model.predict(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak <= labels.nbytes + budget  # integer labels are mapped in place
    tracemalloc.start()
    proba = model.predict_proba(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak <= proba.nbytes + budget


# -- protocol ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", MODELS)
def test_pickle_roundtrip(name, rng):
    X, y = _counts(rng)
    model = getattr(fastnb, name)().fit(X, y)
    Xs = sp.csr_matrix(X)
    expected = model.predict_proba(Xs)
    clone = pickle.loads(pickle.dumps(model))
    # caches are not state: none is pickled (the dense models keep theirs beside
    # the model, the count table on itself)
    assert fastnb._discrete._PREDICT_CACHE.get(clone) is None
    if "_table" in clone.__dict__:  # (FASTNB_TEST_SPARSE_TABLE=1)
        assert model._table.predict_state is not None
        assert clone._table.predict_state is None
    assert_array_equal(clone.predict_proba(Xs), expected)
    assert_array_equal(clone.predict(X), model.predict(X))


def test_feature_names_and_repr(rng):
    pd = pytest.importorskip("pandas")
    X, y = _counts(rng, d=3)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = ComplementNB(norm=True, n_threads=1).fit(frame, y)
    assert_array_equal(model.feature_names_in_, ["a", "b", "c"])
    assert repr(model) == "ComplementNB(n_threads=1, norm=True)"
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        model.predict(X)
    assert sorted(BernoulliNB().get_params()) == [
        "alpha", "binarize", "class_prior", "fit_prior", "force_alpha", "grow_classes",
        "half_life", "n_threads"]


def test_binarize_read_at_predict_time(rng):
    X, y = _counts(rng)
    ours, theirs = _pair("BernoulliNB")
    ours.fit(X, y)
    theirs.fit(X, y)
    ours.set_params(binarize=1.5)
    theirs.set_params(binarize=1.5)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=RTOL)


def test_integer_threshold_semantics(rng):
    # Integer input with a fractional threshold: x > 1.5 means x >= 2.
    X = rng.integers(0, 5, size=(50, 6))
    y = rng.integers(0, 2, 50)
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32):
        ours, theirs = _pair("BernoulliNB", binarize=1.5)
        _assert_same_model(ours.fit(X.astype(dtype), y), theirs.fit(X, y), X.astype(dtype))


@pytest.mark.parametrize("n_classes", [2, 9, 16, 17, 24, 25, 33, 40, 47, 49])
@pytest.mark.parametrize("kind", ["bool", "float64", "uint8", "csr32", "csr64"])
def test_table_paths_for_any_class_count(n_classes, kind, rng, monkeypatch):
    # The byte-pattern table pads the classes to 8 or 16 (register accumulators)
    # or keeps k (generic loop); d=21 has two full groups of 8 and a tail of 5.
    for work_kind in PARALLEL_MIN_WORK:  # the parallel paths, however small the data
        monkeypatch.setitem(PARALLEL_MIN_WORK, work_kind, 0)
    X = rng.random((400, 21)) < 0.4
    y = np.arange(400) % n_classes
    Xk = _as_kind(X.astype(np.float64), kind)
    for n_threads in (1, 2):
        ours = BernoulliNB(n_threads=n_threads).fit(Xk, y)
        theirs = sklearn_nb.BernoulliNB().fit(Xk, y)
        _assert_same_model(ours, theirs, Xk)
    if "_table" not in ours.__dict__:  # (FASTNB_TEST_SPARSE_TABLE=1: the count table)
        cache = fastnb._discrete._PREDICT_CACHE[ours]
        assert ("weights_fm" if kind.startswith("csr") else "bool_table") in cache
    for name in MODELS[1:]:  # linear CSR path (no threshold) with padded weights
        ours, theirs = _pair(name)
        _assert_same_model(ours.fit(Xk, y), theirs.fit(Xk, y), Xk)


@pytest.mark.parametrize("name, params", [
    ("MultinomialNB", {}), ("ComplementNB", {}), ("ComplementNB", {"norm": True})])
def test_log_probabilities_by_class_blocks(name, params, rng, monkeypatch):
    # the (k, d) log probabilities are computed by blocks of classes on threads:
    # the same bits for any thread count, and a zero count with alpha=0 (log 0)
    # warns no more on a helper thread than on the caller's
    for work_kind in PARALLEL_MIN_WORK:
        monkeypatch.setitem(PARALLEL_MIN_WORK, work_kind, 0)
    X, y = _counts(rng)
    X[:, 3] = 0
    X[y == y[0], 5] = 0
    results = []
    for n_threads in (1, 2, 3, 7):
        model = getattr(fastnb, name)(alpha=0.0, force_alpha=True, n_threads=n_threads,
                                      **params)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model.fit(X, y)
        results.append(model.feature_log_prob_)
    assert np.isinf(results[0]).any() or np.isnan(results[0]).any()
    for other in results[1:]:
        assert_array_equal(other, results[0])


def _mixed_count_rows(rng, d=256, per_class=40):
    """Rows of five classes whose (k, d) counts take each path of MultinomialNB's
    log-probability kernel: small whole counts (from its table), large counts
    (left to NumPy at the first look), fractional values (left), small counts with
    a few large and fractional ones (table, and a log each for those), and large
    counts everywhere but at the features the first look reads (left after the
    pass)."""
    blocks = [rng.poisson(0.4, size=(per_class, d)).astype(np.float64),
              rng.poisson(0.4, size=(per_class, d)) * 1000.0,
              rng.random((per_class, d)) * 0.3,
              rng.poisson(0.4, size=(per_class, d)).astype(np.float64),
              np.full((per_class, d), 100.0)]
    # (none at a feature j = 0 mod 64, which the first look reads)
    blocks[3][0, 1::40] = 500.0
    blocks[3][1, 3::50] = 0.25
    blocks[4][:, ::64] = 0.0
    X = np.vstack(blocks)
    y = np.repeat(np.arange(5), per_class)
    return X, y


@pytest.mark.parametrize("alpha", [1.0, 0.5, 0.0, "array"])
@pytest.mark.parametrize("kind", ["float64", "float32", "csr"])
def test_multinomial_log_prob_paths_match_sklearn(alpha, kind, rng, monkeypatch):
    # MultinomialNB's feature_log_prob_: a class row of small whole counts comes
    # from the kernel's table of log(n + a), the others from NumPy's log; either
    # way scikit-learn's values, and the same bits on any thread count
    for work_kind in PARALLEL_MIN_WORK:
        monkeypatch.setitem(PARALLEL_MIN_WORK, work_kind, 0)
    monkeypatch.setattr(fastnb._discrete._multinomial, "LOG_KERNEL_MIN_CELLS", 0)
    X, y = _mixed_count_rows(rng)
    params = {"alpha": alpha, "force_alpha": True}
    if alpha == "array":
        params["alpha"] = rng.random(X.shape[1]) + 0.1
    Xk = sp.csr_matrix(X) if kind == "csr" else _as_kind(X, kind)
    theirs = sklearn_nb.MultinomialNB(**params).fit(Xk, y)
    results = []
    for n_threads in (1, 2, 3):
        ours = MultinomialNB(n_threads=n_threads, **params).fit(Xk, y)
        with np.errstate(invalid="ignore"):
            assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-13,
                            atol=0)
        results.append(ours.feature_log_prob_)
    for other in results[1:]:
        assert_array_equal(other, results[0])
    # (test rows of small counts: a row of 256 counts of 1000 has a joint log
    # likelihood of ~1e6, whose last bits are 1e-10 of its tiny probabilities)
    # (with alpha = 0, scikit-learn's dense product makes 0 * log 0 a NaN that
    # fastnb's sparse-aware sums do not: compared above by feature_log_prob_ alone)
    if alpha != 0.0:
        X_test = rng.poisson(0.5, size=(30, X.shape[1])).astype(np.float64)
        _assert_same_model(ours, theirs, X_test)
    # which rows the kernel takes from its table (it leaves the rest to NumPy; an
    # alpha per feature leaves it out)
    if alpha != "array":
        fc = ours.feature_count_
        left = np.empty(fc.shape[0], dtype=np.uint8)
        kernel_rows = np.empty(fc.shape)
        fastnb._discrete._shared._kernels.multinomial_log_prob(
            fc, float(alpha), kernel_rows, np.empty(fc.shape[0]), left, 1)
        assert_array_equal(left, [0, 1, 1, 0, 1])
        assert_array_equal(ours.feature_log_prob_[[0, 3]], kernel_rows[[0, 3]])


def _complement_count_rows(rng, pattern, d=256, per_class=40):
    """Rows of three classes whose complement counts F_j - N_cj take the paths of
    ComplementNB's log kernel, and the rows it leaves to NumPy (``left``)."""
    small = [rng.poisson(0.4, size=(per_class, d)).astype(np.float64) for _ in range(3)]
    if pattern == "small":
        # small whole counts, with a few large and fractional ones: every row
        # from the table, a log each for those
        small[1][0, 1::40] = 500.0
        small[1][1, 3::50] = 0.25
        left = [0, 0, 0]
    elif pattern == "one large class":
        # class 0's counts make the other classes' complements large at the first look
        small[0] *= 1000.0
        left = [0, 1, 1]
    elif pattern == "fractional":
        small = [rng.random((per_class, d)) * 0.3 for _ in range(3)]
        left = [1, 1, 1]
    else:  # "large after the first look": none at a feature j = 0 mod 64
        small[0][:] = 100.0
        small[0][:, ::64] = 0.0
        left = [0, 1, 1]
    return np.vstack(small), np.repeat(np.arange(3), per_class), left


@pytest.mark.parametrize("pattern", ["small", "one large class", "fractional",
                                     "large after the first look"])
@pytest.mark.parametrize("alpha", [1.0, 0.3, "array"])
@pytest.mark.parametrize("norm", [False, True])
def test_complement_log_prob_paths_match_sklearn(pattern, alpha, norm, rng, monkeypatch):
    # ComplementNB's feature_log_prob_ and feature_all_: a class row of small whole
    # complement counts from the kernel's table of log(n + a), the others from
    # NumPy; either way scikit-learn's values, and the same bits on any thread count
    for work_kind in PARALLEL_MIN_WORK:
        monkeypatch.setitem(PARALLEL_MIN_WORK, work_kind, 0)
    monkeypatch.setattr(fastnb._discrete._multinomial, "LOG_KERNEL_MIN_CELLS", 0)
    X, y, expected_left = _complement_count_rows(rng, pattern)
    params = {"alpha": rng.random(X.shape[1]) + 0.1 if alpha == "array" else alpha,
              "norm": norm}
    theirs = sklearn_nb.ComplementNB(**params).fit(X, y)
    results = []
    for n_threads in (1, 2, 3):
        ours = ComplementNB(n_threads=n_threads, **params).fit(X, y)
        assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-13,
                        atol=0)
        assert_allclose(ours.feature_all_, theirs.feature_all_, rtol=1e-13, atol=0)
        # (NumPy's sum over the classes in order, of our counts)
        assert_array_equal(ours.feature_all_, ours.feature_count_.sum(axis=0))
        results.append(ours.feature_log_prob_)
    for other in results[1:]:
        assert_array_equal(other, results[0])
    _assert_same_model(ours, theirs, rng.poisson(0.5, size=(30, X.shape[1])))
    if alpha != "array":
        fc = ours.feature_count_
        left = np.empty(fc.shape[0], dtype=np.uint8)
        kernel_rows = np.empty(fc.shape)
        fastnb._discrete._shared._kernels.complement_log_prob(
            fc, float(alpha), kernel_rows, np.empty(fc.shape[1]), np.empty(fc.shape[0]),
            left, -1.0, 1)
        if alpha == 1.0:
            # (with alpha = 0.3, (F_j + a) - N_cj mostly rounds otherwise than
            # (F_j - N_cj) + a: those need logs of their own, and rows are left)
            assert_array_equal(left, expected_left)
        if not norm:
            taken = np.flatnonzero(left == 0)
            assert_array_equal(ours.feature_log_prob_[taken], kernel_rows[taken])
