"""Which sub-model models which columns: the "auto" choice per column, and the
columns an ``estimators`` list selects (ColumnTransformer's conventions)."""

from numbers import Integral

import numpy as np

from .._capabilities import COLUMN_KINDS, models_where
from .._validation import plain
from ._table import _is_extension, is_missing_object

# "auto": an integer column with at most this many distinct values is categorical.
AUTO_MAX_INTEGER_CATEGORIES = 32
# What "auto" makes of a categorical integer column all of whose values are in
# 0..AUTO_MAX_INTEGER_CATEGORIES-1: codes, laid out as scikit-learn's
# CategoricalNB lays them out. Any other categorical column is read by value (its
# categories are the values seen), so that years 2007..2009 are three categories,
# not codes 0..2009. (A rule on the values' range, not on which of them are seen,
# so that every subset of the rows makes the same choice: parts fitted apart
# merge into the fit of the whole.)
AUTO_CODES = "codes"



def sub_model_classes():
    """{name: class} of the models ColumnwiseNB combines: those whose capabilities
    say their joint log likelihood is log prior + sum of log P(x_j | c)
    (ComplementNB's scores are not). Read from the registry at each call, so a
    model registered after this module was imported is one too."""
    return {cls.__name__: cls for cls in models_where(sub_model=True)}
# The parameters through which a sub-model would bring priors of its own.
_OWN_PRIOR_PARAMS = {"priors": None, "class_prior": None, "fit_prior": True}


# -- "auto": one sub-model per kind of column ----------------------------------------

def _object_kind(values):
    """The kind of an object column from the types of its values (None and pd.NA
    are missing values, of no kind)."""
    kinds = set()
    for value in values:
        kind = type(value)
        if kind is bool or kind is np.bool_:
            kinds.add("bool")
        elif is_missing_object(value):
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
        present = np.array([v for v in values if not is_missing_object(v)],
                           dtype=object)
        return _integer_kind(present)
    if "bool" in kinds:
        return "categorical"
    return "gaussian"


def _integer_kind(values):
    """'gaussian' for many distinct integers; for few, AUTO_CODES when they could
    be codes (all in 0..AUTO_MAX_INTEGER_CATEGORIES-1), else 'categorical' (read
    by value)."""
    try:
        distinct = np.unique(values)
    except TypeError:
        return "gaussian"
    n = distinct.shape[0]
    if n > AUTO_MAX_INTEGER_CATEGORIES:
        return "gaussian"
    if n and distinct[0] >= 0 and distinct[-1] < AUTO_MAX_INTEGER_CATEGORIES:
        return AUTO_CODES
    return "categorical"


def _auto_kind(column, label):
    """'gaussian', 'bernoulli', 'categorical' (categories by value) or AUTO_CODES
    (categorical integer codes) for one column (see ColumnwiseNB)."""
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


def auto_estimators():
    """[(kind, class)]: the model "auto" gives each kind of column, the one
    registered with that ``column_kind``."""
    out = []
    for kind in COLUMN_KINDS:
        (cls,) = models_where(column_kind=kind)
        out.append((kind, cls))
    return out


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
            f"{plain(table.labels)!r}."
        )
    return np.array([where[name] for name in names], dtype=np.intp)


def _included_log_prior(model):
    """The log prior that a fitted sub-model adds into its joint log-likelihood."""
    return model._included_log_prior()


def combined_bias(log_prior, models, tabled=None):
    """Every constant of the sum in one (k,) bias: the log prior, minus the log
    prior each sub-model includes (-inf where it has no data of a class). A
    sub-model flagged in ``tabled`` adds terms that leave its prior out (see
    _predict), so it only brings its -inf."""
    bias = log_prior.copy()
    for i, model in enumerate(models):
        included = _included_log_prior(model)
        term = 0.0 if tabled is not None and tabled[i] else -included
        bias = bias + np.where(np.isfinite(included), term, -np.inf)
    return np.ascontiguousarray(bias, dtype=np.float64)
