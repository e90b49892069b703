"""fastnb.inspection: exact contributions, top contributions, informative features.

The oracle is the model's own predict_joint_log_proba (the identity base + sum of
contributions) and, for the five scikit-learn models, the hand computation from
scikit-learn's fitted attributes."""


import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from fastnb.inspection import (
    InformativeFeatures, TopContributions, contributions, informative_features,
    plot_contributions, plot_informative_features, top_contributions,
)

sklearn_nb = pytest.importorskip("sklearn.naive_bayes")

COUNT_MODELS = [fastnb.MultinomialNB, fastnb.ComplementNB, fastnb.BernoulliNB]


def assert_identity(model, X, base, values):
    jll = model.predict_joint_log_proba(X)
    if isinstance(values, list):
        total = np.column_stack([np.asarray(v.sum(axis=1)).ravel() for v in values])
        scale = np.column_stack([np.asarray(abs(v).sum(axis=1)).ravel()
                                 for v in values])
    else:
        total = values.sum(axis=2)
        scale = np.abs(values).sum(axis=2)
    finite = np.isfinite(jll)
    assert_array_equal(finite, np.isfinite(base + total))
    # relative to the size of the terms summed (their order differs from predict's)
    tolerance = 1e-12 * (np.abs(base) + scale + np.abs(jll))
    assert np.all(np.abs((base + total - jll)[finite]) <= tolerance[finite] + 1e-300)


def count_data(rng, n, d, k, nan=False):
    X = rng.poisson(0.7, size=(n, d)).astype(np.float64)
    y = rng.integers(0, k, size=n)
    y[:k] = np.arange(k)
    if nan:
        X[rng.random((n, d)) < 0.1] = np.nan
    return X, y


# -- the exact identity ----------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), kind=st.sampled_from(COUNT_MODELS),
       sparse=st.booleans(), table=st.booleans(), nan=st.booleans(),
       weighted=st.booleans(), alpha_array=st.booleans(),
       dtype=st.sampled_from([np.float32, np.float64]))
def test_count_models_identity(seed, kind, sparse, table, nan, weighted, alpha_array,
                               dtype, table_fits):
    rng = np.random.default_rng(seed)
    n, d, k = 40, 7, 3
    X, y = count_data(rng, n, d, k, nan=nan)
    w = rng.random(n) + 0.5 if weighted else None
    params = {"alpha": rng.random(d) + 0.1} if alpha_array else {}
    Xf = sp.csr_matrix(X.astype(dtype)) if sparse else X.astype(dtype)
    with table_fits(table and sparse):
        model = kind(**params).fit(Xf, y, sample_weight=w)
    # (BernoulliNB keeps an array alpha in dense counts)
    expect_table = table and sparse and not (alpha_array and kind is fastnb.BernoulliNB)
    if expect_table:   # (FASTNB_TEST_SPARSE_TABLE=1 puts every CSR fit there)
        assert model.__dict__.get("_table") is not None
    base, values = contributions(model, Xf)
    assert base.shape == (n, k)
    if sparse:
        assert isinstance(values, list) and len(values) == k
        for v in values:
            assert sp.issparse(v) and v.shape == (n, d)
            assert_array_equal(v.indptr, Xf.indptr)
            assert_array_equal(v.indices, Xf.indices)
    else:
        assert values.shape == (n, k, d)
    assert_identity(model, Xf, base, values)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), nan=st.booleans(), weighted=st.booleans(),
       priors=st.booleans(), dtype=st.sampled_from([np.float32, np.float64]))
def test_gaussian_identity(seed, nan, weighted, priors, dtype):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(50, 5)) * [1, 10, 0.1, 3, 1] + [0, 5, 1e3, 0, -2]
    y = rng.integers(0, 3, size=50)
    y[:3] = [0, 1, 2]
    if nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    model = fastnb.GaussianNB(priors=[0.2, 0.3, 0.5] if priors else None).fit(
        X.astype(dtype), y, sample_weight=rng.random(50) + 0.1 if weighted else None)
    base, values = contributions(model, X.astype(dtype))
    assert_identity(model, X.astype(dtype), base, values)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), unseen=st.booleans(), strings=st.booleans())
