"""The sparse count table's kernels: a build is an add into an empty table,
compact records, balanced runs, csr_check and the weights of small counts."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import naive_bayes as sk

import fastnb
from fastnb import _count_table


def _assert_same_entries(built, added):
    """The two tables hold the same entries, in the same order, with the same
    bits of every count."""
    assert_array_equal(built.feat_len, added.feat_len)
    features_a, classes_a, positions_a = added.entries()
    features_b, classes_b, positions_b = built.entries()
    assert_array_equal(features_b, features_a)
    assert_array_equal(classes_b, classes_a)
    assert_array_equal(built.ent_count[positions_b].view(np.int64),
                       added.ent_count[positions_a].view(np.int64))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       n_features=st.sampled_from([1, 3, 17, 1024, 1025, 70_000]),
       n_classes=st.sampled_from([1, 2, 5, 35, 300, 2000]), weighted=st.booleans(),
       binarize=st.booleans(), n_threads=st.integers(1, 3),
       values=st.sampled_from(["thirds", "whole", "large", "zeros"]))
def test_build_is_add_into_an_empty_table(seed, n_features, n_classes, weighted, binarize,
                                          n_threads, values):
    """A large first batch is built by partitions of features (``table_partition``,
    ``table_reduce``, ``table_fill``): the entries, their order, the bits of every
    count and class total, and the block layout are those of adding the batch row
    by row, for any shape, class count and thread count, in compact records
    (unweighted whole counts below 2**15, or thresholded ones, and 16-bit keys)
    or not, with explicit zeros (stored, but no records) or not."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    density = 0.002 if n_features > 5000 else float(rng.uniform(0.0, 0.3))

    def draw(size):
        if values == "thirds":
            return rng.integers(1, 8, size) / 3.0
        if values == "whole":
            return rng.integers(1, 40, size).astype(np.float64)
        if values == "zeros":
            # explicit zeros among whole counts: stored, but no records
            return rng.integers(0, 3, size).astype(np.float64)
        # whole, about the compact records' largest count (2**15 - 1) and above
        return rng.choice([1.0, 2.0, 32766.0, 32767.0, 32768.0, 1e6], size,
                          p=[0.4, 0.3, 0.1, 0.1, 0.05, 0.05])
    X = sp.random(n, n_features, density=density, format="csr", random_state=rng,
                  data_rvs=draw)
    codes = rng.integers(0, n_classes, n).astype(np.intp)
    weights = rng.random(n) if weighted else None
    added = _count_table.SparseCountTable(n_classes, n_features)
    added.add(X, codes, weights, binarize, 0.5)
    partition = _count_table.BatchPartition(X, codes, weights, n_classes, binarize, 0.5,
                                            n_threads, False)
    counts_fit = binarize or bool(np.all((X.data == np.floor(X.data))
                                         & (X.data < 2**15)))
    assert partition.compact == (weights is None and counts_fit
                                 and n_classes << partition.part_shift <= 2**16)
    built = _count_table.SparseCountTable.build(X, codes, weights, n_classes, binarize, 0.5,
                                                n_threads, partition)
    _assert_same_entries(built, added)
    assert_array_equal(built.feat_start[built.feat_len == 0], -1)
    assert_array_equal(built.class_total.view(np.int64), added.class_total.view(np.int64))
    # blocks in feature order, each with room for the next power of two
    rooms = [1 << (int(length) - 1).bit_length() for length in built.feat_len if length]
    assert built.used == sum(rooms)
    assert_array_equal(built.feat_start[built.feat_len > 0], np.cumsum(rooms) - rooms)


