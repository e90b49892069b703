"""CategoricalNB: scikit-learn's categorical Naive Bayes on hashed category counts."""

import math
from numbers import Integral, Real

import numpy as np

from ._base import _BaseNB
from ._persist import union_classes
from ._dispatch import load_kernels
from ._params import (
    check_alpha_param,
    check_bool_param,
    check_n_threads,
    check_prior_param,
    resolve_alpha,
    resolve_priors,
)
from ._threads import threads_for
from ._validation import (
    _shape_errors,
    check_sample_weight,
    check_y,
    feature_names_of,
    is_sparse,
    not_fitted_error,
)

__all__ = ["CategoricalNB"]

_kernels = load_kernels("_categorical_kernels")

_TAG = _kernels.TAGS
_TAG_INT, _TAG_UINT, _TAG_FLOAT = _TAG["int"], _TAG["uint"], _TAG["float"]
_TAG_STR, _TAG_BYTES, _TAG_BIGINT = _TAG["str"], _TAG["bytes"], _TAG["bigint"]
_FEAT_CODE = _kernels.FEATURE_MODES["code"]
_FEAT_HASH = _kernels.FEATURE_MODES["hash"]
_FEAT_RESOLVED = _kernels.FEATURE_MODES["resolved"]
_FEAT_BUCKET = _kernels.FEATURE_MODES["bucket"]

# A feature whose values are all integers in [0, _CODE_LIMIT) is a *code feature*:
# its categories are 0..n-1, laid out exactly as scikit-learn's. The limit is a
# constant (never a function of the data), so that any split of the data into
# partial_fit batches gives the same layout.
_CODE_LIMIT = 1 << 16
# Integer columns whose values all lie in [0, _FUSED_CODE_CAP) are checked and
# counted in a single pass over X (the buffers stay cache-sized); others take a
# range pass, then a count.
_FUSED_CODE_CAP = 64

# Fit chunks for the dense code counts: at least this many rows each, at most this
# many chunks, and at most this much scratch memory. Depends on the data only.
_FIT_MIN_ROWS_PER_CHUNK = 8192
_FIT_MAX_CHUNKS = 64
_FIT_SCRATCH_BYTES = 32 << 20

# dtypes the compiled kernels read directly (one fused specialisation each).
_KERNEL_DTYPES = frozenset(
    np.dtype(t)
    for t in (
        np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
        np.int64, np.uint64, np.float32, np.float64,
    )
)


def _chunk_count(n_samples, n_cells):
    by_rows = n_samples // _FIT_MIN_ROWS_PER_CHUNK
    by_memory = _FIT_SCRATCH_BYTES // max(1, 8 * n_cells)
    return int(max(1, min(_FIT_MAX_CHUNKS, by_rows, by_memory)))


def _is_pandas_categorical(dtype):
    return type(dtype).__name__ == "CategoricalDtype"


class _Columns:
    """X split into blocks the kernels can read.

    ``blocks`` holds tuples:
    ("numeric", X2d, features) where column i of X2d is feature features[i];
    ("object", column, j); ("categorical", codes (int64), categories (object), j).
    """

    def __init__(self, n_samples, n_features, blocks):
        self.n_samples = n_samples
        self.n_features = n_features
        self.blocks = blocks

    @property
    def single_numeric(self):
        return len(self.blocks) == 1 and self.blocks[0][0] == "numeric"


def _numeric_2d(arr):
    if arr.dtype.kind == "b":
        arr = arr.view(np.uint8)
    elif arr.dtype.kind == "f" and arr.dtype not in _KERNEL_DTYPES:
        arr = arr.astype(np.float64)
    elif arr.dtype not in _KERNEL_DTYPES:
        arr = arr.astype(np.int64 if arr.dtype.kind == "i" else np.uint64)
    return np.ascontiguousarray(arr)


def _columns_of(X, name):
    """Split X (array-like or DataFrame) into kernel-readable blocks, per column kind."""
    if is_sparse(X):
        raise TypeError(
            "Sparse data was passed for X, but dense data is required. Use "
            f"'.toarray()' to convert to a dense numpy array: {name} does not "
            "accept sparse input."
        )
    if hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc"):
        return _dataframe_columns(X, name)
    arr = X if isinstance(X, np.ndarray) else np.asarray(X)
    if arr.dtype.kind in "US" and not isinstance(X, np.ndarray):
        # Lists that mix strings and numbers would be stringified by np.asarray.
        arr = np.asarray(X, dtype=object)
    _shape_errors(arr, name)
    kind = arr.dtype.kind
    n_samples, n_features = arr.shape
    if kind == "c":
        raise ValueError(f"Complex data not supported\n{arr!r}\n")
    if kind in "biuf":
        return _Columns(
            n_samples, n_features,
            [("numeric", _numeric_2d(arr), np.arange(n_features, dtype=np.intp))],
        )
    if kind != "O":
        arr = arr.astype(object)
    return _Columns(
        n_samples, n_features,
        [("object_rows", _writeable(arr), np.arange(n_features, dtype=np.intp))],
    )