def test_categorical_identity(seed, unseen, strings):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(60, 4))
    y = rng.integers(0, 3, size=60)
    y[:3] = [0, 1, 2]
    Xfit = X.astype(str).astype(object) if strings else X
    model = fastnb.CategoricalNB().fit(Xfit, y)
    Xq = X.copy()
    if unseen:
        Xq[::5, 1] = 9      # a category never seen in fit
    Xq = Xq.astype(str).astype(object) if strings else Xq
    base, values = contributions(model, Xq)
    assert_identity(model, Xq, base, values)


def test_columnwise_identity_and_breakdown(rng):
    pd = pytest.importorskip("pandas")
    n = 80
    frame = pd.DataFrame({
        "height": rng.normal(170, 10, n),
        "colour": rng.choice(["red", "green", "blue"], n),
        "words": rng.poisson(1.0, n).astype(float),
        "weight": rng.normal(70, 5, n),
    })
    frame.loc[::7, "height"] = np.nan
    y = rng.integers(0, 3, n)
    model = fastnb.ColumnwiseNB().fit(frame, y)
    base, values, parts = contributions(model, frame, by_estimator=True)
    assert values.shape == (n, 3, 4)
    assert_identity(model, frame, base, values)
    # each sub-model's part: its own contributions, on its columns
    for name, (part_base, columns, part_values) in parts.items():
        assert_allclose(part_values, values[:, :, columns], rtol=0, atol=0)
        sub = model.named_estimators_[name]
        assert_allclose(part_base + part_values.sum(axis=2),
                        sub.predict_joint_log_proba(frame.iloc[:, columns].to_numpy()),
                        rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("kind", COUNT_MODELS + [fastnb.GaussianNB])
def test_same_bits_for_any_thread_count(kind, rng, parallel_kernels):
    X, y = count_data(rng, 300, 9, 4)
    with parallel_kernels():
        results = []
        for n_threads in (1, 2, 3):
            model = kind(n_threads=n_threads).fit(X, y)
            base, values = contributions(model, X)
            top = top_contributions(model, X, n=4)
            results.append((values, top.features, top.values))
    for values, features, top_values in results[1:]:
        assert_array_equal(values, results[0][0])
        assert_array_equal(features, results[0][1])
        assert_array_equal(top_values, results[0][2])


# -- against scikit-learn's fitted attributes ----------------------------------------------
@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB", "BernoulliNB"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_counts_equal_sklearn_hand_computation(name, dtype, rng):
    X, y = count_data(rng, 60, 6, 3)
    X = X.astype(dtype)
    ours = getattr(fastnb, name)().fit(X, y)
    theirs = getattr(sklearn_nb, name)().fit(X, y)
    base, values = contributions(ours, X)
    flp = theirs.feature_log_prob_
    if name == "BernoulliNB":
        neg = np.log(1 - np.exp(flp))
        expected_base = theirs.class_log_prior_ + neg.sum(axis=1)
        expected = (X > 0)[:, None, :] * (flp - neg)[None]
    else:
        expected_base = theirs.class_log_prior_ if name == "MultinomialNB" else 0.0
        expected = X.astype(np.float64)[:, None, :] * flp[None]
    assert_allclose(base, np.broadcast_to(expected_base, base.shape), rtol=1e-12)
    assert_allclose(values, expected, rtol=1e-12, atol=1e-300)


def test_gaussian_equals_sklearn_hand_computation(rng):
    X = rng.normal(size=(60, 4)) + [0, 3, -1, 10]
    y = rng.integers(0, 3, 60)
    ours = fastnb.GaussianNB().fit(X, y)
    theirs = sklearn_nb.GaussianNB().fit(X, y)
    base, values = contributions(ours, X)
    expected = -0.5 * np.log(2 * np.pi * theirs.var_)[None] - \
        (X[:, None, :] - theirs.theta_[None]) ** 2 / (2 * theirs.var_[None])
    assert_allclose(base, np.broadcast_to(np.log(theirs.class_prior_), base.shape),
                    rtol=1e-12)
    assert_allclose(values, expected, rtol=1e-11)


def test_categorical_equals_sklearn_hand_computation(rng):
    X = rng.integers(0, 4, size=(60, 3))
    y = rng.integers(0, 2, 60)
    ours = fastnb.CategoricalNB().fit(X, y)
    theirs = sklearn_nb.CategoricalNB().fit(X, y)
    base, values = contributions(ours, X)
    expected = np.stack([theirs.feature_log_prob_[j][:, X[:, j]].T
                         for j in range(3)], axis=2)
    assert_allclose(base, np.broadcast_to(theirs.class_log_prior_, base.shape),
                    rtol=1e-12)
    assert_allclose(values, expected, rtol=1e-12)


# -- top contributions ------------------------------------------------------------------
def brute_force_top(values_a_minus_b, n):
    features = np.full((values_a_minus_b.shape[0], n), -1)
    out = np.zeros((values_a_minus_b.shape[0], n))
    for i, row in enumerate(values_a_minus_b):
        candidates = [(-abs(v), j) for j, v in enumerate(row) if v != 0 and v == v]
        for rank, (_, j) in enumerate(sorted(candidates)[:n]):
            features[i, rank] = j
            out[i, rank] = row[j]
    return features, out


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1),
       kind=st.sampled_from(COUNT_MODELS + [fastnb.GaussianNB, fastnb.CategoricalNB]),
       sparse=st.booleans(), table=st.booleans(), nan=st.booleans(),
       n=st.integers(1, 8), pair=st.booleans())