@pytest.mark.parametrize("largest, weighted, binarize, n_classes, compact", [
    (32767.0, False, False, 35, True),     # the largest count a compact record holds
    (32768.0, False, False, 35, False),
    (2.5, False, False, 35, False),        # not whole
    (3.0, True, False, 35, False),         # weighted
    (1e9, False, True, 35, True),          # thresholded: 0 or 1
    (3.0, False, False, 2000, False),      # (class, offset) keys past 16 bits
])
def test_compact_records_and_their_bounds(largest, weighted, binarize, n_classes, compact):
    # A batch is partitioned in compact records (one int32 each, the count above
    # its 16-bit key) only where every count fits: the same table either way
    rng = np.random.default_rng(5)
    n, d = 400, 2**20
    X = sp.random(n, d, density=20 / d, format="csr", random_state=rng,
                  data_rvs=lambda size: rng.integers(1, 5, size).astype(np.float64))
    X.data[::97] = largest
    codes = rng.integers(0, n_classes, n).astype(np.intp)
    weights = rng.random(n) if weighted else None
    for n_threads in (1, 2):
        partition = _count_table.BatchPartition(X, codes, weights, n_classes, binarize,
                                                0.5, n_threads, False)
        assert partition.compact == compact
        built = _count_table.SparseCountTable.build(X, codes, weights, n_classes,
                                                    binarize, 0.5, n_threads, partition)
        added = _count_table.SparseCountTable(n_classes, d)
        added.add(X, codes, weights, binarize, 0.5)
        _assert_same_entries(built, added)