def _dataframe_columns(X, name):
    shape = X.shape
    if len(shape) != 2:
        raise ValueError(f"Found array with dim {len(shape)}. {name} expected <= 2.")
    n_samples, n_features = shape
    if n_samples == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={shape}) while a minimum of 1 "
            f"is required by {name}."
        )
    if n_features == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={shape}) while a minimum of 1 "
            f"is required by {name}."
        )
    dtypes = list(X.dtypes)
    if all(isinstance(dt, np.dtype) and dt.kind in "biuf" for dt in dtypes) and (
        len(set(dtypes)) == 1
    ):
        arr = np.asarray(X.to_numpy())
        return _Columns(
            n_samples, n_features,
            [("numeric", _numeric_2d(arr), np.arange(n_features, dtype=np.intp))],
        )
    blocks = []
    for j, dtype in enumerate(dtypes):
        column = X.iloc[:, j]
        if _is_pandas_categorical(dtype):
            codes = np.asarray(column.cat.codes.to_numpy(), dtype=np.int64)
            categories = _writeable(
                np.asarray(column.cat.categories.to_numpy(dtype=object)))
            blocks.append(("categorical", codes, categories, j))
        elif isinstance(dtype, np.dtype) and dtype.kind in "biuf":
            values = np.asarray(column.to_numpy()).reshape(-1, 1)
            blocks.append(("numeric", _numeric_2d(values), np.array([j], dtype=np.intp)))
        else:
            blocks.append(
                ("object", _writeable(np.asarray(column.to_numpy(dtype=object))), j))
    return _Columns(n_samples, n_features, blocks)


def _writeable(arr):
    # Cython object memoryviews cannot be const: copy read-only object arrays.
    return arr if arr.flags.writeable else arr.copy()


def _column_label(names, j):
    return f"{j} ({names[j]!r})" if names is not None else f"{j}"


def _raise_unhashable(column, j, names):
    for value in column:
        try:
            hash(value)
        except TypeError:
            raise TypeError(
                f"X column {_column_label(names, j)} holds an unhashable value "
                f"{value!r} of type {type(value).__name__}: every category value "
                "must be hashable (the argument must be a string, bytes, a number "
                "or another hashable value)."
            ) from None
    raise TypeError(f"X column {_column_label(names, j)} holds an unhashable value.")


def _encode_object_column(column, j, names):
    ids = np.empty(column.shape[0], dtype=np.int32)
    try:
        values, tags, keys = _kernels.encode_objects(column, ids)
    except TypeError:
        _raise_unhashable(column, j, names)
    return ids, values, tags, keys


def _canonical_values(tags, keys, objects):
    """The category values for (tag, key) pairs, canonical for numbers.

    Integers (and bools and integral floats) become int, other floats float; strings
    str and bytes (subclasses such as np.str_ included); other objects are kept. All ints: an int64 array; all
    non-integral floats: float64; anything else: object.
    """
    m = tags.shape[0]
    if m and np.all(tags == _TAG_INT):
        return keys.view(np.int64).copy()
    if m and np.all(tags == _TAG_FLOAT):
        return keys.view(np.float64).copy()
    if m == 0:
        return np.empty(0, dtype=np.int64)
    out = np.empty(m, dtype=object)
    as_int = keys.view(np.int64)
    as_float = keys.view(np.float64)
    for i in range(m):
        tag = tags[i]
        if tag == _TAG_INT:
            out[i] = int(as_int[i])
        elif tag == _TAG_UINT:
            out[i] = int(keys[i])
        elif tag == _TAG_FLOAT:
            out[i] = float(as_float[i])
        elif tag == _TAG_STR:
            out[i] = str(objects[i])  # np.str_ and other str subclasses: plain str
        elif tag == _TAG_BYTES:
            out[i] = bytes(objects[i])
        else:
            out[i] = objects[i]
    return out


def _sort_key(tag, value):
    if tag <= _TAG_FLOAT or tag == _TAG_BIGINT:
        return (0, value)
    if tag == _TAG_STR:
        return (1, str(value))
    if tag == _TAG_BYTES:
        return (2, bytes(value))
    return (3, type(value).__module__, type(value).__qualname__, repr(value))


def _sorted_order(values, tags):
    if values.dtype != object:
        return np.argsort(values, kind="stable")
    keys = [_sort_key(tags[i], values[i]) for i in range(values.shape[0])]
    return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)


# -- the file layout of a fitted CategoricalNB (see ``CategoricalNB._STATE_SPEC``) ----
_KIND_NAMES = ("code", "value", "bucket")
_KIND_CODES = {name: code for code, name in enumerate(_KIND_NAMES)}
# How one category value of a "value" feature is written.
_VALUE_INT, _VALUE_FLOAT, _VALUE_STR, _VALUE_BYTES, _VALUE_BIGINT = range(5)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _value_to_file(value, j):
    """(kind, int64, float64, bytes) of one category value, or a ValueError."""
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if _INT64_MIN <= value <= _INT64_MAX:
            return _VALUE_INT, value, 0.0, b""
        return _VALUE_BIGINT, 0, 0.0, str(value).encode("ascii")
    if isinstance(value, (float, np.floating)):
        return _VALUE_FLOAT, 0, float(value), b""
    if isinstance(value, str):
        return _VALUE_STR, 0, 0.0, str(value).encode("utf-8", "surrogatepass")
    if isinstance(value, bytes):
        return _VALUE_BYTES, 0, 0.0, bytes(value)
    raise ValueError(
        f"Cannot save a CategoricalNB whose feature {j} has the category {value!r} "
        f"of type {type(value).__name__}: only ints, floats, str and bytes "
        "categories can be saved without pickle."
    )