def test_top_contributions_equal_brute_force(seed, kind, sparse, table, nan, n, pair,
                                            table_fits):
    rng = np.random.default_rng(seed)
    X, y = count_data(rng, 30, 8, 3, nan=nan and kind is not fastnb.CategoricalNB)
    if kind is fastnb.CategoricalNB:
        X = X.astype(np.int64)
    sparse = sparse and kind in COUNT_MODELS
    Xf = sp.csr_matrix(X) if sparse else X
    with table_fits(table and sparse):
        model = kind().fit(Xf, y)
    base, values = contributions(model, Xf)
    dense_values = (np.stack([v.toarray() for v in values], axis=1) if sparse
                    else values)
    jll = model.predict_joint_log_proba(Xf)
    top = top_contributions(model, Xf, n=n, classes=(2, 0) if pair else None)
    rows = np.arange(X.shape[0])
    if pair:
        first, second = np.full(X.shape[0], 2), np.zeros(X.shape[0], dtype=int)
    else:
        first = jll.argmax(axis=1)
        masked = jll.copy()
        masked[rows, first] = -np.inf
        second = masked.argmax(axis=1)
    assert_array_equal(top.explained, model.classes_[first])
    assert_array_equal(top.against, model.classes_[second])
    assert_array_equal(top.explained, model.predict(Xf)) if not pair else None
    diff = dense_values[rows, first] - dense_values[rows, second]
    features, expected = brute_force_top(diff, n)
    assert_array_equal(top.features, features)
    assert_allclose(top.values, expected, rtol=1e-12, atol=0)
    assert_allclose(top.log_odds, jll[rows, first] - jll[rows, second], rtol=0, atol=0)
    assert_allclose(top.base, base[rows, first] - base[rows, second], rtol=0, atol=0)
    # every contribution listed: base + values = log-odds
    full = top_contributions(model, Xf, n=8, classes=(2, 0) if pair else None)
    assert_allclose(full.base + full.values.sum(axis=1), full.log_odds,
                    rtol=1e-12, atol=1e-12)


