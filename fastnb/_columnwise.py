"""ColumnwiseNB: one Naive Bayes model over a table of mixed columns.

The mathematics
---------------
Naive Bayes assumes the features independent given the class, so the joint
log-likelihood of a row splits over any partition of its columns::

    jll(x)[c] = log P(c) + sum over sub-models m of (jll_m(x_m)[c] - log P_m(c))

where ``jll_m`` is the joint log-likelihood of sub-model m on its own columns
``x_m`` and ``log P_m`` the log prior it includes. The priors (``priors``, or the
class frequencies) belong to ColumnwiseNB alone; every sub-model is fitted on the
same ``y`` and ``sample_weight`` and so shares ``classes_``.

How the data moves
------------------
X is never converted as a whole. ``_Table`` keeps the columns where they live (the
columns of a NumPy array; for a DataFrame each column as its NumPy array, a view
where pandas allows, or as its pandas extension array), and hands each sub-model
its own columns in the kind its kernel reads: numbers as numbers, bools as bools,
strings and objects as they are to CategoricalNB's hashed counts (a pandas string
column is factorised first, so its strings are keyed once per distinct value
instead of once per row). Prediction runs in blocks of ``_PREDICT_BLOCK_ROWS``
rows: the first sub-model's ordinary kernel writes its joint log-likelihood for
the block into the block's total, each other one into a scratch buffer that
``add_block`` adds (with every prior term in one per-class bias), and the last
addition also takes the arg-max or normalises in place. The extra memory of a
predict call is therefore its output plus a fixed block of scratch per thread,
whatever n is.

The interface ColumnwiseNB uses of a sub-model
----------------------------------------------
Only these, which every fastnb estimator it accepts provides (keep them when
refactoring the estimators):

- ``fit(X, y, sample_weight)`` and ``partial_fit(X, y, classes, sample_weight)``
  (a later call with ``classes=None``), atomic on failure;
- ``classes_``, ``class_count_`` and the log prior its joint log-likelihood
  includes: ``class_log_prior_``, or ``log(class_prior_)`` for GaussianNB;
- ``_check_predict_X(X)``, returning what its kernel reads, with ``.shape``;
- ``_run_predict_kernel(X, MODE_JLL, None, out)``, writing the (rows, k) joint
  log-likelihood into the C-contiguous float64 ``out``;
- ``get_params(deep=False)``, ``n_threads``, ``_STATE_SPEC``,
  ``_sufficient_state()``, ``_restore(classes, arrays, n_features, None)`` and
  ``fastnb.merge`` for persistence and merging.
"""

import copy
import json
from numbers import Integral

import numpy as np

from ._base import MODE_ARGMAX, MODE_JLL, _BaseNB
from ._categorical import CategoricalNB
from ._discrete import BernoulliNB, ComplementNB, MultinomialNB
from ._dispatch import load_kernels
from ._gaussian import GaussianNB
from ._params import check_n_threads, check_prior_param, param_error, resolve_priors
from ._persist import _json_param, _param_from_json, check_state, merge, union_classes
from ._threads import threads_for
from ._validation import _shape_errors, check_y, feature_names_of, is_sparse

__all__ = ["ColumnwiseNB"]

_kernels = load_kernels("_columnwise_kernels")

# Rows per predict block: each predicting thread's scratch is two (rows, k)
# float64 buffers plus each sub-model's input for the block, fixed whatever n is;
# 65,536 rows keep the per-block Python and pandas overhead to a few percent.
_PREDICT_BLOCK_ROWS = 1 << 16
# Rows per band when columns are copied side by side (see _stack_columns).
_STACK_ROWS = 4096
# "auto": an integer column with at most this many distinct values is categorical.
AUTO_MAX_INTEGER_CATEGORIES = 32

# The sub-models ColumnwiseNB combines: generative models whose joint
# log-likelihood is log prior + log P(x | c). ComplementNB's scores are not.
_SUB_MODELS = {cls.__name__: cls for cls in (GaussianNB, BernoulliNB, MultinomialNB,
                                             CategoricalNB)}
# The parameters through which a sub-model would bring priors of its own.
_OWN_PRIOR_PARAMS = {"priors": None, "class_prior": None, "fit_prior": True}


def _is_dataframe(X):
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


def _is_extension(column):
    """A pandas Series of an extension dtype (category, str, Int64, boolean, ...)."""
    return not isinstance(column, np.ndarray)