def _values_from_file(arrays):
    """The category values of the "value" features, in file order, as a list."""
    kind, as_int, as_float = arrays["value_kind"], arrays["value_int"], arrays[
        "value_float"]
    ends, text = arrays["value_text_end"], arrays["value_text"].tobytes()
    m = kind.shape[0]
    if not (as_int.shape[0] == as_float.shape[0] == ends.shape[0] == m):
        raise ValueError("the value_* arrays have different lengths")
    starts = np.concatenate([[0], ends[:-1]]) if m else ends
    if m and (np.any(ends < starts) or ends[-1] != len(text)):
        raise ValueError("value_text_end is not a valid offset table")
    if not m and len(text):
        raise ValueError("value_text holds bytes of no value")
    values = []
    for i in range(m):
        code, blob = int(kind[i]), text[starts[i]:ends[i]]
        if code not in (_VALUE_STR, _VALUE_BYTES, _VALUE_BIGINT) and blob:
            raise ValueError("a numeric category value has text")
        if code == _VALUE_INT:
            values.append(int(as_int[i]))
        elif code == _VALUE_FLOAT:
            value = float(as_float[i])
            # Integral floats in [-2**63, 2**64) are int categories, NaN is
            # missing: neither is a float category.
            if value != value or (-(2.0**63) <= value < 2.0**64
                                  and value == math.floor(value)):
                raise ValueError(f"{value!r} is not a float category")
            values.append(value)
        elif code == _VALUE_STR:
            values.append(blob.decode("utf-8", "surrogatepass"))
        elif code == _VALUE_BYTES:
            values.append(blob)
        elif code == _VALUE_BIGINT:
            decoded = blob.decode("ascii")
            value = int(decoded)
            if str(value) != decoded or _INT64_MIN <= value <= _INT64_MAX:
                raise ValueError(f"{decoded!r} is not a big integer category")
            values.append(value)
        else:
            raise ValueError(f"unknown category value kind {code}")
        if (code != _VALUE_INT and as_int[i] != 0) or (
                code != _VALUE_FLOAT and as_float[i] != 0):
            raise ValueError("a category value has stray fields")
    return values


def _value_feature(values, j):
    """The state of a "value" feature from its values: keys recomputed, checked."""
    objects = np.empty(len(values), dtype=object)
    objects[:] = values
    ids = np.empty(len(values), dtype=np.int32)
    distinct, tags, keys = _kernels.encode_objects(objects, ids)
    if len(distinct) != len(values):
        raise ValueError(f"the categories of feature {j} are not distinct")
    canonical = _canonical_values(tags, keys, objects)
    if not np.array_equal(_sorted_order(canonical, tags), np.arange(len(values))):
        raise ValueError(f"the categories of feature {j} are not sorted")
    tkeys, ttags, tvals, duplicate = _kernels.build_table(tags, keys)
    if duplicate is not None:
        raise ValueError(f"64-bit key collision in feature {j}")
    return {"values": canonical, "tags": tags, "keys": keys,
            "table": (tkeys, ttags, tvals)}


class _Batch:
    """What one fit call learned about one feature.

    Either dense code counts (``codes=True``: counts (n_codes, k)) or distinct
    keyed values (tags, keys, objects, counts (m, k)).
    """

    __slots__ = ("codes", "counts", "tags", "keys", "objects", "buckets", "values_only")

    def __init__(self, codes, counts, tags=None, keys=None, objects=None,
                 buckets=False, values_only=False):
        self.codes = codes
        self.counts = counts
        self.buckets = buckets
        # A value feature of another model (merge): its data held a non-code
        # value (perhaps with zero weight), so it never turns into codes.
        self.values_only = values_only
        self.tags = tags
        self.keys = keys
        self.objects = objects

    def as_values(self):
        if not self.codes:
            return self
        index = np.flatnonzero(self.counts.sum(axis=1) > 0)
        return _Batch(False, self.counts[index], tags=np.full(index.size, _TAG_INT, np.uint8),
                      keys=index.astype(np.uint64), objects=None)

    def code_capable(self, codes_required):
        """Whether every value is an integer code (< _CODE_LIMIT unless required)."""
        if self.codes:
            return True
        if self.values_only or not np.all(self.tags == _TAG_INT):
            return False
        if self.keys.size == 0:
            return True
        as_int = self.keys.view(np.int64)
        if as_int.min() < 0:
            return False
        return codes_required or as_int.max() < _CODE_LIMIT

    def as_codes(self):
        if self.codes:
            return self
        codes = self.keys.view(np.int64)
        n_codes = int(codes.max()) + 1 if codes.size else 0
        counts = np.zeros((n_codes, self.counts.shape[1]))
        counts[codes] = self.counts
        return _Batch(True, counts)


