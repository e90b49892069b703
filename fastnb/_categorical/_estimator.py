"""The CategoricalNB estimator: validation, dispatch and the fitted state.

The work is done elsewhere in this package: _columns splits X, _counting counts a
batch, _features merges it into each feature, _tables computes the log
probabilities and holds what predict reads, _file_format saves and loads, and
_persistence pickles, restores and merges fitted models (a mixin). Here a
fit is: validate, count, merge every feature (on copies, or as in-place updates
that cannot fail), and only then commit, so a call that raises leaves the model as
it was.
"""

from numbers import Integral, Real

import numpy as np

from .._base import _VALIDATED_PARAMS, _BaseNB
from .._capabilities import Capabilities
from .._forgetting import check_half_life_param, decay_factor, forgets, row_weights
from .._params import (
    check_alpha_param,
    check_bool_param,
    check_n_threads,
    check_prior_param,
    resolve_alpha,
    resolve_priors,
)
from .._threads import threads_for
from .._validation import check_sample_weight, check_y, feature_names_of
from ._columns import KERNEL_DTYPES, split_columns
from ._counting import FIT_MIN_ROWS_PER_CHUNK, count_batches
from ._features import FeatureState, InPlace, _at, applied, merge_feature
from ._file_format import STATE_SPEC
from ._jll_terms import lookup_terms
from ._kernels import (
    LOOKUP, count as count_kernels, tables as table_kernels, predict as predict_kernels,
)
from ._persistence import _PersistenceMixin
from ._tables import WHOLE_LOGS, build_tables, refresh, table_rows

__all__ = ["CategoricalNB"]