def test_compact_reduction_with_a_full_map_and_large_sums():
    # A compact partition's reduction keeps each (feature, class) pair's entry
    # number and count in one map cell: here one partition of 4,096 features x 16
    # classes has all 65,536 pairs (entry numbers up to 2**16 - 1), and one pair
    # sums 70,000 records of 32,767 (2.3e9, past 2**31): the same table as adding
    # row by row
    n_classes, d = 16, 4096
    pairs = np.arange(n_classes * d)
    rows_class = np.concatenate([pairs % n_classes, np.zeros(70_000, dtype=np.int64)])
    rows_feature = np.concatenate([pairs // n_classes, np.full(70_000, 7)])
    values = np.concatenate([np.ones(pairs.shape[0]), np.full(70_000, 32767.0)])
    n = rows_class.shape[0]
    X = sp.csr_matrix((values, (np.arange(n), rows_feature)), shape=(n, d))
    codes = rows_class.astype(np.intp)
    partition = _count_table.BatchPartition(X, codes, None, n_classes, False, 0.0, 1,
                                            False)
    assert partition.compact and partition.part_start.shape[0] == 2
    built = _count_table.SparseCountTable.build(X, codes, None, n_classes, False, 0.0, 1,
                                                partition)
    added = _count_table.SparseCountTable(n_classes, d)
    added.add(X, codes, None, False, 0.0)
    _assert_same_entries(built, added)
    assert built.used == n_classes * d
    assert built.to_dense()[0, 7] == 1.0 + 70_000 * 32767.0


@pytest.mark.parametrize("n_threads", [1, 2])
def test_compact_entries_and_their_bound(n_threads, monkeypatch):
    # The reduction writes a partition's entries compact (the count above the key,
    # as a compact record) where its records were compact and every summed count
    # is still below 2**15: (feature, class) pairs summing to 2**15 - 1, 2**15 and
    # 50,000, each in a partition of its own (k = 3: 16,384 features a partition)
    rng = np.random.default_rng(41)
    n, d, k = 600, 2**16, 3
    X = sp.random(n, d, density=8 / d, format="csr", random_state=rng,
                  data_rvs=lambda size: rng.integers(1, 4, size).astype(np.float64))
    X = sp.lil_matrix(X)
    codes = np.arange(n) % k
    for feature, counts in [(5, (32766.0, 1.0)), (20_000, (16384.0, 16384.0)),
                            (40_000, (30_000.0, 20_000.0))]:
        X[:, feature] = 0.0
        X[0, feature], X[3, feature] = counts  # rows 0 and 3: both class 0
    X = sp.csr_matrix(X)
    seen = []
    reduce = _count_table._build_kernels.table_reduce

    def recording_reduce(*args):
        reduce(*args)
        seen.append(args[6].copy())  # part_compact, as the reduction wrote it

    monkeypatch.setattr(_count_table._build_kernels, "table_reduce", recording_reduce)
    partition = _count_table.BatchPartition(X, codes, None, k, False, 0.0, n_threads,
                                            False)
    assert partition.compact and partition.part_shift == 14
    built = _count_table.SparseCountTable.build(X, codes, None, k, False, 0.0, n_threads,
                                                partition)
    assert seen[0].tolist() == [1, 0, 0, 1]
    added = _count_table.SparseCountTable(k, d)
    added.add(X, codes, None, False, 0.0)
    _assert_same_entries(built, added)
    assert_array_equal(built.feat_start[built.feat_len == 0], -1)
    positions = {int(f): int(p) for f, c, p in zip(*built.entries()) if c == 0}
    assert built.ent_count[[positions[5], positions[20_000], positions[40_000]]].tolist() \
        == [32767.0, 32768.0, 50_000.0]


@pytest.mark.parametrize("n_threads", [1, 2, 3, 4])
@pytest.mark.parametrize("divisor", [2.0, 1.0])
def test_build_with_the_frequent_features_together(n_threads, divisor):
    # A vocabulary numbered by frequency (T1's Zipf ranks) puts most records in
    # the first partitions: the reduce cuts the partitions into runs of equal
    # work, not equal count. The table is still the one of adding row by row,
    # from compact records (whole counts) or not (halves).
    rng = np.random.default_rng(17)
    n, d, k = 3_000, 70_000, 7
    ranks = np.minimum((rng.pareto(0.6, n * 12) * 3).astype(np.int64), d - 1)
    rows = np.repeat(np.arange(n), 12)
    X = sp.csr_matrix((rng.integers(1, 4, n * 12) / divisor, (rows, ranks)), shape=(n, d))
    codes = rng.integers(0, k, n).astype(np.intp)
    partition = _count_table.BatchPartition(X, codes, None, k, False, 0.0, n_threads,
                                            True)
    assert partition.compact == (divisor == 1.0)
    sizes = np.diff(partition.part_start)
    assert sizes[0] > sizes[1:].sum() / 3  # skewed, as meant
    added = _count_table.SparseCountTable(k, d)
    added.add(X, codes, None, False, 0.0)
    built = _count_table.SparseCountTable.build(X, codes, None, k, False, 0.0, n_threads,
                                                partition)
    _assert_same_entries(built, added)


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB"])
@pytest.mark.parametrize("per_feature_alpha", [False, True])
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("scale", [4.0, 1.0])
def test_built_table_weights_are_the_refresh(name, per_feature_alpha, n_threads, scale):
    # A fit that builds its table computes the weights (and ComplementNB's
    # per-feature terms) as the entries are placed: the refresh's, bit for bit,
    # from records of values and keys (quarters) or compact ones (whole counts)
    rng = np.random.default_rng(23)
    n, d, k = 2_000, 2**16, 20
    ranks = np.minimum((rng.pareto(0.8, n * 12) * 4).astype(np.int64), d - 1)
    X = sp.csr_matrix((rng.integers(1, 90, n * 12) / scale,
                       (np.repeat(np.arange(n), 12), ranks)), shape=(n, d))
    y = rng.integers(0, k, n)
    alpha = rng.uniform(0.1, 2.0, d) if per_feature_alpha else 0.7
    assert _count_table.builds_table(k, d, X.nnz)
    model = getattr(fastnb, name)(alpha=alpha, n_threads=n_threads).fit(X, y)
    table = model._table
    assert table is not None
    features = table.all_features()
    _, _, positions = table.entries()
    weights = table.ent_weight.copy()
    terms = {key: model.__dict__[key].copy()
             for key in ("_feature_all", "_feat_base") if key in model.__dict__}
    table.ent_weight[:] = np.nan
    model._refresh_table(table, features, np.atleast_1d(model._table_alpha))
    assert_array_equal(weights[positions].view(np.int64),
                       table.ent_weight[positions].view(np.int64))
    for key, value in terms.items():
        assert_array_equal(value.view(np.int64), model.__dict__[key].view(np.int64))
    # every feature's terms (those without entries too, which the build's
    # reduction and fill write) are those of a table made by adding the rows
    streamed = getattr(fastnb, name)(alpha=alpha, n_threads=n_threads)
    streamed.partial_fit(X[:1], y[:1], classes=np.arange(k))
    streamed.partial_fit(X[1:], y[1:])
    assert not _count_table.builds_table(k, d, X[:1].nnz)
    streamed._flush_table()
    for key, value in terms.items():
        assert_array_equal(value.view(np.int64), streamed.__dict__[key].view(np.int64))
    expected = getattr(sk, name)(alpha=alpha).fit(X, y)
    assert_allclose(model.predict_joint_log_proba(X[:50]),
                    expected.predict_joint_log_proba(X[:50]), rtol=1e-10)


def _run_work(part_start, width, cells):
    sizes = np.diff(part_start)
    return sizes + np.minimum(sizes, cells) + width


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(0, 10_000), min_size=1, max_size=40),
       n_runs=st.integers(1, 6), width=st.sampled_from([0, 16, 1024]),
       cells=st.sampled_from([0, 50, 35 * 1024]))