def test_top_contributions_names_and_frame(rng):
    X, y = count_data(rng, 20, 3, 2)
    model = fastnb.MultinomialNB().fit(X, y)
    top = top_contributions(model, X, n=3, feature_names=["a", "b", "c"])
    assert isinstance(top, TopContributions) and len(top) == 20
    expected_names = np.where(top.features >= 0,
                              np.array(["a", "b", "c"], dtype=object)[top.features], "")
    assert_array_equal(top.names, expected_names)
    default = top_contributions(model, X, n=3)
    assert set(default.names.ravel()) <= {"x0", "x1", "x2", ""}
    frame = top.to_frame()
    assert len(frame) == int((top.features >= 0).sum())
    assert_allclose(frame.groupby("row")["value"].sum().to_numpy(),
                    top.values.sum(axis=1)[np.unique(frame["row"])])


def test_feature_names_from_dataframe_and_vectorizer(rng):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(rng.normal(size=(30, 3)), columns=["p", "q", "r"])
    y = rng.integers(0, 2, 30)
    model = fastnb.GaussianNB().fit(frame, y)
    assert set(top_contributions(model, frame, n=3).names.ravel()) <= {"p", "q", "r"}
    from fastnb.text import CountVectorizer
    docs = ["free offer now", "meeting at noon", "free free offer", "noon meeting"]
    vectorizer = CountVectorizer()
    counts = vectorizer.fit_transform(docs)
    text_model = fastnb.MultinomialNB().fit(counts, [1, 0, 1, 0])
    best = informative_features(text_model, n=2, feature_names=vectorizer)
    spam = best.names[list(best.classes).index(1)]
    assert set(spam) <= {"free", "offer", "now"}


# -- informative features -----------------------------------------------------------------
def brute_force_counts_score(weights, prior, log_mixture):
    k = weights.shape[0]
    scores = np.empty_like(weights)
    for c in range(k):
        others = [o for o in range(k) if o != c]
        p = prior[others] / prior[others].sum()
        if log_mixture:
            scores[c] = weights[c] - np.log(p @ np.exp(weights[others]))
        else:
            scores[c] = weights[c] - p @ weights[others]
    return scores


@pytest.mark.parametrize("kind", COUNT_MODELS)
@pytest.mark.parametrize("table", [False, True])
def test_informative_counts_equal_brute_force(kind, table, rng, table_fits):
    X, y = count_data(rng, 80, 12, 4)
    with table_fits(table):
        model = kind().fit(sp.csr_matrix(X), y)
    if table:   # (FASTNB_TEST_SPARSE_TABLE=1 puts every CSR fit there)
        assert model.__dict__.get("_table") is not None
    result = informative_features(model, n=5)
    dense = kind().fit(X, y)
    scores = brute_force_counts_score(dense._weights, np.exp(dense.class_log_prior_),
                                      kind is not fastnb.ComplementNB)
    counted = dense.feature_count_ > 0   # a class's features: those it has counts of
    for c in range(4):
        order = [j for j in np.lexsort((np.arange(12), -scores[c]))
                 if scores[c, j] > 0 and counted[c, j]][:5]
        assert_array_equal(result.features[c, :len(order)], order)
        assert_allclose(result.scores[c, :len(order)], scores[c, order], rtol=1e-9)
        assert np.all(result.features[c, len(order):] == -1)


@pytest.mark.parametrize("kind", [fastnb.MultinomialNB, fastnb.BernoulliNB])
@pytest.mark.parametrize("n", [3, 20])
def test_informative_table_with_full_lists_equals_brute_force(kind, n, rng, table_fits):
    """The table kernel filters an entry by a product against exp(the worst
    kept score), and a feature by that filter solved for the feature's total:
    with 3,000 features of real-valued counts the lists fill early and most
    features are skipped, many close to the bar: the same lists as scoring every
    (class, feature) by hand."""
    X = sp.random(600, 3000, density=0.01, random_state=int(rng.integers(2**31)),
                  format="csr", data_rvs=lambda m: rng.gamma(0.7, 2.0, m))
    y = rng.integers(0, 6, 600)
    with table_fits(True):
        model = kind().fit(X, y)
    assert model.__dict__.get("_table") is not None
    result = informative_features(model, n=n)
    dense = kind().fit(X.toarray(), y)
    scores = brute_force_counts_score(dense._weights, np.exp(dense.class_log_prior_), True)
    counted = dense.feature_count_ > 0
    for c in range(6):
        order = [j for j in np.lexsort((np.arange(3000), -scores[c]))
                 if scores[c, j] > 0 and counted[c, j]][:n]
        assert len(order) == n
        # the best n scores, each the listed feature's own (the order of features
        # whose scores tie in exact arithmetic follows rounding: BernoulliNB's
        # 0/1 data has many)
        assert_allclose(result.scores[c], scores[c, order], rtol=1e-9)
        assert_allclose(scores[c, result.features[c]], result.scores[c], rtol=1e-9)
        assert counted[c, result.features[c]].all()


