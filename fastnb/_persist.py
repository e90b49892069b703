"""Pickle-free save and load of fitted models, and exact merging of models.

File format (``.npz``, read with ``allow_pickle=False``): one member ``header``, a
uint8 array holding UTF-8 JSON::

    {"format": "fastnb-model", "format_version": 2, "fastnb_version": "...",
     "estimator": "GaussianNB", "params": {...}, "n_features_in": d,
     "feature_names": [...] or null, "classes_kind": "int64" | "str" | ...,
     "arrays": ["classes", "class_count_", ...]}

and one member per array of the model's sufficient statistics, as the estimator's
``_STATE_SPEC`` lists them (or another layout of the estimator's, picked by the
member names: ``_state_spec_for``). Derived attributes (variances with smoothing, log
probabilities) are recomputed on load by the same code as fit, so a loaded model
is the saved one bit for bit. Loading validates everything (names, dtypes,
shapes, finiteness, signs, parameters) before a model is built, and reports any
damage as a ValueError: a file is data, never code.
"""

import json
import math
import zipfile

import numpy as np

from ._version import __version__

__all__ = ["FORMAT_VERSION", "load", "merge", "save"]

# 2: a model may be saved in one of its layouts (``_state_spec_for``): the count
# models at text scale save their sparse count table's entries, not k x d arrays.
# Version 1 files (fastnb 0.1) are the dense layout and still load.
FORMAT_VERSION = 2
_READABLE_VERSIONS = (1, 2)
_FORMAT_NAME = "fastnb-model"
# Guards against hostile files: a header or array larger than this is refused
# before it is read.
_MAX_HEADER_BYTES = 1 << 20
_MAX_ARRAY_BYTES = 1 << 34

_REGISTRY = {}


def register(cls):
    """Make an estimator class loadable by name (done by ``_BaseNB``)."""
    _REGISTRY[cls.__name__] = cls
    return cls


class _Invalid(ValueError):
    pass