def test_balanced_runs_cut_the_work_evenly(sizes, n_runs, width, cells):
    """The runs cover the partitions in order, and each run's work is at most its
    share plus one partition's (a partition is never split)."""
    part_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    runs = _count_table._build_kernels.balanced_runs(part_start, width, cells, n_runs)
    assert runs.shape == (n_runs + 1,)
    assert runs[0] == 0 and runs[-1] == len(sizes)
    assert np.all(np.diff(runs) >= 0)
    work = _run_work(part_start, width, cells)
    total, largest = int(work.sum()), int(work.max())
    for t in range(n_runs):
        assert work[runs[t]:runs[t + 1]].sum() <= total / n_runs + largest


def test_balanced_runs_of_one_large_partition():
    # T1's shape: the first partition holds 44% of the records and few entries;
    # it gets a run with some partitions after it, the rest the other run
    sizes = np.array([1_480_000] + [2_000] * 1023)
    part_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    runs = _count_table._build_kernels.balanced_runs(part_start, 1024, 35 * 1024, 2)
    work = _run_work(part_start, 1024, 35 * 1024)
    assert 1 < runs[1] < 1024
    halves = work[:runs[1]].sum(), work[runs[1]:].sum()
    assert abs(halves[0] - halves[1]) <= work[runs[1] - 1]


def _check_values(rng, size, kind):
    """Values of the validation pass's tests: thirds (few rows whole), whole counts
    (most rows take the pass's whole-number sum), or whole values with some at and
    beyond that sum's bound (2**31, up to where a double's sums round), and
    negative zeros."""
    if kind == "thirds":
        return rng.integers(-1, 8, size) / 3.0
    values = rng.integers(0, 8, size).astype(np.float64)
    if kind == "large":
        pick = rng.random(size)
        values[pick < 0.1] = 2.0**31 - 1
        values[(pick >= 0.1) & (pick < 0.15)] = 2.0**31
        values[(pick >= 0.15) & (pick < 0.2)] = 2.0**40 + 1
        # where the order of the additions shows: 2**53 + 1 rounds back to 2**53
        values[(pick >= 0.2) & (pick < 0.25)] = 2.0**53
        values[(pick >= 0.25) & (pick < 0.35)] = -0.0
    return values


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_rows=st.integers(0, 40), weighted=st.booleans(),
       binarize=st.booleans(), float32=st.booleans(),
       kind=st.sampled_from(["thirds", "whole", "large"]), with_bad=st.booleans())