class _Table:
    """X as columns, each read where it lives (see the module notes).

    ``array``: the 2d ndarray (NumPy or list input), or None for a DataFrame, whose
    columns are in ``columns`` (1d ndarrays, or pandas Series of extension dtypes).
    ``labels``: the DataFrame's column labels (None for arrays).
    """

    def __init__(self, X, name):
        if is_sparse(X):
            raise TypeError(
                "Sparse data was passed for X, but dense data is required. Use "
                f"'.toarray()' to convert to a dense numpy array: {name} does not "
                "accept sparse input."
            )
        self.array = self.columns = self.labels = None
        if _is_dataframe(X):
            shape = X.shape
            if len(shape) != 2:
                raise ValueError(f"Found array with dim {len(shape)}. {name} expected <= 2.")
            _shape_errors(np.empty(shape, dtype=np.bool_), name)
            self.labels = list(X.columns)
            self.columns = [series.to_numpy() if isinstance(series.dtype, np.dtype)
                            else series for _, series in X.items()]
        else:
            array = X if isinstance(X, np.ndarray) else np.asarray(X)
            if array.dtype.kind in "US" and not isinstance(X, np.ndarray):
                # Lists that mix strings and numbers: np.asarray would stringify all.
                array = np.asarray(X, dtype=object)
            _shape_errors(array, name)
            if array.dtype.kind == "c":
                raise ValueError(f"Complex data not supported\n{array!r}\n")
            self.array = array
        self.n_samples, self.n_columns = X.shape if self.array is None else array.shape
        self.shape = (self.n_samples, self.n_columns)

    def column(self, j):
        return self.array[:, j] if self.array is not None else self.columns[j]

    def block(self, columns, start, stop, categorical):
        """Rows start:stop of the given columns, as a sub-model reads them.

        ``categorical``: for CategoricalNB (values as they are); otherwise numbers.
        """
        if self.array is not None:
            rows = self.array[start:stop]
            if not np.array_equal(columns, np.arange(self.n_columns)):
                rows = rows[:, columns]
            if not categorical and rows.dtype.kind in "OUS":
                rows = _as_float(rows)
            return rows
        parts = [self.columns[j] for j in columns]
        if categorical and any(
                _is_extension(p) or p.dtype.kind in "OUS" for p in parts):
            return self._categorical_frame(parts, start, stop)
        pieces = [_numeric_piece(part, start, stop, categorical) for part in parts]
        if len(pieces) == 1:
            return pieces[0].reshape(-1, 1)
        return _stack_columns(pieces)

    @staticmethod
    def _categorical_frame(parts, start, stop):
        """A DataFrame (unnamed columns) of category columns for CategoricalNB."""
        import pandas as pd

        columns = {}
        for i, part in enumerate(parts):
            if not _is_extension(part):
                columns[i] = part[start:stop]
            elif isinstance(part.dtype, pd.CategoricalDtype):
                columns[i] = part.array[start:stop]
            elif isinstance(part.dtype, pd.StringDtype):
                # Key each distinct string once, not once per row.
                codes, uniques = part.array[start:stop].factorize()
                columns[i] = pd.Categorical.from_codes(codes, categories=uniques,
                                                       validate=False)
            else:
                columns[i] = part.array[start:stop]
        return pd.DataFrame(columns, copy=False)


def _stack_columns(pieces):
    """The columns side by side, C-ordered, as np.column_stack gives them, but
    filled a band of ``_STACK_ROWS`` rows at a time: the strided writes stay in
    cache (2-4x faster than column_stack on a million rows)."""
    n = pieces[0].shape[0]
    out = np.empty((n, len(pieces)), dtype=np.result_type(*pieces))
    for start in range(0, n, _STACK_ROWS):
        stop = start + _STACK_ROWS
        for j, piece in enumerate(pieces):
            out[start:stop, j] = piece[start:stop]
    return out