def test_informative_gaussian_categorical_columnwise(rng):
    X = rng.normal(size=(90, 4))
    y = rng.integers(0, 3, 90)
    X[y == 1, 2] += 3.0
    model = fastnb.GaussianNB().fit(X, y)
    result = informative_features(model, n=2)
    assert isinstance(result, InformativeFeatures)
    assert result.features[1, 0] == 2 and result.scores[1, 0] > 1.0
    codes = rng.integers(0, 3, size=(90, 2))
    codes[y == 2, 0] = 2
    categorical = fastnb.CategoricalNB().fit(codes, y)
    best = informative_features(categorical, n=1, feature_names=["shape", "size"])
    assert best.names[2, 0] == "shape=2"
    assert best.categories[2, 0] == 2
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": X[:, 2], "b": codes[:, 0].astype(str)})
    mixed = fastnb.ColumnwiseNB().fit(frame, y)
    both = informative_features(mixed, n=2)
    assert set(both.names[1]) & {"a"} and set(both.names[2]) & {"b=2"}


def test_informative_2_threads_same_bits(rng, parallel_kernels):
    X, y = count_data(rng, 200, 300, 5)
    with parallel_kernels():
        one = informative_features(fastnb.MultinomialNB(n_threads=1).fit(X, y), n=7)
        two = informative_features(fastnb.MultinomialNB(n_threads=2).fit(X, y), n=7)
    assert_array_equal(one.features, two.features)
    assert_array_equal(one.scores, two.scores)


# -- plots and bad input ------------------------------------------------------------------
def test_plots(rng):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    X, y = count_data(rng, 30, 5, 3)
    model = fastnb.MultinomialNB().fit(X, y)
    axes = plot_informative_features(informative_features(model, n=3))
    assert len(axes) == 3
    top = top_contributions(model, X, n=3)
    ax = plot_contributions(top, row=2)
    assert len(ax.patches) >= 2
    with pytest.raises(ValueError, match="row"):
        plot_contributions(top, row=30)


def test_many_classes_wrap_into_a_grid(rng):
    """58 classes were one row of Axes, a 185-inch-wide figure (issue 51)."""
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    X, y = count_data(rng, 600, 40, 58)
    result = informative_features(fastnb.MultinomialNB().fit(X, y), n=5)
    axes = plot_informative_features(result)
    figure = axes[0].figure
    assert len(axes) == 58
    width, height = figure.get_size_inches()
    assert width <= 16 and height <= 15 * 3
    visible = [a for a in figure.axes if a.get_visible()]
    assert len(visible) == 58 and len(figure.axes) == 60  # 4 x 15, two hidden
    assert [a.get_title() for a in axes] == [str(c) for c in result.classes]
    assert axes[0].get_xlabel() == "score: log-probability ratio"
    plt.close(figure)
    axes = plot_informative_features(result, ncols=10, classes=result.classes[:25])
    assert len(axes[0].figure.axes) == 30 and axes[0].figure.get_size_inches()[0] <= 40
    plt.close(axes[0].figure)
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="ncols"):
            plot_informative_features(result, ncols=bad)