class CategoricalNB(_PersistenceMixin, _BaseNB):
    """Naive Bayes for categorical features, on any category values, without an encoder.

    A drop-in for ``sklearn.naive_bayes.CategoricalNB``. On integer codes 0..n-1 it
    is scikit-learn exact: the same attributes, laid out the same way, and the same
    probabilities. Unlike scikit-learn it also takes the data as people have it:
    integers of any range (negative, ``2**62``), floats, strings, bytes, bools,
    object columns, pandas ``Categorical`` and string columns, and different kinds
    in different columns. No encoder is needed in front of it.

    Fitting keys each (feature, value) to a 64-bit key that is stable across
    processes, platforms and Python versions (never Python's salted ``hash()``) and
    counts it per class, in one pass, in compiled open-addressing hash tables;
    prediction gathers each feature's log probabilities in an OpenMP kernel.

    Parameters
    ----------
    alpha : float, default=1.0
        Additive (Laplace/Lidstone) smoothing parameter (set alpha=0 and
        force_alpha=True, for no smoothing).
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it will set alpha to 1e-10. If True,
        alpha will remain unchanged. This may cause numerical errors if alpha is
        too close to 0.
    fit_prior : bool, default=True
        Whether to learn class prior probabilities or not. If false, a uniform
        prior will be used.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes. If specified, the priors are not
        adjusted according to the data.
    min_categories : int or array-like of shape (n_features,), default=None
        Minimum number of categories per feature, as in scikit-learn. Setting it
        declares that X holds integer codes 0..n-1: a feature with any other value
        (a negative number, a string, ...) raises ValueError.
    hash_buckets : int, default=None
        Bounded memory for huge cardinalities (feature hashing). If None, every
        distinct value is its own category, counted exactly, and memory grows with
        the number of distinct values. If an int B, every feature's values are
        hashed (with fastnb's stable keys) into B buckets: each feature then
        takes exactly ``k * B`` counts whatever its cardinality, values that
        collide in a bucket share their counts (collisions are accepted: with D
        distinct values a given value shares its bucket with about D / B others),
        ``categories_[i]`` is None and ``n_categories_[i]`` is B. An unseen value
        falls into some bucket and gets that bucket's probability. Cannot be
        combined with ``min_categories``.
    n_threads : int, default=None
        Threads for the kernels: None or -1 means all usable cores (honouring
        ``OMP_NUM_THREADS`` and threadpoolctl limits), -2 all but one, and so on.
        Results are the same bits whatever the number of threads.
    grow_classes : bool, default=False
        Whether ``partial_fit`` may meet classes it was not told of: the first
        call may then omit ``classes``, and a later batch may bring new labels
        (see :class:`~fastnb.MultinomialNB`).
    half_life : float, default=None
        Exponential forgetting, in rows: each row counts with weight
        ``sample_weight * 2**(-age / half_life)``, ``age`` being the number of
        rows seen after it, so that the model follows a drifting stream; the
        fitted counts are these decayed sums, for any split of the stream into
        ``partial_fit`` batches, and ``alpha`` smooths them as usual. A category
        stays known once seen. None (or ``inf``) forgets nothing.

    Attributes
    ----------
    category_count_ : list of arrays of shape (n_classes, n_categories_[i])
        Holds arrays of shape (n_classes, n_categories of respective feature) for
        each feature. Each array provides the number of samples encountered for
        each class and category of the specific feature.
    class_count_ : ndarray of shape (n_classes,)
        Number of samples encountered for each class during fitting. This value
        is weighted by the sample weight when provided.
    class_log_prior_ : ndarray of shape (n_classes,)
        Smoothed empirical log probability for each class.
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    categories_ : list of arrays of shape (n_categories_[i],)
        The category of each column of ``category_count_[i]``, like
        ``OneHotEncoder.categories_``. Integer-code features (see Notes) have
        ``arange(n_categories_[i])``; other features have the distinct values seen
        with a positive sample weight, sorted (numbers, then strings, then bytes,
        then other objects).
    feature_log_prob_ : list of arrays of shape (n_classes, n_categories_[i])
        Holds arrays of shape (n_classes, n_categories of respective feature) for
        each feature. Each array provides the empirical log probability of
        categories given the respective feature and class, ``P(x_i|y)``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when X has string column names.
    n_categories_ : ndarray of shape (n_features,), dtype=np.int64
        Number of categories for each feature.

    Notes
    -----
    **Category layout.** A feature all of whose values are integers in
    ``[0, 65536)`` (any integer dtype, bools, or integral floats) is an integer-code
    feature, laid out exactly as scikit-learn's: category ``c`` is column ``c``, and
    ``n_categories_[i] = max(largest code seen + 1, min_categories)``. Any other
    feature has the sorted distinct values seen as its categories, so fit and any
    split into ``partial_fit`` batches give identical layouts. Unlike scikit-learn,
    whose ``n_categories_`` after ``partial_fit`` reflects the last batch only,
    ``n_categories_[i]`` is always ``category_count_[i].shape[1]``.

    **Equality of values.** Values are compared as Python compares them:
    ``True == 1 == 1.0`` are one category, ``1``, ``'1'`` and ``b'1'`` are three.
    Integers beyond 64 bits and integral floats beyond ``2**64`` do not compare
    equal to each other. Objects other than numbers, str and bytes are keyed by
    their type and ``repr``.

    **Unseen categories** at predict time raise no error (scikit-learn raises
    IndexError, its issue #16028): such a value gets the smoothed probability of a
    zero count, ``alpha / (N_ci + alpha * n_categories_[i])``, where ``N_ci`` is the
    number of samples of class c with a value for feature i.

    **Missing values.** None, NaN, ``pd.NA`` and ``pd.NaT`` are missing: a row's
    missing feature is left out of the likelihood (marginalised) both in fit
    (it adds to ``class_count_`` but to no category) and in predict.

    **Stability.** The 64-bit keys are computed by fastnb's own hash functions
    (identity for integers, FNV-1a over code points plus a murmur3 finaliser for
    strings), so a pickled model predicts the same in any process.

    **Saving and merging.** ``save`` writes the categories as plain arrays (no
    pickle; see fastnb/_categorical/_file_format.py): ints, floats, str, bytes and ints beyond 64 bits.
    Categories of other types cannot be saved (``save`` raises ValueError). Loading
    recomputes the keys and checks that categories are sorted, distinct and match
    the count tables. ``fastnb.merge`` of fits on disjoint data unions each
    feature's categories and adds the realigned counts: it equals the fit on the
    union (exactly for unweighted data), with the same layout.

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import CategoricalNB
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> y = np.array([1, 2, 3, 4, 5, 6])
    >>> clf = CategoricalNB()
    >>> clf.fit(X, y)
    CategoricalNB()
    >>> print(clf.predict(X[2:3]))
    [3]

    Raw strings, with a value never seen in training:

    >>> X = [["red", "S"], ["red", "M"], ["blue", "L"], ["blue", "L"]]
    >>> clf = CategoricalNB().fit(X, ["a", "a", "b", "b"])
    >>> [list(c) for c in clf.categories_]
    [['blue', 'red'], ['L', 'M', 'S']]
    >>> clf.predict([["red", "XL"]])
    array(['a'], dtype='<U1')
    """

    _STATE_SPEC = STATE_SPEC
    _capabilities = Capabilities(
        reads="categories", terms="categorical", prior_param="class_prior",
        # (min_categories and hash_buckets change the categories: not here)
        finalising_params={"alpha", "force_alpha", "fit_prior", "class_prior",
                           "n_threads", "grow_classes"},
        column_kind="categorical", sub_model=True)

    def _jll_terms(self):
        """The model's ``LookupTerms`` (fastnb/_jll_terms.py)."""
        self._check_fitted()
        return lookup_terms(self)
    _PREDICT_WORK_KIND = "categorical_predict"

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        min_categories=None,
        hash_buckets=None,
        n_threads=None,
        grow_classes=False,
        half_life=None,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.hash_buckets = hash_buckets
        self.n_threads = n_threads
        self.grow_classes = grow_classes
        self.half_life = half_life

    def _update_tags(self, tags):
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = False

    # -- parameters ----------------------------------------------------------------------
    def _validate_params(self):
        name = type(self).__name__
        check_alpha_param(self.alpha, name, allow_array=False)
        check_bool_param(self.force_alpha, "force_alpha", name)
        check_bool_param(self.fit_prior, "fit_prior", name)
        check_prior_param(self.class_prior, "class_prior", name)
        check_n_threads(self.n_threads, name)
        check_bool_param(self.grow_classes, "grow_classes", name)
        check_half_life_param(self.half_life, name)
        buckets = self.hash_buckets
        if buckets is not None:
            if not isinstance(buckets, Integral) or isinstance(buckets, bool) or not (
                1 <= buckets < 2**31
            ):
                raise ValueError(
                    f"The 'hash_buckets' parameter of {name} must be None or an int "
                    f"in the range [1, 2**31). Got {buckets!r} instead."
                )
            if self.min_categories is not None:
                raise ValueError(
                    "min_categories declares integer codes and hash_buckets hashes "
                    "values into buckets: set only one of them."
                )
        mc = self.min_categories
        if mc is not None and not (
            isinstance(mc, Integral) and not isinstance(mc, bool) and mc >= 1
        ) and (isinstance(mc, (Real, str, bool)) or np.ndim(mc) == 0):
            raise ValueError(
                f"The 'min_categories' parameter of {name} must be None, an "
                "array-like or an int in the range [1, inf). "
                f"Got {mc!r} instead."
            )

    def _alpha(self):
        return resolve_alpha(self.alpha, self.force_alpha)

    def _class_prior(self, n_classes):
        return resolve_priors(self.class_prior, n_classes, name="class_prior",
                              sum_to_one=False)

    def _min_categories(self, n_features):
        if self.min_categories is None:
            return None
        mc = np.array(self.min_categories)
        if not np.issubdtype(mc.dtype, np.signedinteger):
            raise ValueError(
                f"'min_categories' should have integral type. Got {mc.dtype} instead."
            )
        if mc.ndim == 0:
            return np.full(n_features, int(mc), dtype=np.int64)
        if mc.shape != (n_features,):
            raise ValueError(
                f"'min_categories' should have shape ({n_features},) when an "
                f"array-like is provided. Got {mc.shape} instead."
            )
        return mc.astype(np.int64)

    def _class_log_prior(self, class_count, class_prior):
        k = class_count.shape[0]
        if class_prior is None and not self.fit_prior:
            return np.full(k, -np.log(k))
        if class_prior is None:
            # one kernel for every path, the small-call one's included: the same bits
            out = np.empty(k)
            table_kernels.class_log_prior(
                np.ascontiguousarray(class_count, dtype=np.float64), out)
            return out
        with np.errstate(divide="ignore"):
            return np.log(class_prior)

    # -- fitting ----------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit Naive Bayes classifier according to X, y.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training vectors: category values of any hashable kind, per column.
            None and NaN are missing values.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights applied to individual samples (1. for unweighted).

        Returns
        -------
        self : object
            Returns the instance itself.
        """
        return self._fit(X, y, None, sample_weight, refit=True)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Incremental fit on a batch of samples.

        Categories may first appear in any batch; any split of the data into
        batches gives the same model as one ``fit``. A call that raises leaves the
        model exactly as it was.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training vectors.
        y : array-like of shape (n_samples,)
            Target values.
        classes : array-like of shape (n_classes,), default=None
            All the classes that can appear in y. Required on the first call; on
            later calls it must be the same classes, or None.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights applied to individual samples (1. for unweighted).

        Returns
        -------
        self : object
            Returns the instance itself.
        """
        if self.grow_classes:
            return self._partial_fit_growing(X, y, classes, sample_weight)
        return self._partial_fit(X, y, classes, sample_weight)

    def _partial_fit(self, X, y, classes, sample_weight):
        if sample_weight is None and self._added_small_batch(X, y, classes):
            return self
        return self._fit(X, y, classes, sample_weight, refit=False)

    def _added_small_batch(self, X, y, classes):
        """The small-call path of a stream of code batches: the batch counted into
        the model by one kernel call (``SmallBatches.add``), when the model keeps
        a ``SmallBatches`` (made by an earlier small call, see _refresh_in_place)
        of the same parameters and class arrays (under forgetting, the kernel
        decays the model as it adds the batch). False, with nothing written, when
        it does not apply: ``_fit`` then validates the batch, and raises what it
        must."""
        count_table = self.__dict__.get("_count_table")
        state = None if count_table is None else count_table.small_batches
        if state is None or state.class_count is not self.class_count_:
            return False
        key = self._params_key()
        if key is None or key != state.params_key:
            return False
        if classes is not None and type(classes) is not np.ndarray:
            classes = np.asarray(classes)   # a list of the classes: compared as bytes
        return state.add(X, y, classes, self.class_prior is None and self.fit_prior,
                         float(self.half_life) if forgets(self.half_life) else 0.0)

    def _fit(self, X, y, classes, sample_weight, refit):
        """Validate, count, merge every feature, and only then commit."""
        first_call = self._begin_fit(classes, refit)
        name = type(self).__name__
        columns = split_columns(X, name)
        y = check_y(y, columns.n_samples, name)
        weights = row_weights(self.half_life,
                              check_sample_weight(sample_weight, columns.n_samples),
                              columns.n_samples)
        classes, class_index = self._encode_targets(
            y, classes, refit=refit, first_call=first_call, n_features=columns.n_features)
        k = classes.shape[0]
        alpha = self._alpha()
        class_prior = self._class_prior(k)
        min_categories = self._min_categories(columns.n_features)
        batch_class_count = np.bincount(class_index, weights=weights, minlength=k)
        if refit and not batch_class_count.sum() > 0:
            raise ValueError("The sum of sample_weight is zero: nothing to fit.")
        names = feature_names_of(X)
        if first_call:
            batches = self._count(columns, class_index, weights, k, min_categories,
                                  names, np.ones(columns.n_features, dtype=bool))
            features = [merge_feature(None, batch, k, _at(min_categories, j), j, names)
                        for j, batch in enumerate(batches)]
            self._commit(X, classes, batch_class_count, features, alpha, class_prior,
                         reset=True)
            return self
        self._check_feature_names(X, reset=False)
        # Under forgetting, everything learned before is scaled by the batch's
        # decay, in the same pass that adds the batch's (already decayed) counts
        decay = decay_factor(self.half_life, columns.n_samples)
        if self._added_codes_in_place(columns, class_index, weights, min_categories,
                                      decay):
            # (under forgetting, only an unweighted stream's next batch can take
            # the ``SmallBatches`` this would make)
            small = decay == 1.0 or sample_weight is None
            self._refresh_in_place(self._count_table.all_features, batch_class_count,
                                   alpha, class_prior,
                                   batch=(columns.blocks[0].values, class_index)
                                   if small else None, decay=decay)
            return self
        batches = self._count(columns, class_index, weights, k, min_categories, names,
                              self._predict_tables.lookup == LOOKUP["code"])
        learned = [self._decayed_feature(j, decay) for j in range(len(batches))]
        updates = [
            merge_feature(learned[j], batch, k, _at(min_categories, j), j, names)
            for j, batch in enumerate(batches)
        ]
        if not all(isinstance(update, InPlace) for update in updates):
            features = [applied(learned[j], update) for j, update in enumerate(updates)]
            self._commit(None, classes, self.class_count_ * decay + batch_class_count,
                         features, alpha, class_prior, reset=False)
            return self
        # Every feature keeps its categories: add the counts where they are.
        category_count = self._count_table.category_count
        if decay != 1.0:
            category_count *= decay
        starts = self._count_table.starts
        for j, update in enumerate(updates):
            count_kernels.add_columns(category_count, starts[j], update.columns,
                                      update.counts)
        touched = np.array([u.columns.size > 0 for u in updates], dtype=np.uint8)
        self._refresh_in_place(touched, batch_class_count, alpha, class_prior,
                               decay=decay)
        return self

    def _decayed_feature(self, j, decay):
        """``_feature(j)``, its counts scaled by ``decay`` (a copy) unless 1."""
        feature = self._feature(j)
        if decay == 1.0:
            return feature
        return FeatureState(feature.kind, feature.categories, feature.counts * decay,
                            feature.tags, feature.keys, feature.table)

    def _count(self, columns, class_index, weights, k, min_categories, names,
               code_allowed):
        # ColumnwiseNB's "auto" marks the features it wants read by value, so that
        # a first batch of small non-code integers (years) does not become codes.
        by_value = getattr(self, "_by_value", None)
        if by_value is not None and by_value.shape[0] == columns.n_features:
            code_allowed = code_allowed & ~by_value
        return count_batches(
            columns, class_index, weights, k, code_allowed=code_allowed,
            min_categories=min_categories, hash_buckets=self.hash_buckets, names=names,
            n_threads=threads_for(self.n_threads, columns.n_samples * columns.n_features,
                                  "categorical_fit"))

    def _added_codes_in_place(self, columns, class_index, weights, min_categories,
                              decay=1.0):
        """The small-call path: when every feature is an integer-code feature and
        X a numeric array of codes within the fitted categories, count X straight
        into the fitted counts (one kernel, the same bits as counting the batch
        apart and merging it). False, with nothing written, when it does not apply."""
        tables = self._predict_tables
        if not (columns.single_numeric and tables.lookup.size == columns.n_features
                and tables.all_codes):
            return False
        if min_categories is not None and np.any(min_categories > tables.n_categories):
            return False
        # The general path counts a batch of several row chunks chunk by chunk and
        # sums the chunks: only a one-chunk batch has the same bits here.
        if columns.n_samples >= 2 * FIT_MIN_ROWS_PER_CHUNK:
            return False
        count_table = self._count_table
        return count_kernels.accumulate_codes(
            columns.blocks[0].values, class_index, weights, tables.n_categories,
            count_table.starts[:-1], count_table.category_count, decay)

    def _refresh_in_place(self, features, batch_class_count, alpha, class_prior,
                          batch=None, decay=1.0):
        """After counts were added in place: the log probabilities of the touched
        features of the classes seen, the class counts and priors. ``batch``, the
        codes and class indices that ``_added_codes_in_place`` counted: the model's
        ``SmallBatches`` (made here at the first such call) takes their cells' logs
        again and keeps the rest; bound to the new class arrays, it lets the next
        small batch take ``_added_small_batch``. ``decay``: the batch decayed every
        count (a model that forgets): everything is refreshed, and a new
        ``SmallBatches`` made from it."""
        count_table, tables = self._count_table, self._predict_tables
        state = None
        if batch is not None and alpha == count_table.alpha and decay == 1.0:
            state = count_table.small_batches
            if state is None:
                state = count_table.small_batches = self._small_batches()
            table_kernels.refresh_batch_cells(state, batch[0], batch[1],
                                                batch_class_count.astype(np.float64))
        else:
            # counts (or alpha) moved outside it
            count_table.small_batches = None
            classes = (batch_class_count > 0).view(np.uint8)
            if decay != 1.0:
                # (under forgetting every class's counts moved: the batch decayed
                # them all)
                features, classes = np.ones_like(features), np.ones_like(classes)
            if alpha != count_table.alpha:  # set_params changed it: everything moves
                features, classes = np.ones_like(features), np.ones_like(classes)
                count_table.alpha = alpha
            refresh(count_table, tables, alpha, features, classes,
                    threads_for(self.n_threads, count_table.category_count.size,
                                "categorical_fit"))
        self.class_count_ = (self.class_count_ if decay == 1.0
                             else self.class_count_ * decay) + batch_class_count
        self.class_log_prior_ = self._class_log_prior(self.class_count_, class_prior)
        tables.class_log_prior = self.class_log_prior_
        if batch is not None and decay != 1.0 and alpha == count_table.alpha:
            state = count_table.small_batches = self._small_batches()
        if state is not None:
            state.bind(self.class_count_, self.class_log_prior_)
            # the parameters this call validated; feature names are checked by
            # _fit only (an array has none: a model fitted with some warns)
            state.params_key = (None if hasattr(self, "feature_names_in_")
                                else _VALIDATED_PARAMS.get(self))

    def _small_batches(self):
        """A ``SmallBatches`` of the model's tables as they are now."""
        count_table, tables = self._count_table, self._predict_tables
        return table_kernels.SmallBatches(
            count_table.category_count, count_table.starts, count_table.alpha,
            count_table.feature_log_prob, tables.log_prob, tables.block_start,
            tables.row_width, self.classes_, WHOLE_LOGS, 2 * FIT_MIN_ROWS_PER_CHUNK - 1)

    def _feature(self, j):
        """Feature j of the fitted model (counts and table are views)."""
        tables = self._predict_tables
        keys = self._category_keys[j]
        return FeatureState(tables.kind(j), self.categories_[j], self.category_count_[j],
                            None if keys is None else keys[0],
                            None if keys is None else keys[1], tables.feature_table(j))

    def _commit(self, X, classes, class_count, features, alpha, class_prior, reset):
        """Build the tables of ``features`` and make them the model's. ``X`` None:
        a restore or a merge, whose caller sets the feature names."""
        class_count = np.asarray(class_count, dtype=np.float64)
        class_log_prior = self._class_log_prior(class_count, class_prior)
        count_table, tables = build_tables(
            features, class_log_prior, alpha,
            threads_for(self.n_threads, class_count.size * sum(
                f.counts.shape[1] for f in features), "categorical_fit"))
        # Everything that can fail has run: commit.
        if X is not None:
            self._check_feature_names(X, reset=reset)
        if reset:
            self.n_features_in_ = len(features)
        self.classes_ = classes
        self.class_count_ = class_count
        self.class_log_prior_ = class_log_prior
        self.n_categories_ = tables.n_categories.astype(np.int64)
        self.categories_ = [f.categories for f in features]
        self._category_keys = [(f.tags, f.keys) if f.kind == "value" else None
                               for f in features]
        self._count_table = count_table
        self._predict_tables = tables
        self._set_views()

    def _set_views(self):
        count_table = self._count_table
        self.category_count_ = count_table.per_feature(count_table.category_count)
        self.feature_log_prob_ = count_table.per_feature(count_table.feature_log_prob)

    # -- prediction ------------------------------------------------------------------
    def _check_predict_X(self, X):
        self._check_fitted()
        name = type(self).__name__
        # A C-contiguous array of a kernel dtype is read as it is, unsplit.
        as_is = isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype in KERNEL_DTYPES \
            and X.flags.c_contiguous and X.shape[0] > 0
        columns = None if as_is else split_columns(X, name)
        if hasattr(self, "feature_names_in_") or not isinstance(X, np.ndarray):
            self._check_feature_names(X, reset=False)
        n_features = X.shape[1] if as_is else columns.n_features
        if n_features != self.n_features_in_:
            raise ValueError(
                f"X has {n_features} features, but {name} is expecting "
                f"{self.n_features_in_} features as input."
            )
        tables = self._predict_tables
        if as_is or columns.single_numeric:
            return _Prepared(X if as_is else columns.blocks[0].values, tables.lookup)
        rows = table_rows(tables, columns, self.categories_,
                          getattr(self, "feature_names_in_", None))
        return _Prepared(rows, np.full_like(tables.lookup, LOOKUP["resolved"]))

    def _run_predict_kernel(self, X, mode, labels_out, out):
        t = self._predict_tables
        values = X.values
        n_threads = self._predict_threads(values.shape[0],
                                          values.shape[1] * self.classes_.size)
        predict_kernels.categorical_predict(
            values, X.lookup, t.n_categories, t.log_prob, t.block_start, t.row_width,
            t.hash_keys, t.hash_tags, t.hash_rows, t.hash_start, t.hash_mask,
            t.class_log_prior, mode, labels_out, out, n_threads)


class _Prepared:
    """Predict input ready for the kernel: values, and how each column is read."""

    __slots__ = ("values", "lookup", "shape")

    def __init__(self, values, lookup):
        self.values = values
        self.lookup = lookup
        self.shape = values.shape