class CategoricalNB(_BaseNB):
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
    pickle; see ``_STATE_SPEC``): ints, floats, str, bytes and ints beyond 64 bits.
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

    # The file layout (``fastnb.save``): d features, k classes, C = sum of
    # n_categories_ count columns, V category values of "value" features, T bytes.
    # feature_kind: 0 integer codes (categories 0..n-1), 1 values (sorted distinct
    # values, listed in the value_* arrays, feature after feature), 2 hash buckets.
    # A value is (value_kind, value_int, value_float, text): kind 0 int64 in
    # value_int, 1 float64 in value_float, 2 str (UTF-8), 3 bytes, 4 an int beyond
    # int64 (decimal); the text of value i is value_text[end[i-1]:end[i]]. Hash keys
    # and lookup tables are recomputed on load, by the same code as fit.
    _STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "feature_kind": (("d",), ("nonneg",)),
        "n_categories_": (("d",), ("nonneg",)),
        "category_count": (("k", "c"), ("finite", "nonneg")),
        "value_kind": (("v",), ("nonneg",)),
        "value_int": (("v",), ()),
        "value_float": (("v",), ()),
        "value_text_end": (("v",), ("nonneg",)),
        "value_text": (("t",), ("uint8",)),
    }

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
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.hash_buckets = hash_buckets
        self.n_threads = n_threads

    def _update_tags(self, tags):
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = False

    # -- fitting ---------------------------------------------------------------------
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
            List of all the classes that can possibly appear in the y vector.
            Must be provided at the first call to partial_fit, can be omitted in
            subsequent calls.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights applied to individual samples (1. for unweighted).

        Returns
        -------
        self : object
            Returns the instance itself.
        """
        return self._fit(X, y, classes, sample_weight, refit=False)

    def _validate_params(self):
        name = type(self).__name__
        check_alpha_param(self.alpha, name, allow_array=False)
        check_bool_param(self.force_alpha, "force_alpha", name)
        check_bool_param(self.fit_prior, "fit_prior", name)
        check_prior_param(self.class_prior, "class_prior", name)
        check_n_threads(self.n_threads, name)
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

    def _fit(self, X, y, classes, sample_weight, refit):
        """Validate, count in the kernels, merge on copies, and only then commit."""
        first_call = self._begin_fit(classes, refit)
        name = type(self).__name__
        columns = _columns_of(X, name)
        n_samples, n_features = columns.n_samples, columns.n_features
        y = check_y(y, n_samples, name)
        weights = check_sample_weight(sample_weight, n_samples)
        fitted_classes, codes = self._encode_targets(
            y, classes, refit=refit, first_call=first_call, n_features=n_features)
        n_classes = fitted_classes.shape[0]
        alpha = self._alpha()
        class_prior = self._checked_class_prior(n_classes)
        min_categories = self._min_categories(n_features)
        names = feature_names_of(X)

        old_kinds = None if first_call else self._kinds
        batches = self._count_batches(columns, codes, weights, n_classes, old_kinds,
                                      min_categories, names)
        class_count = np.bincount(
            codes, weights=weights, minlength=n_classes
        ).astype(np.float64)
        if refit and not class_count.sum() > 0:
            raise ValueError("The sum of sample_weight is zero: nothing to fit.")

        # Merge with the model learned so far, on new arrays: nothing is committed
        # until every feature has merged.
        features = []
        for j in range(n_features):
            old = None if first_call else self._feature_state(j)
            mc = None if min_categories is None else int(min_categories[j])
            features.append(self._merge_feature(old, batches[j], n_classes, mc, j, names))
        if not first_call:
            class_count = self.class_count_ + class_count
        self._commit(X, fitted_classes, class_count, features, alpha, class_prior,
                     reset=first_call)
        return self

    def _checked_class_prior(self, n_classes):
        return resolve_priors(self.class_prior, n_classes, name="class_prior", sum_to_one=False)

    def _count_batches(self, columns, codes, weights, k, old_kinds, min_categories,
                       names):
        """Run the counting kernels: one _Batch per feature."""
        n = columns.n_samples
        batches = [None] * columns.n_features
        n_threads = threads_for(self.n_threads, n * columns.n_features, "categorical_fit")
        if self.hash_buckets is not None:
            return self._count_buckets(columns, codes, weights, k, names, n_threads)
        for block in columns.blocks:
            kind = block[0]
            if kind == "numeric":
                _, X2d, features = block
                allowed = np.ones(features.size, dtype=bool)
                if old_kinds is not None:
                    allowed = np.array([old_kinds[f] == "code" for f in features],
                                       dtype=bool)
                todo = np.arange(features.size)
                if X2d.dtype.kind in "iu" and allowed.any():
                    # Small codes are checked and counted in one pass; columns with
                    # other values take the two-pass route below.
                    counts3, n_codes, over = _kernels.count_codes_capped(
                        X2d, _FUSED_CODE_CAP, codes, weights, k,
                        _chunk_count(n, X2d.shape[1] * _FUSED_CODE_CAP * k), n_threads)
                    done = allowed & ~over
                    for col in np.flatnonzero(done):
                        batches[features[col]] = _Batch(
                            True, counts3[col, :n_codes[col]].copy())
                    todo = np.flatnonzero(~done)
                    if todo.size == 0:
                        continue
                if X2d.dtype.kind in "iu":
                    umax = _kernels.int_umax(
                        X2d, _chunk_count(n, X2d.shape[1]), n_threads)
                    top = umax.astype(np.float64)
                    lo = np.where(umax < np.uint64(1 << 63), 0.0, -1.0)
                    hi = np.where(lo < 0, np.inf, top)
                    integral = np.ones(X2d.shape[1], dtype=bool)
                else:
                    lo, hi, integral = _kernels.column_ranges(X2d)
                is_code = integral & (lo >= 0) & (
                    (hi < _CODE_LIMIT) | (min_categories is not None)
                )
                is_code |= lo > hi  # no value at all: an empty code feature
                if min_categories is not None and not is_code.all():
                    bad = int(np.flatnonzero(~is_code)[0])
                    self._raise_not_codes(features[bad], names,
                                          float(np.nanmin(X2d[:, bad])), integral[bad])
                is_code &= allowed
                is_code = is_code[todo]
                code_cols = todo[is_code].astype(np.intp)
                hash_cols = todo[~is_code].astype(np.intp)
                if code_cols.size:
                    n_codes = np.where(lo[code_cols] > hi[code_cols], 0,
                                       hi[code_cols] + 1).astype(np.intp)
                    chunks = _chunk_count(n, int(n_codes.sum()) * k)
                    counts, offs = _kernels.count_codes(
                        X2d, code_cols, n_codes, codes, weights, k, chunks, n_threads)
                    for jj, col in enumerate(code_cols):
                        m = int(n_codes[jj])
                        block_counts = counts[offs[jj]:offs[jj] + m * k].reshape(m, k)
                        batches[features[col]] = _Batch(True, block_counts)
                if hash_cols.size:
                    found = _kernels.hash_count(X2d, hash_cols, codes, weights, k,
                                                n_threads)
                    for col, (tags, keys, counts) in zip(hash_cols, found):
                        batches[features[col]] = _Batch(False, counts, tags=tags,
                                                         keys=keys, objects=None)
            elif kind == "object_rows":
                _, X2d, features = block
                ids = np.empty((features.size, n), dtype=np.int32)
                try:
                    found = _kernels.encode_object_rows(X2d, features, ids)
                except TypeError as error:
                    j = int(features[error.args[1]]) if len(error.args) > 1 else 0
                    _raise_unhashable(X2d[:, j], j, names)
                for jj, (values, tags, keys) in enumerate(found):
                    counts = _kernels.count_ids(ids[jj], len(values), codes, weights, k)
                    batches[int(features[jj])] = _Batch(False, counts, tags=tags,
                                                        keys=keys, objects=values)
            elif kind == "object":
                _, column, j = block
                ids, values, tags, keys = _encode_object_column(column, j, names)
                counts = _kernels.count_ids(ids, len(values), codes, weights, k)
                batches[j] = _Batch(False, counts, tags=tags, keys=keys, objects=values)
            else:  # pandas Categorical: key each category once, then gather codes
                _, cat_codes, categories, j = block
                cat_ids, values, tags, keys = _encode_object_column(categories, j, names)
                ids = np.empty(n, dtype=np.int32)
                _kernels.gather_ids(cat_ids, cat_codes, ids)
                counts = _kernels.count_ids(ids, len(values), codes, weights, k)
                batches[j] = _Batch(False, counts, tags=tags, keys=keys, objects=values)
        if min_categories is not None:
            for j, batch in enumerate(batches):
                if not batch.code_capable(True):
                    self._raise_not_codes(j, names, None, None, batch)
        return batches

    def _count_buckets(self, columns, codes, weights, k, names, n_threads):
        """Feature hashing: (n_buckets, k) counts per feature, no per-value state."""
        n, n_buckets = columns.n_samples, int(self.hash_buckets)
        batches = [None] * columns.n_features

        def bucket_ids(X2d, features):
            ids = np.empty((features.size, X2d.shape[0]), dtype=np.int32)
            try:
                _kernels.bucket_object_rows(X2d, features, n_buckets, ids)
            except TypeError as error:
                j = int(features[error.args[1]]) if len(error.args) > 1 else 0
                _raise_unhashable(X2d[:, j], j, names)
            return ids

        for block in columns.blocks:
            kind = block[0]
            if kind == "numeric":
                _, X2d, features = block
                counts = _kernels.bucket_count(X2d, np.arange(X2d.shape[1], dtype=np.intp),
                                               codes, weights, k, n_buckets, n_threads)
                for col, j in enumerate(features):
                    batches[int(j)] = _Batch(False, counts[col], buckets=True)
                continue
            if kind == "object_rows":
                _, X2d, features = block
                ids = bucket_ids(X2d, features)
                found = list(zip(features, ids))
            elif kind == "object":
                _, column, j = block
                ids = bucket_ids(column.reshape(-1, 1), np.array([0], dtype=np.intp))
                found = [(j, ids[0])]
            else:
                _, cat_codes, categories, j = block
                lut = bucket_ids(categories.reshape(-1, 1), np.array([0], dtype=np.intp))
                ids = np.empty(n, dtype=np.int32)
                _kernels.gather_ids(lut[0], cat_codes, ids)
                found = [(j, ids)]
            for j, column_ids in found:
                batches[int(j)] = _Batch(
                    False, _kernels.count_ids(column_ids, n_buckets, codes, weights, k),
                    buckets=True)
        return batches

    def _raise_not_codes(self, j, names, lo, integral, batch=None):
        if batch is not None:
            bad = [i for i in range(batch.tags.size)
                   if batch.tags[i] != _TAG_INT or batch.keys.view(np.int64)[i] < 0]
            value = batch.objects[bad[0]] if batch.objects is not None else (
                batch.keys.view(np.int64)[bad[0]])
            what = f"the value {value!r}"
        elif not integral:
            what = "a non-integer value"
        else:
            what = f"the negative code {lo:g}"
        raise ValueError(
            f"min_categories is set, so X must hold integer category codes 0..n-1, "
            f"but feature {_column_label(names, j)} has {what}. Negative codes and "
            "non-integer values are only accepted with min_categories=None."
        )

    def _feature_state(self, j):
        return {
            "kind": self._kinds[j],
            "counts": self.category_count_[j],
            "values": self.categories_[j],
            "tags": self._cat_tags[j],
            "keys": self._cat_keys[j],
            "table": self._tables[j],
        }

    def _merge_feature(self, old, batch, k, min_cat, j, names):
        """The new state of feature j: old state (or None) plus one batch."""
        if batch.buckets:
            counts = batch.counts.T.copy()
            if old is not None:
                counts += old["counts"]
            return {"kind": "bucket", "counts": counts, "values": None, "tags": None,
                    "keys": None, "table": None}
        stays_code = (old is None or old["kind"] == "code") and batch.code_capable(
            min_cat is not None)
        if stays_code:
            batch = batch.as_codes()
            n_old = 0 if old is None else old["counts"].shape[1]
            n_new = max(n_old, batch.counts.shape[0], min_cat or 0)
            counts = np.zeros((k, n_new))
            if old is not None:
                counts[:, :n_old] = old["counts"]
            m = batch.counts.shape[0]
            counts[:, :m] += batch.counts.T
            return {"kind": "code", "counts": counts,
                    "values": np.arange(n_new, dtype=np.int64), "tags": None,
                    "keys": None, "table": None}

        batch = batch.as_values()
        if old is None:
            old_values = np.empty(0, dtype=np.int64)
            old_tags = np.empty(0, dtype=np.uint8)
            old_keys = np.empty(0, dtype=np.uint64)
            old_counts = np.zeros((k, 0))
            table = None
        elif old["kind"] == "code":
            index = np.flatnonzero(old["counts"].sum(axis=0) > 0)
            old_values = index.astype(np.int64)
            old_tags = np.full(index.size, _TAG_INT, dtype=np.uint8)
            old_keys = index.astype(np.uint64)
            old_counts = old["counts"][:, index]
            table = None
        else:
            old_values, old_tags, old_keys = old["values"], old["tags"], old["keys"]
            old_counts = old["counts"]
            table = old["table"]
        if table is None:
            table = _kernels.build_table(old_tags, old_keys)[:3]
        position = _kernels.lookup_table(*table, batch.tags, batch.keys)
        known = position >= 0
        # str/bytes/other keys are 64-bit hashes: compare the values themselves.
        if batch.objects is not None:
            for i in np.flatnonzero(known & (batch.tags >= _TAG_STR)):
                if not bool(old_values[position[i]] == batch.objects[i]):
                    raise ValueError(
                        f"64-bit key collision in feature {_column_label(names, j)} "
                        f"between {old_values[position[i]]!r} and "
                        f"{batch.objects[i]!r}."
                    )
        # A value is a category once it has carried weight: zero-weight samples are
        # as if absent (scikit-learn's sample-weight equivalence).
        new = np.flatnonzero(~known & (batch.counts.sum(axis=1) > 0))
        new_objects = None
        if batch.objects is not None:
            new_objects = [batch.objects[i] for i in new]
        new_values = _canonical_values(batch.tags[new], batch.keys[new], new_objects)
        if old_values.size == 0:
            values = new_values
        elif new_values.size == 0:
            values = old_values
        elif old_values.dtype == new_values.dtype and old_values.dtype != object:
            values = np.concatenate([old_values, new_values])
        else:
            values = np.empty(old_values.size + new_values.size, dtype=object)
            values[:old_values.size] = list(old_values.tolist()) if (
                old_values.dtype != object) else old_values
            values[old_values.size:] = list(new_values.tolist()) if (
                new_values.dtype != object) else new_values
        tags = np.concatenate([old_tags, batch.tags[new]])
        keys = np.concatenate([old_keys, batch.keys[new]])
        counts = np.zeros((k, values.size))
        counts[:, :old_values.size] = old_counts
        counts[:, old_values.size:] = batch.counts[new].T
        counts[:, position[known]] += batch.counts[known].T
        if new.size:
            order = _sorted_order(values, tags)
            values, tags, keys = values[order], tags[order], keys[order]
            counts = counts[:, order]
            tkeys, ttags, tvals, duplicate = _kernels.build_table(tags, keys)
            if duplicate is not None:
                a, b = duplicate
                raise ValueError(
                    f"64-bit key collision in feature {_column_label(names, j)} "
                    f"between {values[a]!r} and {values[b]!r}."
                )
            table = (tkeys, ttags, tvals)
        return {"kind": "value", "counts": np.ascontiguousarray(counts),
                "values": values, "tags": tags, "keys": keys, "table": table}

    def _commit(self, X, classes, class_count, features, alpha, class_prior, reset):
        k = classes.shape[0]
        feature_log_prob = []
        lp_blocks = []
        lp_off = np.zeros(len(features), dtype=np.intp)
        modes = np.zeros(len(features), dtype=np.int32)
        n_cat = np.zeros(len(features), dtype=np.intp)
        kp = 4 if k <= 4 else 8 if k <= 8 else k
        table_parts = [(np.zeros(1, np.uint64), np.zeros(1, np.uint8),
                        np.full(1, -1, np.int64))]
        toff = np.zeros(len(features), dtype=np.intp)
        tmask = np.zeros(len(features), dtype=np.intp)
        offset, table_offset = 0, 1
        with np.errstate(divide="ignore", invalid="ignore"):
            for j, feature in enumerate(features):
                smoothed = feature["counts"] + alpha
                total = smoothed.sum(axis=1).reshape(-1, 1)
                log_total = np.log(total)
                flp = np.log(smoothed) - log_total
                # A feature with no value at all (every sample missing) carries
                # no information: its term is log 1 = 0, not log(alpha / 0).
                unseen = np.where(total == 0, 0.0, np.log(alpha) - log_total).reshape(1, -1)
                feature_log_prob.append(flp)
                block = np.zeros((flp.shape[1] + 1, kp))
                block[:-1, :k] = flp.T
                block[-1, :k] = unseen
                lp_blocks.append(block.ravel())
                lp_off[j] = offset
                offset += lp_blocks[-1].size
                n_cat[j] = flp.shape[1]
                if feature["kind"] == "code":
                    modes[j] = _FEAT_CODE
                elif feature["kind"] == "bucket":
                    modes[j] = _FEAT_BUCKET
                else:
                    modes[j] = _FEAT_HASH
                    tkeys, ttags, tvals = feature["table"]
                    table_parts.append((tkeys, ttags, tvals))
                    toff[j] = table_offset
                    tmask[j] = tkeys.size - 1
                    table_offset += tkeys.size
            if class_prior is not None:
                class_log_prior = np.log(class_prior)
            elif self.fit_prior:
                class_log_prior = np.log(class_count) - np.log(class_count.sum())
            else:
                class_log_prior = np.full(k, -np.log(k))

        # All validation is done: commit the new state (X None: a restore or a
        # merge, whose caller sets the feature names).
        if X is not None:
            self._check_feature_names(X, reset=reset)
        if reset:
            self.n_features_in_ = len(features)
        self.classes_ = classes
        self.class_count_ = class_count
        self.class_log_prior_ = class_log_prior
        self.category_count_ = [f["counts"] for f in features]
        self.feature_log_prob_ = feature_log_prob
        self.n_categories_ = n_cat.astype(np.int64)
        self.categories_ = [f["values"] for f in features]
        self._kinds = [f["kind"] for f in features]
        self._cat_tags = [f["tags"] for f in features]
        self._cat_keys = [f["keys"] for f in features]
        self._tables = [f["table"] for f in features]
        self._lp = np.concatenate(lp_blocks)
        self._lp_off = lp_off
        self._kp = kp
        self._modes = modes
        self._n_cat = n_cat
        self._tkeys = np.concatenate([p[0] for p in table_parts])
        self._ttags = np.concatenate([p[1] for p in table_parts])
        self._tvals = np.concatenate([p[2] for p in table_parts])
        self._toff = toff
        self._tmask = tmask
        self._log_prior = np.ascontiguousarray(class_log_prior, dtype=np.float64)

    # -- persistence and merging -------------------------------------------------------
    def _sufficient_state(self):
        """The model as plain arrays (see ``_STATE_SPEC`` and the module notes)."""
        kinds = np.array([_KIND_CODES[kind] for kind in self._kinds], dtype=np.int64)
        counts = [np.asarray(c, dtype=np.float64) for c in self.category_count_]
        value_kind, value_int, value_float, text_end, text = [], [], [], [], []
        end = 0
        for j, kind in enumerate(self._kinds):
            if kind != "value":
                continue
            for value in self.categories_[j]:
                code, as_int, as_float, blob = _value_to_file(value, j)
                value_kind.append(code)
                value_int.append(as_int)
                value_float.append(as_float)
                text.append(blob)
                end += len(blob)
                text_end.append(end)
        return {
            "class_count_": np.asarray(self.class_count_, dtype=np.float64),
            "feature_kind": kinds,
            "n_categories_": np.asarray(self.n_categories_, dtype=np.int64),
            "category_count": np.ascontiguousarray(
                np.concatenate(counts, axis=1) if counts else np.zeros((0, 0))),
            "value_kind": np.array(value_kind, dtype=np.int64),
            "value_int": np.array(value_int, dtype=np.int64),
            "value_float": np.array(value_float, dtype=np.float64),
            "value_text_end": np.array(text_end, dtype=np.int64),
            "value_text": np.frombuffer(b"".join(text), dtype=np.uint8).copy(),
        }

    def _restore(self, classes, arrays, n_features, feature_names):
        """Rebuild the fitted model from ``_sufficient_state`` arrays, validated."""
        self._validate_params()
        k = classes.shape[0]
        alpha = self._alpha()
        class_prior = self._checked_class_prior(k)
        min_categories = self._min_categories(n_features)
        class_count = arrays["class_count_"]
        if not class_count.sum() > 0:
            raise ValueError("class_count_ sums to zero")
        kinds, n_cat = arrays["feature_kind"], arrays["n_categories_"]
        if np.any((kinds < 0) | (kinds >= len(_KIND_NAMES))):
            raise ValueError("feature_kind holds an unknown kind")
        if self.hash_buckets is not None:
            if np.any(kinds != _KIND_CODES["bucket"]) or np.any(
                    n_cat != self.hash_buckets):
                raise ValueError("hash_buckets is set: every feature must have "
                                 "hash_buckets buckets")
        elif np.any(kinds == _KIND_CODES["bucket"]):
            raise ValueError("a bucket feature without hash_buckets")
        if min_categories is not None and (
                np.any(kinds != _KIND_CODES["code"]) or np.any(n_cat < min_categories)):
            raise ValueError("min_categories is set: every feature must be integer "
                             "codes with at least min_categories categories")
        all_counts = arrays["category_count"]
        if all_counts.shape[1] != int(n_cat.sum()):
            raise ValueError("category_count does not have sum(n_categories_) columns")
        values = _values_from_file(arrays)
        is_value = kinds == _KIND_CODES["value"]
        if len(values) != int(n_cat[is_value].sum()):
            raise ValueError("the category values do not match n_categories_")
        bounds = np.concatenate([[0], np.cumsum(n_cat)])
        value_bounds = np.concatenate([[0], np.cumsum(np.where(is_value, n_cat, 0))])
        features = []
        for j in range(n_features):
            counts = np.ascontiguousarray(all_counts[:, bounds[j]:bounds[j + 1]])
            if np.any(counts.sum(axis=1) > class_count * (1 + 1e-9) + 1e-9):
                raise ValueError(f"category_count of feature {j} exceeds class_count_")
            kind = _KIND_NAMES[int(kinds[j])]
            feature = {"kind": kind, "counts": counts, "values": None, "tags": None,
                       "keys": None, "table": None}
            if kind == "code":
                feature["values"] = np.arange(counts.shape[1], dtype=np.int64)
            elif kind == "value":
                feature.update(_value_feature(
                    values[value_bounds[j]:value_bounds[j + 1]], j))
            features.append(feature)
        self._commit(None, classes, class_count, features, alpha, class_prior,
                     reset=True)
        self._finish_restore(n_features, feature_names)

    def _merged_with(self, other):
        """The model fitted on both models' data: categories unioned, counts added."""
        classes, where_a, where_b = union_classes(self.classes_, other.classes_)
        k = classes.shape[0]
        n_features = self.n_features_in_
        names = getattr(self, "feature_names_in_", None)
        min_categories = self._min_categories(n_features)

        def realigned(counts, where):
            out = np.zeros((k, counts.shape[1]))
            out[where] = counts
            return out

        features = []
        for j in range(n_features):
            old = self._feature_state(j)
            old["counts"] = realigned(old["counts"], where_a)
            theirs = other._feature_state(j)
            counts = realigned(theirs["counts"], where_b).T
            if theirs["kind"] == "bucket":
                batch = _Batch(False, counts, buckets=True)
            elif theirs["kind"] == "code":
                batch = _Batch(True, counts)
            else:
                objects = np.empty(theirs["values"].size, dtype=object)
                objects[:] = theirs["values"].tolist()
                batch = _Batch(False, counts, tags=theirs["tags"], keys=theirs["keys"],
                               objects=objects, values_only=True)
            mc = None if min_categories is None else int(min_categories[j])
            features.append(self._merge_feature(old, batch, k, mc, j, names))
        class_count = np.zeros(k)
        class_count[where_a] += self.class_count_
        class_count[where_b] += other.class_count_
        merged = type(self)(**self.get_params())
        merged._commit(None, classes, class_count, features, merged._alpha(),
                       merged._checked_class_prior(k), reset=True)
        merged._finish_restore(n_features, names)
        return merged

    # -- prediction ------------------------------------------------------------------
    def _check_predict_X(self, X):
        self._check_fitted()
        name = type(self).__name__
        if not (isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype in _KERNEL_DTYPES
                and X.flags.c_contiguous and X.shape[0] > 0):
            columns = _columns_of(X, name)
        else:
            columns = _Columns(X.shape[0], X.shape[1],
                               [("numeric", X, np.arange(X.shape[1], dtype=np.intp))])
        if hasattr(self, "feature_names_in_") or not isinstance(X, np.ndarray):
            self._check_feature_names(X, reset=False)
        if columns.n_features != self.n_features_in_:
            raise ValueError(
                f"X has {columns.n_features} features, but {name} is expecting "
                f"{self.n_features_in_} features as input."
            )
        if columns.single_numeric:
            return _Prepared(columns.blocks[0][1], self._modes)
        return _Prepared(self._resolve(columns),
                         np.full_like(self._modes, _FEAT_RESOLVED))

    def _resolve(self, columns):
        """Table row of every value: (n, d) int32, -1 missing, n_cat unseen."""
        resolved = np.empty((columns.n_samples, columns.n_features), dtype=np.int32)
        tables = (self._tkeys, self._ttags, self._tvals)
        names = getattr(self, "feature_names_in_", None)
        if columns.blocks[0][0] == "object_rows":
            X2d = columns.blocks[0][1]
            try:
                _kernels.resolve_object_rows(
                    X2d, self._modes, self._n_cat, *tables, self._toff, self._tmask,
                    list(self.categories_), resolved)
            except TypeError as error:
                j = int(error.args[1]) if len(error.args) > 1 else 0
                _raise_unhashable(X2d[:, j], j, names)
            return resolved
        for block in columns.blocks:
            if block[0] == "numeric":
                _, X2d, features = block
                for col, j in enumerate(features):
                    _kernels.resolve_numeric(
                        X2d, col, self._modes[j], self._n_cat[j], *tables,
                        self._toff[j], self._tmask[j], resolved, j)
            else:
                if block[0] == "object":
                    _, column, j = block
                else:
                    _, cat_codes, column, j = block
                target = resolved
                if block[0] == "categorical":
                    target = np.empty((column.shape[0], 1), dtype=np.int32)
                try:
                    _kernels.resolve_objects(
                        column, self._modes[j], self._n_cat[j], *tables,
                        self._toff[j], self._tmask[j], self.categories_[j], target,
                        j if block[0] == "object" else 0)
                except TypeError:
                    _raise_unhashable(column, j, names)
                if block[0] == "categorical":
                    lut = target[:, 0]
                    resolved[:, j] = np.where(cat_codes < 0, -1,
                                              lut[np.maximum(cat_codes, 0)]) if (
                        lut.size) else -1
        return resolved

    def _run_predict_kernel(self, X, mode, labels_out, out):
        values, modes = X.values, X.modes
        n_threads = self._predict_threads(values.shape[0],
                                          values.shape[1] * self.classes_.size)
        _kernels.categorical_predict(
            values, modes, self._n_cat, self._lp, self._lp_off, self._kp, self._tkeys,
            self._ttags, self._tvals, self._toff, self._tmask, self._log_prior, mode,
            labels_out, out, n_threads,
        )


class _Prepared:
    """Predict input ready for the kernel: values and how to read each column."""

    __slots__ = ("values", "modes", "shape")

    def __init__(self, values, modes):
        self.values = values
        self.modes = modes
        self.shape = values.shape