def test_columnwise_plot_and_result_say_the_units_differ():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from fastnb.datasets import load_penguins
    X, y = load_penguins(return_X_y=True, as_frame=True)
    model = fastnb.ColumnwiseNB().fit(X, y)
    result = informative_features(model, n=6)
    shown = result.features >= 0
    gaussian = np.isin(result.features, [1, 2, 3, 4]) & shown  # the measurements
    assert set(result.score_kinds[gaussian]) == {"gaussian"}
    assert set(result.score_kinds[shown & ~gaussian]) == {"categorical"}
    assert set(result.score_kinds[~shown]) <= {""}
    assert "not of one unit" in result.score
    assert set(result.to_frame()["score_kind"]) == {"gaussian", "categorical"}
    axes = plot_informative_features(result)
    figure = axes[0].figure
    assert "not of one unit" in figure.get_suptitle()
    assert all(a.get_xlabel() == "score (mixed units)" for a in axes)
    legend = [t.get_text() for t in figure.legends[0].get_texts()]
    assert legend == ["standardised mean difference", "log-probability ratio"]
    plt.close(figure)
    # a single model's result: one kind
    single = informative_features(fastnb.GaussianNB().fit(X.iloc[:, 1:5].fillna(0), y))
    assert set(single.score_kinds[single.features >= 0]) == {"gaussian"}


def test_waterfall_has_values_margins_and_a_legend(rng):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    X, y = count_data(rng, 60, 8, 3)
    model = fastnb.MultinomialNB().fit(X, y)
    top = top_contributions(model, X, n=4)
    ax = plot_contributions(top, row=1)
    shown = top.features[1] >= 0
    texts = [t.get_text() for t in ax.texts]
    assert texts[0] == f"{top.base[1]:.3g}" and texts[-1] == f"{top.log_odds[1]:.3g}"
    assert texts[1:1 + shown.sum()] == [f"{v:+.3g}" for v in top.values[1][shown]]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["base (priors)", f"for {top.explained[1]}",
                      f"for {top.against[1]}", "log-odds (the sum)"]
    left, right = ax.get_xlim()
    ends = [p.get_x() + w for p in ax.patches for w in (0, p.get_width())]
    assert left < min(ends) and right > max(ends)  # no bar touches the frame
    plt.close(ax.figure)


def test_bad_input(rng):
    X, y = count_data(rng, 20, 3, 2)
    with pytest.raises(Exception, match="not fitted"):
        contributions(fastnb.MultinomialNB(), X)
    model = fastnb.MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="not one of the model's classes_"):
        top_contributions(model, X, classes=(0, 7))
    with pytest.raises(ValueError, match="pair"):
        top_contributions(model, X, classes=(0,))
    with pytest.raises(ValueError, match="n must be at least 1"):
        top_contributions(model, X, n=0)
    assert top_contributions(model, X, n=4).features.shape == (20, 3)
    with pytest.raises(TypeError, match="n must be an int"):
        informative_features(model, n=2.5)
    with pytest.raises(ValueError, match="gives 2 names, but the model has 3"):
        top_contributions(model, X, feature_names=["a", "b"])
    with pytest.raises(ValueError, match="3 features"):
        contributions(model, X[:, :2])
    with pytest.raises(TypeError, match="fastnb.inspection takes fastnb models"):
        contributions(sklearn_nb.MultinomialNB().fit(X, y), X)
    with pytest.raises(ValueError, match="by_estimator"):
        contributions(model, X, by_estimator=True)
    one_class = fastnb.MultinomialNB().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="two classes"):
        top_contributions(one_class, X)
    with pytest.raises(ValueError, match="infinity"):
        contributions(fastnb.GaussianNB().fit(X, y), np.full((1, 3), np.inf))


