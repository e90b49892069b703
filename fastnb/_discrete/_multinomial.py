"""MultinomialNB and ComplementNB."""

import numpy as np

from .._capabilities import Capabilities
from .._count_table import FILL_COMPLEMENT, FILL_MULTINOMIAL
from .._params import check_bool_param
from .._threads import threads_for
from ._base import DISCRETE_FINALISING, _BaseDiscreteNB
from ._shared import _by_row_blocks, _kernels, _table_backed, _table_update_kernels


# MultinomialNB's log probabilities of a table of at least this many cells go
# through the kernel (``_update_feature_log_prob``); a smaller table's call costs
# less than the kernel's table of logs and its call.
LOG_KERNEL_MIN_CELLS = 1 << 14


def _refresh_threads(model, features):
    # a feature's refresh is a few logs per class with a count: ~8 non-zeros' work
    return threads_for(model.n_threads, 8 * features.shape[0], "count_fit")


class MultinomialNB(_BaseDiscreteNB):
    """Naive Bayes classifier for multinomial models (a drop-in for scikit-learn's).

    Suitable for classification with discrete features such as word counts;
    fractional counts such as tf-idf also work. Fitting is one pass over X in a
    compiled, OpenMP-parallel kernel; sparse CSR input is read in place and never
    densified, and prediction fuses the arg-max or the normalisation into the
    kernel so that no (n_samples, n_classes) temporary is made.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing parameter (set alpha=0 and
        force_alpha=True, for no smoothing).
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it will set alpha to 1e-10. If
        True, alpha will remain unchanged. This may cause numerical errors if
        alpha is too close to 0.
    fit_prior : bool, default=True
        Whether to learn class prior probabilities or not. If false, a uniform
        prior will be used.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes. If specified, the priors are not
        adjusted according to the data.
    n_threads : int, default=None
        Threads for the kernels: None or -1 means all usable cores (honouring
        ``OMP_NUM_THREADS`` and threadpoolctl limits), -2 all but one, and so on.
        Results are the same bits whatever the number of threads.
    grow_classes : bool, default=False
        Whether ``partial_fit`` may meet classes it was not told of. False:
        scikit-learn's contract (``classes`` on the first call, the same ones
        after). True: the first call may omit ``classes`` (its labels, and any
        ``classes`` given, are the classes), and a later batch (or ``classes``)
        may bring new labels: ``classes_`` stays sorted, each new class enters
        with zero statistics at its sorted place, at a cost of O(classes x
        features) once, and the model equals one told of every class up front.
        Fixed priors must then have one entry per class of the grown model.
    half_life : float, default=None
        Exponential forgetting, in rows: each row counts with weight
        ``sample_weight * 2**(-age / half_life)``, ``age`` being the number of
        rows seen after it, so that the model follows a drifting stream; the
        fitted counts are these decayed sums, for any split of the stream into
        ``partial_fit`` batches, and ``alpha`` smooths them as usual. None (or
        ``inf``) forgets nothing.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Number of samples encountered for each class during fitting, weighted by
        the sample weight when provided.
    class_log_prior_ : ndarray of shape (n_classes,)
        Smoothed empirical log probability for each class.
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Number of samples encountered for each (class, feature) during fitting,
        weighted by the sample weight when provided.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Empirical log probability of features given a class, ``P(x_i|y)``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when X has string column names.

    Notes
    -----
    Negative sample weights are rejected (scikit-learn accepts them). A
    ``partial_fit`` label that is not in ``classes`` raises (scikit-learn ignores
    the row).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> y = np.array([1, 2, 3, 4, 5, 6])
    >>> from fastnb import MultinomialNB
    >>> clf = MultinomialNB()
    >>> clf.fit(X, y)
    MultinomialNB()
    >>> print(clf.predict(X[2:3]))
    [3]
    """

    _check_negative = True
    _table_model = "multinomial"
    _capabilities = Capabilities(
        reads="counts", terms="multinomial", prior_param="class_prior",
        finalising_params=DISCRETE_FINALISING, nonnegative=True,
        reads_text_counts=True, sub_model=True)
    _table_forgets = True

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True,
                 class_prior=None, n_threads=None, grow_classes=False,
                 half_life=None):
        super().__init__(alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, n_threads=n_threads,
                         grow_classes=grow_classes, half_life=half_life)

    def _table_fill_weights(self, alpha):
        return FILL_MULTINOMIAL, alpha, None, None, None

    def _refresh_table(self, table, features, alpha):
        # (``count_scale``: under forgetting the table holds its counts in a frame)
        _table_update_kernels.refresh_multinomial(features, table.feat_start, table.feat_len,
                                           table.ent_count, table.ent_weight, alpha,
                                           _refresh_threads(self, features),
                                           table.count_scale)

    def _flush_pending(self, table, alpha):
        features, offsets = table.pending_entries()
        _table_update_kernels.flush_multinomial(features, offsets, table.feat_start,
                                         table.ent_count, table.ent_weight,
                                         table.ent_stale, alpha,
                                         _refresh_threads(self, features),
                                         table.count_scale)

    def _table_terms(self):
        # jll_c = log prior_c + sum_j x_j log a_j + sum_{N_cj > 0} x_j [log(N_cj + a_j)
        #         - log a_j] - s(x) log(N_c + sum_j a_j)
        table = self._table
        alpha = self._table_alpha
        total_alpha = alpha.sum() if alpha.ndim else alpha * table.n_features
        # (the true totals: under forgetting the table's are in its frame)
        scale = -np.log(table.class_total * table.count_scale + total_alpha)
        return (self._feat_base, self.class_log_prior_, scale,
                np.ones(table.n_classes))

    def _update_feature_log_prob(self, feature_count, class_count, alpha, missing_count):
        # scikit-learn's log(N_cj + a_j) - log(sum_j (N_cj + a_j)), by class rows on
        # the threads. With one alpha and a table of LOG_KERNEL_MIN_CELLS or more,
        # the kernel takes the rows of small whole counts (the logs of those from
        # its table: M1, 2 threads, whole fits 7-20% faster) and leaves the others
        # (fractional or large values), with their totals, to NumPy's vectorised
        # log, in place; otherwise NumPy takes every row, in scikit-learn's order.
        flp = np.empty(feature_count.shape)
        n_classes, n_features = feature_count.shape
        n_threads = threads_for(self.n_threads, flp.size, "count_fit")
        if (np.ndim(alpha) == 0 and flp.size >= LOG_KERNEL_MIN_CELLS
                and n_features >= _kernels.LOG_TABLE_MIN_FEATURES):
            log_total = np.empty(n_classes)
            left = np.empty(n_classes, dtype=np.uint8)
            _kernels.multinomial_log_prob(np.ascontiguousarray(feature_count), float(alpha),
                                          flp, log_total, left, n_threads)
            rows_left = np.flatnonzero(left)
        else:
            log_total = None
            rows_left = np.arange(n_classes)
        if rows_left.shape[0] == 0:
            return flp, {}
        every_row = rows_left.shape[0] == n_classes

        def rows(start, stop):
            # a block of rows at once when every row is NumPy's, else row by row
            runs = ([(start, stop)] if every_row
                    else [(c, c + 1) for c in rows_left[start:stop]])
            with np.errstate(divide="ignore", invalid="ignore"):
                for lo, hi in runs:
                    block = flp[lo:hi]
                    np.add(feature_count[lo:hi], alpha, out=block)
                    log_cc = (log_total[lo:hi] if log_total is not None
                              else np.log(block.sum(axis=1)))
                    np.log(block, out=block)
                    block -= log_cc.reshape(-1, 1)

        _by_row_blocks(rows_left.shape[0], n_threads, rows)
        return flp, {}

    def _predict_weights(self, feature_log_prob, class_log_prior):
        return feature_log_prob, class_log_prior