def _as_float(values):
    """Object or string values as float64 (None -> NaN), or a clear error. A
    TypeError stays a TypeError (an unhashable or odd object), as in NumPy."""
    try:
        return np.array(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise type(error)(
            f"X holds values that are not numbers ({error}); give such columns to a "
            "CategoricalNB."
        ) from None


def _numeric_piece(part, start, stop, categorical):
    if not _is_extension(part):
        piece = part[start:stop]
        return piece if categorical or piece.dtype.kind not in "OUS" else _as_float(piece)
    try:
        return part.iloc[start:stop].to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        return _as_float(part.iloc[start:stop].to_numpy(dtype=object))


# -- "auto": one sub-model per kind of column ----------------------------------------

def _object_kind(values):
    """The kind of an object column from the types of its values."""
    kinds = set()
    for kind in map(type, values):
        if kind is bool or kind is np.bool_:
            kinds.add("bool")
        elif kind is type(None):
            continue
        elif issubclass(kind, (int, np.integer)):
            kinds.add("int")
        elif issubclass(kind, (float, np.floating)):
            kinds.add("float")
        else:
            return "categorical"
    if not kinds:
        return "categorical"
    if kinds == {"bool"}:
        return "bernoulli"
    if kinds == {"int"}:
        present = np.array([v for v in values if v is not None], dtype=object)
        return _integer_kind(present)
    if "bool" in kinds:
        return "categorical"
    return "gaussian"


def _integer_kind(values):
    try:
        distinct = np.unique(values).shape[0]
    except TypeError:
        distinct = AUTO_MAX_INTEGER_CATEGORIES + 1
    return "categorical" if distinct <= AUTO_MAX_INTEGER_CATEGORIES else "gaussian"


def _auto_kind(column, label):
    """'gaussian', 'bernoulli' or 'categorical' for one column (see ColumnwiseNB)."""
    dtype = column.dtype
    if _is_extension(column):
        import pandas as pd

        if isinstance(dtype, (pd.CategoricalDtype, pd.StringDtype)):
            return "categorical"
        values = column.dropna().to_numpy()
        kind = getattr(dtype, "kind", "O")
    else:
        values, kind = column, dtype.kind
    if kind == "b":
        return "bernoulli"
    if kind == "f":
        return "gaussian"
    if kind in "iu":
        return _integer_kind(values)
    if kind in "OUS":
        return _object_kind(values) if kind == "O" else "categorical"
    raise TypeError(
        f"Column {label!r} has dtype {dtype}, which ColumnwiseNB cannot model: "
        "convert it to numbers, bools or categories first."
    )


_AUTO_ESTIMATORS = (
    ("gaussian", GaussianNB),
    ("bernoulli", BernoulliNB),
    ("categorical", CategoricalNB),
)


# -- column selection ----------------------------------------------------------------

def _column_positions(spec, table, X, owner):
    """The column positions a selection names (ColumnTransformer's conventions)."""
    if callable(spec):
        spec = spec(X)
    d = table.n_columns
    if isinstance(spec, slice):
        if isinstance(spec.start, str) or isinstance(spec.stop, str):
            start = 0 if spec.start is None else _name_positions(
                [spec.start], table, owner)[0]
            stop = d if spec.stop is None else _name_positions(
                [spec.stop], table, owner)[0] + 1  # label slices include their end
            return np.arange(d)[start:stop:spec.step]
        return np.arange(d)[spec]
    if isinstance(spec, (str, Integral)):
        spec = [spec]
    selection = np.asarray(spec)
    if selection.ndim != 1:
        error = TypeError if selection.ndim == 0 else ValueError
        raise error(
            f"The columns of {owner} must be ints, str names, a slice, a boolean mask "
            f"or a callable (a 1d selection), got {spec!r}."
        )
    if selection.size == 0:
        return np.empty(0, dtype=np.intp)
    if selection.dtype.kind == "b":
        if selection.shape[0] != d:
            raise ValueError(
                f"The boolean mask of {owner} has {selection.shape[0]} entries for "
                f"{d} columns."
            )
        return np.flatnonzero(selection)
    if selection.dtype.kind in "iu":
        if np.any(selection < -d) or np.any(selection >= d):
            raise ValueError(
                f"Column index {spec!r} of {owner} is out of range for X with {d} "
                "columns."
            )
        return (selection % d).astype(np.intp)
    if all(isinstance(s, str) for s in selection.tolist()):
        return _name_positions(selection.tolist(), table, owner)
    raise TypeError(
        f"The columns of {owner} must be ints, str names, a slice, a boolean mask or "
        f"a callable, got {spec!r}."
    )


def _name_positions(names, table, owner):
    if table.labels is None:
        raise ValueError(
            f"{owner} selects columns by name ({names!r}), which needs X to be a "
            "DataFrame with those columns."
        )
    where = {label: j for j, label in enumerate(table.labels)}
    unknown = [name for name in names if name not in where]
    if unknown:
        raise ValueError(
            f"Columns {unknown!r} of {owner} are not columns of X, whose columns are "
            f"{table.labels!r}."
        )
    return np.array([where[name] for name in names], dtype=np.intp)


def _included_log_prior(model):
    """The log prior that a fitted sub-model adds into its joint log-likelihood."""
    if isinstance(model, GaussianNB):
        with np.errstate(divide="ignore"):
            return np.log(model.class_prior_)
    return model.class_log_prior_


class ColumnwiseNB(_BaseNB):
    """Naive Bayes over a table of mixed columns: one model, a sub-model per kind.

    Numeric, binary, count and categorical columns each get the Naive Bayes model
    that fits them, and the sub-models' log-likelihoods add up, as Naive Bayes'
    independence assumption says they do::

        jll(x)[c] = log P(c) + sum_m (jll_m(x_m)[c] - log P_m(c))

    Each column block reaches its compiled kernel as it is (floats as floats,
    strings to CategoricalNB's hashed counts, bools as bytes): the table is never
    converted to one float64 or object matrix. Prediction sums the sub-models'
    joint log-likelihoods block by block into one scratch buffer and takes the
    arg-max or normalises in place, so its extra memory is its output plus a
    fixed block, whatever the number of rows.

    Parameters
    ----------
    estimators : "auto" or list of (name, estimator, columns) tuples, default="auto"
        ``"auto"`` chooses per column, from its dtype and values:

        - bool (NumPy or pandas ``boolean``) -> :class:`BernoulliNB`;
        - float -> :class:`GaussianNB`;
        - str, object, pandas ``category`` or ``string``, or an integer column with
          at most ``AUTO_MAX_INTEGER_CATEGORIES`` (32) distinct values ->
          :class:`CategoricalNB`; integers with more distinct values ->
          :class:`GaussianNB`. An object column whose values are all numbers
          (None allowed) is treated as those numbers, all bools as bools.

        One sub-model per kind is made (named ``"gaussian"``, ``"bernoulli"``,
        ``"categorical"``), over every column of that kind; ``estimators_`` and
        :meth:`summary` show the choice.

        A list gives the sub-models as scikit-learn's ``ColumnTransformer`` does:
        ``name`` a unique string, ``estimator`` an unfitted GaussianNB,
        BernoulliNB, MultinomialNB or CategoricalNB (cloned at fit; without priors
        of its own: ``priors``/``class_prior`` unset, ``fit_prior=True``) or
        ``"drop"``, and ``columns`` an int, a str name, a list of either, a slice
        (of names: inclusive), a boolean mask or a callable such as
        ``sklearn.compose.make_column_selector`` that returns one of these.
        A column may be given to one sub-model only.
    priors : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes (summing to 1). If None, the class
        frequencies of the training data.
    remainder : {"error", "drop"}, default="error"
        What to do with columns that no sub-model names: ``"error"`` raises a
        ValueError that lists them; ``"drop"`` leaves them out of the model.
    n_threads : int, default=None
        Threads for the kernels, of ColumnwiseNB and of every sub-model (it
        replaces their own ``n_threads``): None or -1 means all usable cores, -2
        all but one, and so on. Prediction shares blocks of rows out to the
        threads. Results are the same bits whatever the number.

    Attributes
    ----------
    estimators_ : list of (name, fitted estimator, columns) tuples
        The fitted sub-models, with the columns each models (names for a
        DataFrame, else positions).
    named_estimators_ : dict
        The fitted sub-models by name.
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training samples of each class.
    class_prior_ : ndarray of shape (n_classes,)
        Probability of each class: ``priors``, or the class frequencies.
    class_log_prior_ : ndarray of shape (n_classes,)
        Its logarithm.
    n_features_in_ : int
        Number of columns seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the columns seen during fit, when X has string column names.

    Notes
    -----
    Missing values (NaN, None, ``pd.NA``) in any column are left out of that
    column's likelihood (marginalised), as each sub-model does; a category never
    seen in training gets the smoothed probability of a zero count. A class that
    has no training samples yet (``partial_fit``'s ``classes``) has the joint
    log-likelihood ``-inf`` until it has some, whatever ``priors`` says.

    ``save``/``fastnb.load`` keep the fitted sub-models and their columns by
    position (a callable selection is not saved: the loaded model's
    ``estimators`` lists the positions it chose). ``fastnb.merge`` merges models
    with the same sub-models on the same columns, sub-model by sub-model.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from fastnb import ColumnwiseNB
    >>> X = pd.DataFrame({
    ...     "height": [1.52, 1.61, 1.85, 1.79, 1.58, 1.90],
    ...     "colour": ["red", "red", "blue", "blue", "red", "blue"],
    ...     "member": [True, False, True, True, False, True],
    ... })
    >>> y = ["a", "a", "b", "b", "a", "b"]
    >>> model = ColumnwiseNB().fit(X, y)
    >>> print(model.summary())
    gaussian     GaussianNB()     height
    bernoulli    BernoulliNB()    member
    categorical  CategoricalNB()  colour
    >>> model.predict(pd.DataFrame({"height": [1.6], "colour": ["red"],
    ...                             "member": [False]}))
    array(['a'], dtype='<U1')

    Explicit sub-models, as in ``ColumnTransformer``:

    >>> from fastnb import CategoricalNB, GaussianNB
    >>> model = ColumnwiseNB([("size", GaussianNB(), ["height"]),
    ...                       ("tags", CategoricalNB(), ["colour", "member"])])
    >>> model.fit(X, y).predict_proba(X.iloc[:1]).round(3)
    array([[1., 0.]])
    """

    # Sub-models of any kinds and number, in fixed members: "layout" (UTF-8 JSON:
    # each sub-model's class, parameters, columns and where its arrays lie) and
    # three pools holding every sub-model's ``_sufficient_state`` arrays by dtype.
    _STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "layout": (("t",), ("uint8",)),
        "float_pool": (("f",), ()),
        "int_pool": (("i",), ()),
        "byte_pool": (("b",), ("uint8",)),
    }

    def __init__(self, estimators="auto", *, priors=None, remainder="error",
                 n_threads=None):
        self.estimators = estimators
        self.priors = priors
        self.remainder = remainder
        self.n_threads = n_threads

    # -- parameters -----------------------------------------------------------------
    def get_params(self, deep=True):
        """Get the parameters of this estimator.

        Parameters
        ----------
        deep : bool, default=True
            If True, also the sub-estimators of an ``estimators`` list, by name,
            and their parameters as ``name__parameter`` (scikit-learn's
            convention for composite estimators).

        Returns
        -------
        params : dict
            Parameter names mapped to their values.
        """
        params = {name: getattr(self, name) for name in self._get_param_names()}
        if deep and isinstance(self.estimators, (list, tuple)):
            for entry in self.estimators:
                if not (isinstance(entry, tuple) and len(entry) == 3):
                    continue
                name, estimator = entry[0], entry[1]
                params[name] = estimator
                if hasattr(estimator, "get_params"):
                    for key, value in estimator.get_params(deep=True).items():
                        params[f"{name}__{key}"] = value
        return params

    def set_params(self, **params):
        """Set the parameters of this estimator.

        Parameters
        ----------
        **params : dict
            Estimator parameters; a sub-estimator of ``estimators`` by its name,
            and its parameters as ``name__parameter``.

        Returns
        -------
        self : estimator instance
        """
        own = self._get_param_names()
        if "estimators" in params:
            self.estimators = params.pop("estimators")
        for key, value in params.items():
            if key in own:
                setattr(self, key, value)
                continue
            name, _, sub_key = key.partition("__")
            entries = list(self.estimators) if isinstance(
                self.estimators, (list, tuple)) else []
            where = [i for i, entry in enumerate(entries) if entry[0] == name]
            if not where:
                raise ValueError(
                    f"Invalid parameter {key!r} for estimator ColumnwiseNB. Valid "
                    f"parameters are: {sorted(self.get_params(deep=True))!r}."
                )
            i = where[0]
            if sub_key:
                entries[i][1].set_params(**{sub_key: value})
            else:
                entries[i] = (name, value, entries[i][2])
                self.estimators = entries
        return self

    def _validate_params(self):
        owner = type(self).__name__
        check_n_threads(self.n_threads, owner)
        check_prior_param(self.priors, "priors", owner)
        if self.remainder not in ("error", "drop"):
            raise param_error(owner, "remainder", "a str among {'error', 'drop'}",
                              self.remainder)
        if isinstance(self.estimators, str) and self.estimators == "auto":
            return
        if not isinstance(self.estimators, (list, tuple)) or not self.estimators:
            raise param_error(
                owner, "estimators",
                "'auto' or a non-empty list of (name, estimator, columns) tuples",
                self.estimators, TypeError)
        seen = set()
        for entry in self.estimators:
            if not (isinstance(entry, tuple) and len(entry) == 3):
                raise TypeError(
                    "Each entry of ColumnwiseNB's estimators must be a (name, "
                    f"estimator, columns) tuple, got {entry!r}."
                )
            name, estimator, _ = entry
            if not isinstance(name, str) or not name or "__" in name:
                raise ValueError(
                    f"Sub-estimator names must be non-empty str without '__', got "
                    f"{name!r}."
                )
            if name in seen or name in self._get_param_names():
                raise ValueError(f"Sub-estimator name {name!r} is used twice or "
                                 "clashes with a parameter of ColumnwiseNB.")
            seen.add(name)
            self._check_sub_estimator(name, estimator)

    @staticmethod
    def _check_sub_estimator(name, estimator):
        if isinstance(estimator, str) and estimator == "drop":
            return
        if type(estimator).__name__ not in _SUB_MODELS or not isinstance(
                estimator, tuple(_SUB_MODELS.values())):
            why = ""
            if isinstance(estimator, ComplementNB):
                why = " (ComplementNB's scores are not log-likelihoods, so they do " \
                      "not add up with other models')"
            raise TypeError(
                f"Sub-estimator {name!r} is {estimator!r}{why}; ColumnwiseNB takes "
                f"fastnb's {', '.join(sorted(_SUB_MODELS))} or 'drop'."
            )
        params = estimator.get_params(deep=False)
        for key, default in _OWN_PRIOR_PARAMS.items():
            if key in params and not (params[key] is default):
                raise ValueError(
                    f"Sub-estimator {name!r} has its own class prior ({key}="
                    f"{params[key]!r}): the priors belong to ColumnwiseNB; set "
                    f"ColumnwiseNB(priors=...) and leave {key} at {default!r}."
                )

    # -- the plan: which sub-model models which columns --------------------------------
    def _plan(self, table, X):
        """[(name, unfitted clone, positions)] for this X, checked."""
        if isinstance(self.estimators, str):
            groups = {}
            for j in range(table.n_columns):
                label = table.labels[j] if table.labels is not None else j
                groups.setdefault(_auto_kind(table.column(j), label), []).append(j)
            return [(name, cls(n_threads=self.n_threads),
                     np.array(groups[name], dtype=np.intp))
                    for name, cls in _AUTO_ESTIMATORS if name in groups]
        plan, owner_of = [], {}
        for name, estimator, spec in self.estimators:
            owner = f"sub-estimator {name!r}"
            positions = _column_positions(spec, table, X, owner)
            for j in positions.tolist():
                if j in owner_of:
                    others = owner_of[j]
                    raise ValueError(
                        f"Column {self._label(table, j)!r} is chosen by {others} and "
                        f"by {owner}: give each column to one sub-estimator."
                    )
                owner_of[j] = owner
            if isinstance(estimator, str) or positions.size == 0:
                continue  # "drop", or an empty selection: nothing to model
            model = type(estimator)(**estimator.get_params(deep=False))
            model.n_threads = self.n_threads
            plan.append((name, model, positions))
        rest = [j for j in range(table.n_columns) if j not in owner_of]
        if rest and self.remainder == "error":
            raise ValueError(
                f"Columns {[self._label(table, j) for j in rest]!r} are not given to "
                "any sub-estimator: name them in estimators, or set "
                "remainder='drop'."
            )
        if not plan:
            raise ValueError("ColumnwiseNB has no columns to model: every column is "
                             "dropped.")
        return plan

    def _with_fixed_plan(self, X):
        """This model's parameters, with "auto" resolved on X into an explicit list
        (fastnb.dask.fit: every partition is then fitted with the same sub-models,
        chosen from the first one)."""
        if not isinstance(self.estimators, str):
            return self
        self._validate_params()
        plan = self._plan(_Table(X, type(self).__name__), X)
        return type(self)([(name, model, positions.tolist())
                           for name, model, positions in plan],
                          priors=self.priors, remainder=self.remainder,
                          n_threads=self.n_threads)

    @staticmethod
    def _label(table, j):
        return table.labels[j] if table.labels is not None else j

    # -- fitting --------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit every sub-model on its columns, and the class priors.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data: a DataFrame with columns of any dtypes, a NumPy array,
            or a list of rows.
        y : array-like of shape (n_samples,)
            Target values: any labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights applied to individual samples.

        Returns
        -------
        self : object
            Returns the instance itself.
        """
        return self._fit(X, y, None, sample_weight, refit=True)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Incremental fit on a batch of samples.

        Every sub-model is updated on its columns; a call that raises leaves the
        model exactly as it was. With ``estimators="auto"`` the first call
        chooses the sub-models.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Target values.
        classes : array-like of shape (n_classes,), default=None
            All the classes that can appear in y. Required on the first call; on
            later calls it must be the same classes, or None.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights applied to individual samples.

        Returns
        -------
        self : object
            Returns the instance itself.
        """
        return self._fit(X, y, classes, sample_weight, refit=False)

    def _update_tags(self, tags):
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = False

    def _fit(self, X, y, classes, sample_weight, refit):
        """Fit copies of the sub-models; commit only when all have succeeded."""
        first_call = self._begin_fit(classes, refit)
        name = type(self).__name__
        table = _Table(X, name)
        y = check_y(y, table.n_samples, name)
        names = feature_names_of(X)
        if first_call:
            plan = self._plan(table, X)
        else:
            self._check_n_features(table, reset=False)
            self._check_feature_names(X, reset=False)
            plan = [(sub_name, copy.deepcopy(model), positions) for (
                sub_name, model, _), positions in zip(self.estimators_, self._positions)]
            for _, model, _ in plan:
                model.n_threads = self.n_threads
        for sub_name, model, positions in plan:
            try:
                block = table.block(positions, 0, table.n_samples,
                                    isinstance(model, CategoricalNB))
                if refit:
                    model.fit(block, y, sample_weight)
                else:
                    model.partial_fit(block, y, classes if first_call else None,
                                      sample_weight)
            except (TypeError, ValueError) as error:
                raise self._sub_model_error(error, sub_name, table, positions) from error
        models = [model for _, model, _ in plan]
        self._commit(plan, models[0].classes_, models[0].class_count_.copy(),
                     table.n_columns, names if first_call else getattr(
                         self, "feature_names_in_", None))
        return self

    def _sub_model_error(self, error, sub_name, table, positions):
        """The error of a sub-model (or of reading its columns), saying which."""
        columns = [self._label(table, j) for j in positions]
        return type(error)(f"{type(self).__name__} sub-estimator {sub_name!r} (columns "
                           f"{columns}): {error}")

    def _commit(self, plan, classes, class_count, n_features, names):
        """Derive the priors and set the fitted state (validation all done)."""
        k = classes.shape[0]
        priors = resolve_priors(self.priors, k, name="priors", sum_to_one=True)
        prior = class_count / class_count.sum() if priors is None else priors
        with np.errstate(divide="ignore"):
            log_prior = np.log(prior)
        # Every constant of the sum in one bias: the log prior, minus the log prior
        # each sub-model includes (-inf where it has no data of a class).
        bias = log_prior.copy()
        for _, model, _ in plan:
            included = _included_log_prior(model)
            bias = bias + np.where(np.isfinite(included), -included, -np.inf)
        labels = [names[p].tolist() if names is not None else p.tolist()
                  for _, _, p in plan]
        # All validation is done: commit the new state.
        self.estimators_ = [(sub_name, model, columns)
                            for (sub_name, model, _), columns in zip(plan, labels)]
        self.named_estimators_ = {sub_name: model for sub_name, model, _ in plan}
        self._positions = [positions for _, _, positions in plan]
        self._bias = np.ascontiguousarray(bias, dtype=np.float64)
        self._zeros = np.zeros(k)
        self.classes_ = classes
        self.class_count_ = class_count
        self.class_prior_ = prior
        self.class_log_prior_ = log_prior
        self.n_features_in_ = n_features
        self._set_feature_names(names)

    def summary(self):
        """One line per fitted sub-model: its name, estimator and columns.

        Returns
        -------
        text : str

        Examples
        --------
        >>> import numpy as np
        >>> from fastnb import ColumnwiseNB
        >>> X = np.array([[0.5, 1], [1.5, 2], [2.5, 1], [3.5, 2]], dtype=object)
        >>> print(ColumnwiseNB().fit(X, [0, 0, 1, 1]).summary())
        gaussian     GaussianNB()     0
        categorical  CategoricalNB()  1
        """
        self._check_fitted()
        rows = [(name, repr(model), ", ".join(str(c) for c in columns))
                for name, model, columns in self.estimators_]
        widths = [max(len(row[i]) for row in rows) + 2 for i in range(2)]
        return "\n".join(f"{a:<{widths[0]}}{b:<{widths[1]}}{c}" for a, b, c in rows)

    # -- prediction -----------------------------------------------------------------
    def _check_predict_X(self, X):
        self._check_fitted()
        name = type(self).__name__
        table = _Table(X, name)
        if hasattr(self, "feature_names_in_") or not isinstance(X, np.ndarray):
            self._check_feature_names(X, reset=False)
        if table.n_columns != self.n_features_in_:
            self._check_n_features(table, reset=False)
        return table

    def _run_predict_kernel(self, table, mode, labels_out, out):
        """Block by block: every sub-model's jll into a scratch buffer, added up
        without its prior, then the arg-max or the normalisation in place.

        Blocks are independent, so with several threads they are shared out to
        Python threads (every kernel releases the GIL), each with its own
        scratch, and the sub-models' kernels run on one thread each; a lone
        block runs here, with the sub-models' kernels on ``n_threads``. Either
        way every row is summed in the same order: the same bits.
        """
        n, k = table.n_samples, self.classes_.shape[0]
        rows = min(n, _PREDICT_BLOCK_ROWS)
        starts = list(range(0, n, rows))
        n_workers = 1
        if len(starts) > 1:
            n_workers = min(len(starts), threads_for(
                self.n_threads, n * k * len(self.estimators_), "predict"))
        # Shallow copies: the kernels' thread count is set without touching the
        # fitted sub-models (which other threads may be using).
        runners = []
        for (sub_name, model, _), positions in zip(self.estimators_, self._positions):
            runner = copy.copy(model)
            runner.n_threads = self.n_threads if n_workers == 1 else 1
            runners.append((sub_name, runner, positions, isinstance(model, CategoricalNB)))

        def run_blocks(worker):
            jll = np.empty((rows, k), dtype=np.float64)
            total = np.empty((rows, k), dtype=np.float64) if out is None else None
            for start in starts[worker::n_workers]:
                stop = min(n, start + rows)
                self._predict_block(table, runners, start, stop, mode,
                                    labels_out, out, jll, total, n_workers)

        if n_workers == 1:
            run_blocks(0)
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(n_workers) as pool:
            for done in [pool.submit(run_blocks, w) for w in range(n_workers)]:
                done.result()

    def _predict_block(self, table, runners, start, stop, mode, labels_out, out, jll,
                       total, n_workers):
        """Rows start:stop: the sum of the sub-models' jll, finished per ``mode``
        (the first sub-model writes into the total; see the kernel's notes)."""
        block_total = total[:stop - start] if out is None else out[start:stop]
        block_jll = jll[:stop - start]
        n_threads = 1 if n_workers > 1 else threads_for(
            self.n_threads, (stop - start) * block_jll.shape[1], "predict")
        last = len(runners) - 1
        for i, (sub_name, runner, positions, categorical) in enumerate(runners):
            try:
                part = runner._check_predict_X(table.block(positions, start, stop,
                                                           categorical))
                runner._run_predict_kernel(part, MODE_JLL, None,
                                           block_total if i == 0 else block_jll)
            except (TypeError, ValueError) as error:
                raise self._sub_model_error(error, sub_name, table, positions) from error
            if i == 0 and last > 0:
                continue
            _kernels.add_block(block_total, None if i == 0 else block_jll,
                               self._bias if i == 1 or last == 0 else self._zeros,
                               i == last, mode,
                               labels_out[start:stop] if mode == MODE_ARGMAX else None,
                               n_threads)

    # -- persistence and merging ------------------------------------------------------
    def _params_for_file(self):
        """The parameters as the file header keeps them: the sub-models are in the
        ``layout`` member (``estimators`` None there), unless "auto"."""
        params = self.get_params(deep=False)
        if not isinstance(self.estimators, str):
            params["estimators"] = None
        return params

    def _sufficient_state(self):
        pools = {"float": [], "int": [], "byte": []}
        sizes = dict.fromkeys(pools, 0)
        entries = []
        for (name, model, _), positions in zip(self.estimators_, self._positions):
            where = {}
            for key, value in model._sufficient_state().items():
                value = np.asarray(value)
                pool = {"f": "float", "i": "int", "u": "byte"}[value.dtype.kind]
                where[key] = [pool, sizes[pool], list(value.shape)]
                pools[pool].append(value.ravel())
                sizes[pool] += value.size
            params = {key: _json_param(key, value)
                      for key, value in model.get_params(deep=False).items()}
            entries.append({"name": name, "estimator": type(model).__name__,
                            "params": params, "columns": positions.tolist(),
                            "arrays": where})
        layout = json.dumps({"estimators": entries}).encode("utf-8")

        def pooled(kind, dtype):
            parts = pools[kind]
            return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

        return {
            "class_count_": np.asarray(self.class_count_, dtype=np.float64),
            "layout": np.frombuffer(layout, dtype=np.uint8).copy(),
            "float_pool": pooled("float", np.float64),
            "int_pool": pooled("int", np.int64),
            "byte_pool": pooled("byte", np.uint8),
        }

    def _restore(self, classes, arrays, n_features, feature_names):
        """Rebuild the sub-models from the layout and pools, each validated."""
        check_n_threads(self.n_threads, type(self).__name__)
        check_prior_param(self.priors, "priors", type(self).__name__)
        layout = json.loads(arrays["layout"].tobytes().decode("utf-8"))
        entries = layout.get("estimators") if isinstance(layout, dict) else None
        if not isinstance(entries, list) or not entries:
            raise ValueError("the layout lists no sub-estimators")
        pools = {"float": arrays["float_pool"], "int": arrays["int_pool"],
                 "byte": arrays["byte_pool"]}
        plan, taken, listed = [], set(), []
        for entry in entries:
            model, positions = self._restore_sub_model(entry, pools, classes,
                                                       n_features)
            if taken & set(positions.tolist()) or entry["name"] in {p[0] for p in plan}:
                raise ValueError("two sub-estimators share a column or a name")
            taken |= set(positions.tolist())
            if not np.allclose(model.class_count_, arrays["class_count_"],
                               rtol=1e-9, atol=0):
                raise ValueError(f"sub-estimator {entry['name']!r} has other class "
                                 "counts than the model")
            plan.append((entry["name"], model, positions))
            listed.append((entry["name"], type(model)(**model.get_params(deep=False)),
                           positions.tolist()))
        if self.remainder == "error" and taken != set(range(n_features)):
            raise ValueError(f"the sub-estimators do not model all {n_features} "
                             "columns, and remainder is 'error'")
        if not isinstance(self.estimators, str):
            self.estimators = listed
        self._commit(plan, classes, np.array(arrays["class_count_"]), n_features,
                     feature_names)

    def _restore_sub_model(self, entry, pools, classes, n_features):
        if not isinstance(entry, dict) or set(entry) != {
                "name", "estimator", "params", "columns", "arrays"}:
            raise ValueError("a sub-estimator entry of the layout is malformed")
        cls = _SUB_MODELS.get(entry["estimator"])
        if cls is None or not isinstance(entry["name"], str):
            raise ValueError(f"unknown sub-estimator {entry['estimator']!r}")
        params = entry["params"]
        if not isinstance(params, dict) or set(params) != set(cls._get_param_names()):
            raise ValueError(f"the parameters of {entry['name']!r} do not match "
                             f"{cls.__name__}'s")
        model = cls(**{key: _param_from_json(key, value)
                       for key, value in params.items()})
        model.n_threads = self.n_threads
        self._check_sub_estimator(entry["name"], model)
        columns = entry["columns"]
        if (not isinstance(columns, list) or not columns or not all(
                isinstance(j, int) and not isinstance(j, bool) and 0 <= j < n_features
                for j in columns) or len(set(columns)) != len(columns)):
            raise ValueError(f"the columns of {entry['name']!r} are not distinct "
                             "positions of X")
        where = entry["arrays"]
        if not isinstance(where, dict) or set(where) != set(cls._STATE_SPEC):
            raise ValueError(f"the arrays of {entry['name']!r} do not match "
                             f"{cls.__name__}'s")
        sub_arrays = {}
        for key, spec in where.items():
            if not (isinstance(spec, list) and len(spec) == 3 and spec[0] in pools
                    and isinstance(spec[1], int) and isinstance(spec[2], list)
                    and all(isinstance(s, int) and s >= 0 for s in spec[2])):
                raise ValueError(f"array {key!r} of {entry['name']!r} is malformed")
            pool, offset, shape = pools[spec[0]], spec[1], spec[2]
            size = int(np.prod(shape, dtype=np.int64))
            if offset < 0 or offset + size > pool.shape[0]:
                raise ValueError(f"array {key!r} of {entry['name']!r} lies outside "
                                 "its pool")
            sub_arrays[key] = pool[offset:offset + size].reshape(shape).copy()
        check_state(cls._STATE_SPEC, sub_arrays, n_classes=classes.shape[0],
                    n_features=len(columns))
        model._restore(classes, sub_arrays, len(columns), None)
        return model, np.array(columns, dtype=np.intp)

    def _merged_with(self, other):
        """Sub-model by sub-model: equal to the fit on both models' data."""
        mine = [(n, type(m), p.tolist()) for (n, m, _), p in zip(self.estimators_,
                                                                 self._positions)]
        theirs = [(n, type(m), p.tolist()) for (n, m, _), p in zip(other.estimators_,
                                                                   other._positions)]
        if mine != theirs:
            raise ValueError(
                "Cannot merge ColumnwiseNB models with different sub-estimators or "
                f"columns: {mine} and {theirs}."
            )
        plan = [(name, merge(a, b), positions) for (name, a, _), (_, b, _), positions
                in zip(self.estimators_, other.estimators_, self._positions)]
        classes, where_a, where_b = union_classes(self.classes_, other.classes_)
        class_count = np.zeros(classes.shape[0])
        class_count[where_a] += self.class_count_
        class_count[where_b] += other.class_count_
        merged = type(self)(**self.get_params(deep=False))
        for _, model, _ in plan:
            model.n_threads = merged.n_threads
        merged._commit(plan, classes, class_count, self.n_features_in_,
                       getattr(self, "feature_names_in_", None))
        return merged