@pytest.mark.parametrize("kind,sparse,table", [
    (kind, sparse, table) for kind in (fastnb.MultinomialNB, fastnb.BernoulliNB)
    for sparse, table in ((False, False), (True, False), (True, True))
] + [(fastnb.GaussianNB, False, False)])
def test_blocks_of_rows_give_the_same_bits(kind, sparse, table, rng, monkeypatch,
                                           table_fits):
    """top_contributions scores and ranks a block of rows at a time: any block
    size gives the same result."""
    from fastnb.inspection import _terms
    X, y = count_data(rng, 50, 6, 3, nan=True)
    Xf = sp.csr_matrix(X) if sparse else X
    with table_fits(table):
        model = kind().fit(Xf, y)
    whole = top_contributions(model, Xf, n=3)
    monkeypatch.setattr(_terms, "_SCORE_BLOCK_CELLS", 7)
    monkeypatch.setattr(_terms, "_TOP_BLOCK_CELLS", 40)
    blocks = top_contributions(model, Xf, n=3)
    for name in ("explained", "against", "log_odds", "base", "features", "values"):
        assert_array_equal(getattr(blocks, name), getattr(whole, name))


@pytest.mark.parametrize("kind", [fastnb.MultinomialNB, fastnb.ComplementNB,
                                  fastnb.BernoulliNB])
@pytest.mark.parametrize("n,pair", [(3, False), (10, False), (40, False), (40, True)])
def test_top_over_the_slots_equals_brute_force(kind, n, pair, rng, table_fits):
    """A large CSR batch of a table model: one kernel scores each row over the
    feature slots and ranks its terms a chunk of 64 at a time (rows of 40-130
    non-zeros cross the chunk; n > 32 keeps a heap); the same lists as the terms
    of contributions() ranked by hand, the same bits for 1 and 2 threads."""
    X = sp.random(120, 400, density=0.2, random_state=int(rng.integers(2**31)),
                  format="csr", data_rvs=lambda m: rng.integers(1, 4, m).astype(float))
    y = rng.integers(0, 7, 120)
    y[:7] = np.arange(7)
    with table_fits(True):
        model = kind().fit(X, y)
    assert model.__dict__.get("_table") is not None
    classes = (5, 2) if pair else None
    base, values = contributions(model, X)
    dense_values = np.stack([v.toarray() for v in values], axis=1)
    jll = model.predict_joint_log_proba(X)
    rows = np.arange(X.shape[0])
    if pair:
        first, second = np.full(X.shape[0], 5), np.full(X.shape[0], 2)
    else:
        first = jll.argmax(axis=1)
        masked = jll.copy()
        masked[rows, first] = -np.inf
        second = masked.argmax(axis=1)
    results = []
    for n_threads in (1, 2):
        model.set_params(n_threads=n_threads)
        top = top_contributions(model, X, n=n, classes=classes)
        assert_array_equal(top.explained, model.classes_[first])
        assert_array_equal(top.against, model.classes_[second])
        assert_array_equal(top.log_odds, jll[rows, first] - jll[rows, second])
        features, expected = brute_force_top(
            dense_values[rows, first] - dense_values[rows, second], n)
        assert_array_equal(top.features, features)
        assert_allclose(top.values, expected, rtol=1e-12, atol=0)
        results.append(top)
    for name in ("explained", "against", "log_odds", "features", "values"):
        assert_array_equal(getattr(results[0], name), getattr(results[1], name))