def _json_param(name, value):
    """A parameter value as JSON, or an error naming it."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"Cannot save parameter {name}={value!r}: not finite.")
        return float(value)
    array = np.asarray(value)
    if array.dtype.kind in "biuf" and array.ndim == 1:
        if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
            raise ValueError(f"Cannot save parameter {name}: not finite.")
        return {"array": array.tolist(), "dtype": array.dtype.str}
    raise ValueError(f"Cannot save parameter {name}={value!r}: unsupported type.")


def _param_from_json(name, value):
    if isinstance(value, dict):
        if set(value) != {"array", "dtype"}:
            raise _Invalid(f"parameter {name} is malformed")
        dtype = np.dtype(value["dtype"])
        if dtype.kind not in "biuf":
            raise _Invalid(f"parameter {name} has dtype {dtype}")
        array = np.asarray(value["array"], dtype=dtype)
        if array.ndim != 1:
            raise _Invalid(f"parameter {name} is not one-dimensional")
        return array
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise _Invalid(f"parameter {name} has type {type(value).__name__}")


def _classes_for_file(classes):
    if classes.dtype.kind in "biufUS":
        return classes, classes.dtype.str
    if classes.dtype.kind == "O" and all(type(c) is str for c in classes):
        return classes.astype(str), "object-str"
    raise ValueError(
        "Cannot save a model whose classes_ are objects other than str "
        f"({sorted({type(c).__name__ for c in classes})}); use str or numeric labels."
    )


def save(model, path):
    """Write a fitted model to ``path`` (``.npz``), without pickle."""
    model._check_fitted()
    classes, classes_kind = _classes_for_file(model.classes_)
    state = model._sufficient_state()
    names = getattr(model, "feature_names_in_", None)
    header = {
        "format": _FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "fastnb_version": __version__,
        "estimator": type(model).__name__,
        "params": {k: _json_param(k, v) for k, v in _params_for_file(model).items()},
        "n_features_in": int(model.n_features_in_),
        "feature_names": None if names is None else [str(n) for n in names],
        "classes_kind": classes_kind,
        "arrays": ["classes"] + sorted(state),
    }
    blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    arrays = {"header": blob, "classes": classes}
    arrays.update({name: np.ascontiguousarray(value) for name, value in state.items()})
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)


def _params_for_file(model):
    """The constructor parameters a file keeps: ``get_params(deep=False)``, or what
    a composite model (ColumnwiseNB) puts in its place (its sub-models travel in
    its arrays, and ``_restore`` sets them)."""
    if hasattr(model, "_params_for_file"):
        return model._params_for_file()
    return model.get_params(deep=False)


def _read_member(archive, name, limit):
    info = archive.zip.getinfo(name + ".npy")
    if info.file_size > limit:
        raise _Invalid(f"member {name!r} is {info.file_size} bytes, too large")
    return archive[name]


def load(path):
    """Read a model written by ``save``; raise ValueError on any damage.

    Parameters
    ----------
    path : str or path-like
        A file written by an estimator's ``save``.

    Returns
    -------
    model : fitted estimator
        Predicts exactly as the saved model did.

    Examples
    --------
    >>> import numpy as np, tempfile, os, fastnb
    >>> X, y = np.array([[0.0], [1.0], [5.0], [6.0]]), np.array([0, 0, 1, 1])
    >>> model = fastnb.GaussianNB().fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.npz")
    >>> model.save(path)
    >>> fastnb.load(path).predict([[5.5]])
    array([1])
    """
    try:
        return _load(path)
    except _Invalid as error:
        raise ValueError(f"{path}: not a valid fastnb model file: {error}") from None
    except (zipfile.BadZipFile, EOFError, OSError, KeyError, TypeError,
            UnicodeDecodeError, json.JSONDecodeError, ValueError) as error:
        if isinstance(error, FileNotFoundError):
            raise
        raise ValueError(
            f"{path}: not a valid fastnb model file ({type(error).__name__}: {error})"
        ) from None


def _load(path):
    with np.load(path, allow_pickle=False) as archive:
        if not hasattr(archive, "files"):
            raise _Invalid("not an .npz archive")
        members = set(archive.files)
        if "header" not in members:
            raise _Invalid("no header")
        blob = _read_member(archive, "header", _MAX_HEADER_BYTES)
        if blob.dtype != np.uint8 or blob.ndim != 1:
            raise _Invalid("malformed header")
        header = json.loads(blob.tobytes().decode("utf-8"))
        if not isinstance(header, dict) or header.get("format") != _FORMAT_NAME:
            raise _Invalid("not a fastnb model")
        version = header.get("format_version")
        if type(version) is not int or version not in _READABLE_VERSIONS:
            raise _Invalid(
                f"format version {version!r}; this fastnb reads versions "
                f"{', '.join(map(str, _READABLE_VERSIONS))}"
            )
        cls = _REGISTRY.get(header.get("estimator"))
        if cls is None:
            raise _Invalid(f"unknown estimator {header.get('estimator')!r}")
        spec = cls._state_spec_for(header.get("arrays"), version)
        expected = ["classes"] + sorted(spec)
        if header.get("arrays") != expected or members != set(expected) | {"header"}:
            raise _Invalid(
                f"members {sorted(members)} do not match {cls.__name__}'s "
                f"{['header'] + expected}"
            )
        arrays = {name: _read_member(archive, name, _MAX_ARRAY_BYTES)
                  for name in expected}
    params = header.get("params")
    valid_params = set(cls._get_param_names())
    if not isinstance(params, dict) or set(params) != valid_params:
        raise _Invalid(f"parameters {params!r} do not match {sorted(valid_params)}")
    model = cls(**{k: _param_from_json(k, v) for k, v in params.items()})

    n_features = header.get("n_features_in")
    if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
        raise _Invalid("n_features_in must be a positive int")
    names = header.get("feature_names")
    if names is not None:
        if (not isinstance(names, list) or len(names) != n_features
                or not all(isinstance(n, str) for n in names)):
            raise _Invalid("feature_names must be n_features_in strings")
        names = np.asarray(names, dtype=object)

    classes = arrays.pop("classes")
    kind = header.get("classes_kind")
    if kind == "object-str":
        if classes.dtype.kind != "U":
            raise _Invalid("classes are not strings")
        classes = classes.astype(object)
    elif not isinstance(kind, str) or classes.dtype.str != kind:
        raise _Invalid(f"classes dtype {classes.dtype.str} is not {kind!r}")
    if classes.ndim != 1 or classes.size < 1:
        raise _Invalid("classes must be a non-empty 1d array")
    if classes.size > 1 and not np.all(classes[1:] > classes[:-1]):
        raise _Invalid("classes must be sorted and unique")

    check_state(spec, arrays, n_classes=classes.size, n_features=n_features)
    try:
        model._restore(classes, arrays, n_features, names)
    except ValueError as error:
        raise _Invalid(str(error)) from None
    return model


def check_state(spec, arrays, *, n_classes, n_features):
    """Validate arrays against a spec ``{name: (shape, checks)}``.

    Shapes use ``"k"`` (classes), ``"d"`` (features), ints, or other letters that
    are bound by their first use; checks are ``"finite"`` and ``"nonneg"``.
    Arrays are float64 or int64, except that ``"uint8"`` in checks asks for a
    uint8 array (raw bytes, such as UTF-8 text).
    """
    sizes = {"k": n_classes, "d": n_features}
    for name, (shape, checks) in spec.items():
        array = arrays[name]
        if "uint8" in checks:
            if array.dtype != np.uint8:
                raise _Invalid(f"{name} has dtype {array.dtype}, expected uint8")
        elif array.dtype != np.float64 and array.dtype != np.int64:
            raise _Invalid(f"{name} has dtype {array.dtype}, expected float64 or int64")
        if array.ndim != len(shape):
            raise _Invalid(f"{name} has {array.ndim} dimensions, expected {len(shape)}")
        for axis, symbol in enumerate(shape):
            size = array.shape[axis]
            if isinstance(symbol, int):
                if size != symbol:
                    raise _Invalid(f"{name} has shape {array.shape}")
            elif sizes.setdefault(symbol, size) != size:
                raise _Invalid(f"{name} has shape {array.shape}, inconsistent with "
                               f"{symbol}={sizes[symbol]}")
        if "finite" in checks and not np.all(np.isfinite(array)):
            raise _Invalid(f"{name} holds non-finite values")
        if "nonneg" in checks and np.any(array < 0):
            raise _Invalid(f"{name} holds negative values")


def merge(*models):
    """Combine models fitted on disjoint data into the model fitted on their union.

    Counts, sums and centred second moments are merged exactly (Chan's formula), so
    ``merge(fit(A), fit(B))`` equals ``fit(A + B)`` to rounding, whatever the
    classes each part saw. This is what distributed fitting is built on.

    Parameters
    ----------
    *models : fitted estimators of one class, with equal parameters
        (``n_threads`` aside) and equal features. A single list is accepted too.

    Returns
    -------
    model : a new fitted estimator
        The inputs are left unchanged.

    Examples
    --------
    >>> import numpy as np, fastnb
    >>> X = np.array([[0.0], [1.0], [5.0], [6.0]]); y = np.array([0, 0, 1, 1])
    >>> parts = [fastnb.GaussianNB().fit(X[:3], y[:3]),
    ...          fastnb.GaussianNB().fit(X[3:], y[3:])]
    >>> merged = fastnb.merge(*parts)
    >>> bool(np.allclose(merged.theta_, fastnb.GaussianNB().fit(X, y).theta_))
    True
    """
    if len(models) == 1 and isinstance(models[0], (list, tuple)):
        models = tuple(models[0])
    if not models:
        raise ValueError("merge needs at least one fitted model.")
    first = models[0]
    cls = type(first)
    if cls.__name__ not in _REGISTRY:
        raise TypeError(f"merge takes fastnb estimators, got {cls.__name__}.")
    params = {k: v for k, v in first.get_params(deep=False).items() if k != "n_threads"}
    for model in models:
        if type(model) is not cls:
            raise TypeError(
                f"Cannot merge {type(model).__name__} into {cls.__name__}."
            )
        model._check_fitted()
        other = {k: v for k, v in model.get_params(deep=False).items()
                 if k != "n_threads"}
        if not _same_params(params, other):
            raise ValueError(f"Cannot merge models with different parameters: "
                             f"{params} and {other}.")
        if model.n_features_in_ != first.n_features_in_:
            raise ValueError(
                f"Cannot merge models with {model.n_features_in_} and "
                f"{first.n_features_in_} features."
            )
        names_a = getattr(first, "feature_names_in_", None)
        names_b = getattr(model, "feature_names_in_", None)
        if (names_a is None) != (names_b is None) or (
            names_a is not None and not np.array_equal(names_a, names_b)
        ):
            raise ValueError("Cannot merge models fitted on different feature names.")
    result = first
    for model in models[1:]:
        result = result._merged_with(model)
    if result is first:
        result = cls._copy_of(first)
    return result


def _same_params(a, b):
    if a.keys() != b.keys():
        return False
    return all(_same_value(a[key], b[key]) for key in a)


def _same_value(x, y):
    """Equal parameter values; estimators (ColumnwiseNB's sub-models) are equal
    when of one class with equal parameters, lists and tuples item by item."""
    if hasattr(x, "get_params") or hasattr(y, "get_params"):
        return type(x) is type(y) and _same_params(
            {k: v for k, v in x.get_params(deep=False).items() if k != "n_threads"},
            {k: v for k, v in y.get_params(deep=False).items() if k != "n_threads"})
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(_same_value(p, q) for p, q in zip(x, y))
    if x is None or y is None or isinstance(x, (str, bool, slice)) or callable(x):
        return x is y or bool(x == y)
    try:
        return bool(np.array_equal(np.asarray(x), np.asarray(y)))
    except (TypeError, ValueError):
        return False


def union_classes(classes_a, classes_b):
    """The sorted union of two class arrays, and where each input's classes go."""
    union = np.union1d(classes_a, classes_b)
    return union, np.searchsorted(union, classes_a), np.searchsorted(union, classes_b)