def test_csr_check_is_the_same_for_any_thread_count(seed, n_rows, weighted, binarize,
                                                    float32, kind, with_bad):
    """The validation pass runs over blocks of rows in parallel: its flags, each
    row's total and the class totals are the same for any block count, and the
    row totals are those the table gives a batch that skipped the check. Each
    row's total has the bits of its values added in order, whichever way the
    pass summed it (whole values are summed in four lanes), and the partitions'
    counts are the batch's clean non-zeros."""
    rng = np.random.default_rng(seed)
    n_features, n_classes = 50, 4
    X = sp.random(n_rows, n_features, density=0.2, format="csr", random_state=rng,
                  data_rvs=lambda size: _check_values(rng, size, kind))
    X.data = X.data.astype(np.float32 if float32 else np.float64)
    # with_bad: NaN, infinities and out-of-range indices in ~10% of the non-zeros
    bad = rng.random(X.data.shape[0]) if with_bad else np.ones(X.data.shape[0])
    X.data[bad < 0.05] = np.nan
    X.data[(bad >= 0.05) & (bad < 0.065)] = np.inf
    X.data[(bad >= 0.065) & (bad < 0.08)] = -np.inf
    X.indices[(bad >= 0.08) & (bad < 0.1)] = n_features + 3
    codes = rng.integers(0, n_classes, n_rows).astype(np.intp)
    weights = rng.random(n_rows) if weighted else None
    kernels = _count_table._kernels
    results = []
    for n_threads in (1, 2, 3, 4):
        row_total, batch_total = np.empty(n_rows), np.zeros(n_classes)
        flags = kernels.csr_check(X.data, X.indices, X.indptr, n_features, codes, weights,
                                  row_total, batch_total, binarize, 0.5, n_threads)
        results.append((flags, row_total, batch_total))
        # the pass that validates a batch to be built is the same check: the same
        # flags and totals, and nothing written unless the batch is clean
        for stop_on_negative in (False, True):
            partition = _count_table.BatchPartition(X, codes, weights, n_classes,
                                                    binarize, 0.5, n_threads,
                                                    stop_on_negative)
            assert partition.flags == flags
            assert_array_equal(partition.row_total.view(np.int64), row_total.view(np.int64))
            assert_array_equal(partition.batch_total.view(np.int64),
                               batch_total.view(np.int64))
            n_nan, n_inf, n_neg, n_malformed = flags
            clean = not (n_nan or n_inf or n_malformed or (n_neg and stop_on_negative))
            assert (partition.largest >= 0) == clean
            if clean:
                # each partition's records: the non-zeros (thresholded) of its features
                kept = (X.data > 0.5) if binarize else (X.data != 0)
                width = 1 << partition.part_shift
                expected = np.bincount(X.indices[kept] // width,
                                       minlength=partition.part_start.shape[0] - 1)
                assert_array_equal(np.diff(partition.part_start), expected)
    for flags, row_total, batch_total in results[1:]:
        assert flags == results[0][0]
        assert_array_equal(row_total.view(np.int64), results[0][1].view(np.int64))
        assert_array_equal(batch_total.view(np.int64), results[0][2].view(np.int64))
    flags, row_total, batch_total = results[0]
    values = X.data.astype(np.float64)
    assert flags == (int(np.isnan(values).sum()), int(np.isinf(values).sum()),
                     int(((values < 0) & np.isfinite(values)).sum()),
                     int((X.indices >= n_features).sum()))
    # each row's total: its finite values (thresholded) added in order, weighted
    for i in range(n_rows):
        row_sum = 0.0
        for x in values[X.indptr[i]:X.indptr[i + 1]]:
            if np.isfinite(x):
                row_sum += (1.0 if x > 0.5 else 0.0) if binarize else float(x)
        assert row_total[i] == (1.0 if weights is None else weights[i]) * row_sum
    expected = np.zeros(n_classes)
    for i in range(n_rows):
        expected[codes[i]] += row_total[i]
    assert_array_equal(batch_total, expected)
    again = _count_table._row_totals(X, codes, weights, binarize, 0.5, n_classes)
    assert_array_equal(again.view(np.int64), row_total.view(np.int64))


def test_live_features_is_flatnonzero():
    kernels = _count_table._kernels
    rng = np.random.default_rng(5)
    for d, density in ((0, 0.5), (1, 0.0), (1, 1.0), (1000, 0.5), (70_001, 0.01)):
        lengths = ((rng.random(d) < density) * rng.integers(1, 9, d)).astype(np.int32)
        got = _count_table._update_kernels.live_features(lengths)
        assert got.dtype == np.int64
        assert_array_equal(got, np.flatnonzero(lengths))