@pytest.mark.parametrize("kind", [fastnb.MultinomialNB, fastnb.ComplementNB])
@pytest.mark.parametrize("n", [1, 2, 10, 32])
@pytest.mark.parametrize("spread", ["ties", "decades"])
def test_top_over_the_slots_ranks_ties_and_wide_spreads(kind, n, spread, rng, table_fits):
    """The slot kernel ranks a chunk's terms by counting, among the candidates
    of the quarter octaves of |term| below the largest that hold the best n: the
    same lists as ranking by hand where many terms tie exactly (counts of 1 and
    2: every feature a pair of classes has no count of gives the same term),
    where the terms span 30 decades (far past the 32 quarter octaves it looks
    down before taking every term), with rows of 20-110 non-zeros (a chunk is
    64) and n at its sorted-list limit (32)."""
    values = {"ties": [1.0, 2.0], "decades": [1e-15, 1e-9, 1e-3, 1.0, 1e3, 1e9, 1e15]}
    pool = np.array(values[spread])
    X = sp.random(150, 500, density=0.13, random_state=int(rng.integers(2**31)),
                  format="csr", data_rvs=lambda m: rng.choice(pool, m))
    X = X[np.argsort(rng.random(150))]
    y = rng.integers(0, 6, 150)
    y[:6] = np.arange(6)
    with table_fits(True):
        model = kind().fit(X, y)
    assert model.__dict__.get("_table") is not None
    _, values = contributions(model, X)
    dense_values = np.stack([v.toarray() for v in values], axis=1)
    top = top_contributions(model, X, n=n)
    rows = np.arange(X.shape[0])
    first = np.searchsorted(model.classes_, top.explained)
    second = np.searchsorted(model.classes_, top.against)
    features, expected = brute_force_top(
        dense_values[rows, first] - dense_values[rows, second], n)
    lengths = np.diff(X.indptr)
    assert lengths.min() < 64 < lengths.max()
    assert_array_equal(top.features, features)
    assert_allclose(top.values, expected, rtol=1e-12, atol=0)


def test_top_over_the_slots_checks_what_the_kernel_reports(rng, table_fits,
                                                            monkeypatch):
    """top_contributions on the slots checks X's values and indices only when
    the kernel reports a suspect or malformed row: infinity and an index out of
    range are still errors, and a batch with NaN takes the general path (the
    same lists as without the deferral); a clean batch makes no such pass."""
    from fastnb.inspection import _terms
    X = sp.random(120, 400, density=0.2, random_state=int(rng.integers(2**31)),
                  format="csr", data_rvs=lambda m: rng.integers(1, 4, m).astype(float))
    y = rng.integers(0, 5, 120)
    y[:5] = np.arange(5)
    with table_fits(True):
        model = fastnb.BernoulliNB().fit(X, y)
    assert model.__dict__.get("_table") is not None
    with_nan = X.copy()
    with_nan.data[::7] = np.nan
    general = _terms.DiscreteTerms(model, with_nan).scored_top(None, 5)
    deferred = top_contributions(model, with_nan, n=5)
    assert_array_equal(deferred.features, general[3])
    assert_array_equal(deferred.values, general[4])
    infinite = X.copy()
    infinite.data[50] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        top_contributions(model, infinite, n=5)
    bad = X.copy()
    bad.indices[-1] = 400
    with pytest.raises(ValueError, match="malformed"):
        top_contributions(model, bad, n=5)
    passes = []
    monkeypatch.setattr(_terms, "_raise_if_infinite",
                        lambda *args: passes.append(args) or True)
    top_contributions(model, X, n=5)
    assert passes == []


@pytest.mark.parametrize("table", [False, True])
def test_a_class_against_itself_has_nothing_to_explain(table, rng, table_fits):
    X, y = count_data(rng, 30, 5, 3)
    with table_fits(table):
        model = fastnb.MultinomialNB().fit(sp.csr_matrix(X), y)
    top = top_contributions(model, sp.csr_matrix(X), n=3, classes=(1, 1))
    assert np.all(top.features == -1) and np.all(top.values == 0)
    assert np.all(top.log_odds == 0) and np.all(top.base == 0)


@pytest.mark.parametrize("table", [False, True])
def test_a_malformed_csr_matrix_is_refused(table, rng, table_fits):
    """The kernels index weights and slots by X's columns: out of range is an
    error, never a read past the model."""
    X, y = count_data(rng, 20, 5, 2)
    with table_fits(table):
        model = fastnb.MultinomialNB().fit(sp.csr_matrix(X), y)
    bad = sp.csr_matrix(X)
    bad.indices[0] = 10**6          # scipy does not check again
    for explain in (lambda: contributions(model, bad),
                    lambda: top_contributions(model, bad, n=2)):
        with pytest.raises(ValueError, match="malformed"):
            explain()
    bad = sp.csr_matrix(X)
    bad.indptr[-1] += 5
    with pytest.raises(ValueError):
        contributions(model, bad)