class ComplementNB(_BaseDiscreteNB):
    """The Complement Naive Bayes classifier of Rennie et al. (2003).

    A drop-in for ``sklearn.naive_bayes.ComplementNB``, suited to imbalanced text
    data; same one-pass kernels as :class:`MultinomialNB`.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing parameter (set alpha=0 and
        force_alpha=True, for no smoothing).
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it will set alpha to 1e-10. If
        True, alpha will remain unchanged.
    fit_prior : bool, default=True
        Only used in the edge case of a single class in the training set.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes. Not used (except with one class).
    norm : bool, default=False
        Whether or not a second normalization of the weights is performed.
    n_threads : int, default=None
        Threads for the kernels (see :class:`MultinomialNB`).
    grow_classes : bool, default=False
        Whether ``partial_fit`` may meet classes it was not told of: the first
        call may then omit ``classes``, and a later batch may bring new labels
        (see :class:`MultinomialNB`).
    half_life : float, default=None
        Exponential forgetting, in rows: each row counts with weight
        ``sample_weight * 2**(-age / half_life)`` (see :class:`MultinomialNB`).

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of samples encountered for each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Smoothed empirical log probability for each class. Only used in the edge
        case of a single class in the training set.
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    feature_all_ : ndarray of shape (n_features,)
        Weighted number of samples encountered for each feature.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted number of samples encountered for each (class, feature).
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Empirical weights for class complements.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when X has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> y = np.array([1, 2, 3, 4, 5, 6])
    >>> from fastnb import ComplementNB
    >>> clf = ComplementNB()
    >>> clf.fit(X, y)
    ComplementNB()
    >>> print(clf.predict(X[2:3]))
    [3]
    """

    _check_negative = True
    _table_model = "complement"
    # ComplementNB's scores are not log prior + sum of log P(x_j | c): it is not
    # a ColumnwiseNB sub-model.
    _capabilities = Capabilities(
        reads="counts", terms="complement", prior_param="class_prior",
        finalising_params=DISCRETE_FINALISING | {"norm"}, nonnegative=True,
        reads_text_counts=True, generative=False)
    _table_forgets = True

    feature_all_ = _table_backed("feature_all_", "Weighted count of each feature.")

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True,
                 class_prior=None, norm=False, n_threads=None, grow_classes=False,
                 half_life=None):
        super().__init__(alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, n_threads=n_threads,
                         grow_classes=grow_classes, half_life=half_life)
        self.norm = norm

    def _reset_table_terms(self, n_features, alpha, built=False):
        # per feature: F_j (the count over all classes) and log(F_j + a_j), the log
        # complement count of every class without a count of j
        d = n_features
        if built and np.ndim(alpha) == 0:
            # a build writes every F_j and, with one alpha, every base
            # (``_table_fill_weights``)
            self._feat_base = np.empty(d)
            self._feature_all = np.empty(d)
            return
        with np.errstate(divide="ignore"):
            if np.ndim(alpha) == 0:
                # one alpha: its log (by the same array loop) written d times, not
                # d logs (T1: ~4 -> 1-2 ms)
                self._feat_base = np.full(d, np.log(np.full(1, alpha, dtype=np.float64))[0])
            else:
                self._feat_base = np.log(np.asarray(alpha, dtype=np.float64))
        self._feature_all = np.zeros(d)

    def _fit_table(self, *args, **kwargs):
        super()._fit_table(*args, **kwargs)
        # scikit-learn applies the norm of the latest fit/partial_fit (in
        # feature_log_prob_); a later set_params(norm=...) changes nothing until then
        self._table_norm = bool(self.norm)
        return self

    def _table_fill_weights(self, alpha):
        self._table_norm = bool(self.norm)
        # the build's reduction sums every F_j; with one alpha its fill writes the
        # base of each feature without entries too, log(a) by the array loop of
        # _reset_table_terms (the same bits)
        dead_base = None
        if alpha.shape[0] == 1:
            with np.errstate(divide="ignore"):
                dead_base = float(np.log(alpha)[0])
        return FILL_COMPLEMENT, alpha, self._feature_all, self._feat_base, dead_base

    def _refresh_table(self, table, features, alpha):
        self._table_norm = bool(self.norm)
        self._refresh_features(table, features, alpha)

    def _refresh_stale(self, table, features, alpha):
        # (the norm stays the last fit's, as for the flush)
        self._refresh_features(table, features, alpha)

    def _flush_pending(self, table, alpha):
        # every entry of a feature whose total changed: the features of the listed
        # entries, each once, in place of the list (the norm stays the last fit's)
        features, offsets = table.pending_entries()
        m = _table_update_kernels.pending_features(features, offsets, table.feat_start,
                                            table.feat_len, table.ent_stale)
        self._refresh_features(table, features[:m], alpha)

    def _refresh_features(self, table, features, alpha):
        # (``count_scale``: under forgetting the table holds its counts in a frame)
        _table_update_kernels.refresh_complement(
            features, table.feat_start, table.feat_len, table.ent_count,
            table.ent_weight, self._feature_all, self._feat_base, alpha,
            _refresh_threads(self, features), table.count_scale)

    def _table_terms(self):
        # log complement count: log(F_j + a_j) + w_cj; normaliser
        # S_c = sum_j (F_j + a_j - N_cj) = sum_c' N_c' + sum_j a_j - N_c, and
        # jll_c = -sum_j x_j log comp_cj + s(x) log S_c (norm: divided by
        # Z_c = sum_j log(comp_cj / S_c) instead of negated).
        table = self._table
        k = table.n_classes
        alpha = self._table_alpha
        total_alpha = alpha.sum() if alpha.ndim else alpha * table.n_features
        # (the true totals: under forgetting the table's are in its frame)
        class_total = table.class_total * table.count_scale
        log_norm = np.log((class_total.sum() + total_alpha) - class_total)
        bias = self.class_log_prior_ if k == 1 else np.zeros(k)
        if not self._table_norm:
            return self._feat_base, bias, -log_norm, np.full(k, -1.0)
        _, classes, positions = table.entries()
        corrections = np.bincount(classes, table.ent_weight[positions], minlength=k)
        log_comp_sum = self._feat_base.sum() + corrections
        return self._feat_base, bias, -log_norm, 1.0 / (log_comp_sum
                                                        - table.n_features * log_norm)

    def _dense_from_table(self, name):
        if name == "feature_all_":
            self._settle_table()
            self._flush_table()
            return self._feature_all
        if name != "feature_log_prob_":
            return super()._dense_from_table(name)
        table = self._table
        return self._update_feature_log_prob(table.to_dense(), self.class_count_,
                                             self._table_alpha, None,
                                             norm=self._table_norm)[0]

    def _validate_params(self):
        super()._validate_params()
        check_bool_param(self.norm, "norm", type(self).__name__)

    def _update_feature_log_prob(self, feature_count, class_count, alpha, missing_count,
                                 norm=None):
        norm = self.norm if norm is None else norm
        n_classes, n_features = feature_count.shape
        n_threads = threads_for(self.n_threads, feature_count.size, "count_fit")
        flp = np.empty(feature_count.shape)
        if (np.ndim(alpha) == 0 and flp.size >= LOG_KERNEL_MIN_CELLS
                and n_features >= _kernels.LOG_TABLE_MIN_FEATURES):
            # the kernel: the feature totals, then the rows of small whole
            # complement counts (logs from its table: M1, 2 threads, ~30 -> ~10 ms);
            # a row of other values is left to NumPy below
            feature_all = np.empty(n_features)
            left = np.empty(n_classes, dtype=np.uint8)
            _kernels.complement_log_prob(np.ascontiguousarray(feature_count),
                                         float(alpha), flp, feature_all,
                                         np.empty(n_classes), left,
                                         1.0 if norm else -1.0, n_threads)
            rows_left = np.flatnonzero(left)
        else:
            # summed over the classes in order, by blocks of features on the
            # threads (each feature's sum is the same whatever the block)
            feature_all = np.empty(n_features)

            def columns(start, stop):
                np.sum(feature_count[:, start:stop], axis=0, out=feature_all[start:stop])

            _by_row_blocks(n_features, n_threads, columns)
            rows_left = np.arange(n_classes)
        smoothed_all = feature_all + alpha
        every_row = rows_left.shape[0] == n_classes

        def log_rows(start, stop):
            # scikit-learn's operations in its order, in place: a block of rows
            # at once when NumPy takes every row, else row by row
            runs = ([(start, stop)] if every_row
                    else [(c, c + 1) for c in rows_left[start:stop]])
            with np.errstate(divide="ignore", invalid="ignore"):
                for lo, hi in runs:
                    block = flp[lo:hi]
                    np.subtract(smoothed_all, feature_count[lo:hi], out=block)
                    block /= block.sum(axis=1, keepdims=True)
                    np.log(block, out=block)
                    if not norm:
                        np.negative(block, out=block)

        def normalise(start, stop):
            with np.errstate(divide="ignore", invalid="ignore"):
                block = flp[start:stop]
                block /= block.sum(axis=1, keepdims=True)

        if rows_left.shape[0]:
            _by_row_blocks(rows_left.shape[0], n_threads, log_rows)
        if norm:
            _by_row_blocks(n_classes, n_threads, normalise)
        return flp, {"feature_all_": feature_all}

    def _predict_weights(self, feature_log_prob, class_log_prior):
        if feature_log_prob.shape[0] == 1:
            return feature_log_prob, class_log_prior
        return feature_log_prob, np.zeros(feature_log_prob.shape[0])