@pytest.mark.parametrize("alpha", [1.0, 0.37, 1e-10, 5.0])
@pytest.mark.parametrize("n", [5, 126])
def test_small_count_weights_are_the_logs(alpha, n):
    # MultinomialNB's entry weight of a whole count below 64 comes from a table of
    # the same expression when a refresh or flush has 64 features or entries or
    # more (n=126; n=5 computes every log): the same bits as the logs, which a
    # per-feature alpha takes, in refresh and flush
    rng = np.random.default_rng(11)
    counts = np.concatenate([np.arange(0.0, 70.0), rng.random(50) * 80,
                             [0.5, 63.0, 63.5, 64.0, 1e6, 2.0**53]])
    counts = counts[rng.permutation(counts.shape[0])[:n]]
    kernels = _count_table._kernels
    # one entry a feature: n features, n entries
    features = np.arange(n, dtype=np.int64)
    lengths = np.ones(n, dtype=np.int32)
    results = []
    for alphas in (np.array([alpha]), np.full(n, alpha)):  # the table, logs
        for refresh in (True, False):
            weights = np.full(n, np.nan)
            if refresh:
                _count_table._update_kernels.refresh_multinomial(features, features, lengths, counts, weights,
                                            alphas, 1)
            else:
                marks = np.full((n + 7) // 8, 255, dtype=np.uint8)
                _count_table._update_kernels.flush_multinomial(features, np.zeros(n, dtype=np.int32),
                                          features, counts, weights, marks, alphas, 1)
                # the flush clears the marks of the entries it computed
                assert not np.unpackbits(marks, bitorder="little")[:n].any()
            results.append(weights)
    for weights in results[:3]:
        assert_array_equal(weights.view(np.int64), results[3].view(np.int64))
    assert_allclose(results[0], np.log(counts + alpha) - np.log(alpha), rtol=1e-15)


@pytest.mark.parametrize("alpha", [1.0, 0.37, 0.1, 1e-10, 5.0])
@pytest.mark.parametrize("n", [5, 126])
def test_small_complement_logs_are_the_logs(alpha, n):
    # ComplementNB's log(F_j + a) and log(F_j + a - N_cj) of a whole F_j (or
    # F_j - N_cj) below 64 come from a table of log(m + a) when a refresh has 64
    # features or more (n=126): only where m + a rounds to scikit-learn's
    # (F_j + a) - N_cj, so the same bits as the logs (a per-feature alpha, or
    # n=5, computes every log)
    import math
    rng = np.random.default_rng(12)
    kernels = _count_table._kernels
    # two entries a feature: whole, fractional, large and boundary counts
    counts = np.concatenate([rng.integers(0, 40, 2 * n).astype(np.float64),
                             rng.random(2 * n) * 70, [63.0, 1.0, 64.0, 0.5, 1e6, 3.0]])
    counts = counts[rng.permutation(counts.shape[0])[:2 * n]]
    features = np.arange(n, dtype=np.int64)
    starts = 2 * features
    lengths = np.full(n, 2, dtype=np.int32)
    results = []
    for alphas in (np.array([alpha]), np.full(n, alpha)):
        weights, totals, base = np.full(2 * n, np.nan), np.zeros(n), np.zeros(n)
        _count_table._update_kernels.refresh_complement(features, starts, lengths, counts, weights, totals,
                                   base, alphas, 1)
        results.append((weights, totals, base))
    for got, expected in zip(results[0], results[1]):
        assert_array_equal(got.view(np.int64), expected.view(np.int64))
    weights, totals, base = results[0]
    for j in range(n):
        total = (0.0 + counts[2 * j]) + counts[2 * j + 1]
        assert totals[j] == total
        assert base[j] == math.log(total + alpha)
        for e in (2 * j, 2 * j + 1):
            assert weights[e] == math.log((total + alpha) - counts[e]) - base[j]
