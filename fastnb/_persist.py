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
is the saved one bit for bit.

A file is untrusted input: data, never code. Loading checks, in this order, and
reports any problem as a ValueError naming the member and the rule (chained from
the underlying error, if any):

1. the container (``_npz.NpzReader``): a zip of ``.npy`` members, stored or
   deflated, each member's header a C-ordered array of an allowed dtype whose
   size is exactly what the member declares, read without inflating more than
   that; the members together declare at most ``_budget(file size)`` bytes;
2. the header: UTF-8 JSON of at most 1 MiB, nested at most 32 deep, without
   NaN or Infinity, with the fields above, of their types;
3. the parameters: the constructor's own validators (``_validate_params``);
4. the members: exactly the estimator's layout, each of the dtype and shape
   (checked against ``k`` classes and ``d`` features before its data is read),
   finite and non-negative where the layout says (``check_state``);
5. the estimator's own invariants (its ``_restore``, and
   ``_check_state_invariants`` where it has one), in exact integer arithmetic.

``save`` writes only what ``load`` accepts: it runs steps 3-5 on the state it is
about to write and refuses, with a ValueError, a model that load would refuse.
"""

import io
import json
import math
import os
import stat

import numpy as np

from ._npz import FileFormatError, NpzReader
from ._version import __version__

__all__ = ["FORMAT_VERSION", "from_bytes", "load", "merge", "save", "to_bytes"]

# 2: a model may be saved in one of its layouts (``_state_spec_for``): the count
# models at text scale save their sparse count table's entries, not k x d arrays.
# Version 1 files (fastnb 0.1) are the dense layout and still load.
FORMAT_VERSION = 2
# Estimator parameters added after fastnb 0.1 wrote its first files; a file
# without them loads with their defaults.
_PARAMS_ADDED_SINCE_0_1 = frozenset({"grow_classes"})
_READABLE_VERSIONS = (1, 2)
_FORMAT_NAME = "fastnb-model"
# Guards against hostile files. The header is read whole before anything else.
_MAX_HEADER_BYTES = 1 << 20
_MAX_HEADER_DEPTH = 32
# The members of a file may declare, uncompressed, at most this many bytes: 32
# times the file's size, and at least 16 MiB. ``save`` writes stored (not
# deflated) members, so its files declare their own size; only a deflated file
# can declare more, and load refuses to inflate one past this before reading it.
_INFLATION_FACTOR = 32
_MIN_BUDGET = 16 << 20


def _budget(file_size):
    """The most bytes the members of a file of ``file_size`` bytes may declare."""
    return max(_MIN_BUDGET, _INFLATION_FACTOR * file_size)


_REGISTRY = {}


def register(cls):
    """Make an estimator class loadable by name (done by ``_BaseNB``)."""
    _REGISTRY[cls.__name__] = cls
    return cls


class _Invalid(FileFormatError):
    pass


# Constructor parameters added after files were first written, with the value
# that means what those files meant: a file without one has its default.
LATER_PARAMS = {"grow_classes": False, "half_life": None, "numeric": "gaussian"}


def with_later_params(params, cls):
    """A file's ``params`` (any JSON value) with the ``LATER_PARAMS`` of ``cls``
    it lacks filled in by their defaults; anything else as it was."""
    if not isinstance(params, dict):
        return params
    names = cls._get_param_names()
    missing = {name: value for name, value in LATER_PARAMS.items()
               if name in names and name not in params}
    return {**params, **missing} if missing else params


def _json_param(name, value):
    """A parameter value as JSON, or an error naming it."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if name == "half_life" and value == math.inf:
            return None  # no forgetting, as None is (JSON has no infinity)
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


def save(model, target):
    """Write a fitted model to ``target`` (``.npz``), without pickle: a path, or a
    binary file object, written from its current position (and left open).

    Raises ValueError, and writes nothing, for a model that ``load`` would refuse
    (such as one whose statistics overflowed to infinity)."""
    if _is_file_object(target, "write"):
        _check_binary(target, "save", "'wb'")
        arrays = _file_arrays(model)
        # np.savez writes a zip to any binary stream, seekable or not (a
        # non-seekable one gets sizes after each member, which load reads).
        np.savez(target, **arrays)
        return
    arrays = _file_arrays(model)
    with open(path_of(target, "save"), "wb") as handle:
        np.savez(handle, **arrays)


def _is_file_object(obj, method):
    return hasattr(obj, method) and not isinstance(obj, (str, bytes, os.PathLike))


def _check_binary(handle, what, mode):
    if isinstance(handle, io.TextIOBase):
        raise TypeError(f"{what} needs a binary file object (opened {mode}), or a "
                        f"path; got a text stream {handle!r}.")


def path_of(target, what):
    """``target`` as a path (str, bytes or path-like), or a TypeError naming what
    ``what`` takes."""
    try:
        return os.fspath(target)
    except TypeError:
        raise TypeError(f"{what} takes a path (str or path-like) or a binary file "
                        f"object, got {type(target).__name__}.") from None


def to_bytes(model):
    """``save``'s file as bytes (fastnb.spark ships per-partition models so)."""
    handle = io.BytesIO()
    np.savez(handle, **_file_arrays(model))
    return handle.getvalue()


def from_bytes(blob):
    """The model in bytes written by ``to_bytes``, checked as ``load`` checks a file."""
    return _load_checked(io.BytesIO(blob), "not a valid fastnb model")


def _file_arrays(model):
    """The members of ``model``'s file, header first, once load's checks pass."""
    model._check_fitted()
    classes, classes_kind = _classes_for_file(model.classes_)
    state = {name: np.ascontiguousarray(value)
             for name, value in model._sufficient_state().items()}
    names = getattr(model, "feature_names_in_", None)
    try:
        _check_model_state(type(model), model, classes, dict(state),
                           int(model.n_features_in_))
        # and what load checks after a GaussianNB's restore (variances finite and
        # positive): var_smoothing=0 and a constant feature give a zero variance
        # that load refuses. (The count models' derived checks are not run here: a
        # table-backed model between partial_fit and predict holds entry weights
        # marked stale, which its next predict refreshes.)
        if getattr(model, "_SAVE_CHECKS_DERIVED_STATE", False):
            model._check_derived_state()
    except ValueError as error:
        raise ValueError(f"Cannot save this {type(model).__name__}: load would refuse "
                         f"it ({error}).") from error
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
    arrays.update(state)
    return arrays


def _params_for_file(model):
    """The constructor parameters a file keeps: ``get_params(deep=False)``, or what
    a composite model (ColumnwiseNB) puts in its place (its sub-models travel in
    its arrays, and ``_restore`` sets them)."""
    if hasattr(model, "_params_for_file"):
        return model._params_for_file()
    return model.get_params(deep=False)


def load(source):
    """Read a model written by ``save``; raise ValueError on any damage.

    The file is untrusted input: everything a compiled kernel relies on is checked
    before a model is built (the container, the header, the parameters through
    the constructor's validators, every array's dtype, shape and values, and the
    estimator's own invariants, in exact integer arithmetic), and no member is
    read or inflated past the size its checked shape needs. A file that breaks a
    rule raises ``ValueError`` naming the member and the rule; nothing else
    (missing files raise ``FileNotFoundError``, as ``open`` does).

    Parameters
    ----------
    source : str, path-like or binary file object
        A file written by an estimator's ``save``, or a binary file object
        (``io.BytesIO``, a file opened ``"rb"``, a database blob or object-store
        stream) holding one, read from its current position to its end and left
        open. The same checks apply. A stream that is not a plain file or
        ``io.BytesIO`` is read whole first, so that what its members may declare
        is bounded by the bytes it actually held, not by a size it reports.

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

    A file object, such as bytes kept in a database:

    >>> import io
    >>> stream = io.BytesIO()
    >>> model.save(stream)
    >>> blob = stream.getvalue()
    >>> fastnb.load(io.BytesIO(blob)).predict([[0.5]])
    array([0])
    """
    if _is_file_object(source, "read"):
        _check_binary(source, "load", "'rb'")
        return _load_checked(_sized_stream(source),
                             "file object: not a valid fastnb model")
    path = path_of(source, "load")
    try:
        handle = open(path, "rb")
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except OSError as error:
        raise ValueError(f"{path}: not a valid fastnb model file: cannot be read "
                         f"({error})") from error
    with handle:
        return _load_checked(handle, f"{path}: not a valid fastnb model file")


# Streams are read in pieces of this size.
_STREAM_CHUNK = 1 << 20


def _sized_stream(source):
    """A seekable binary stream ending where ``source`` ends, whose size
    (``seek(0, SEEK_END)``) is the truth: ``source`` itself when it is an
    ``io.BytesIO`` or a regular file, else its bytes from its current position,
    read into memory (whatever size it reports: the reader's budget comes from
    this size, so members cannot declare more than the bytes read allow)."""
    # (zipfile finds the archive from the end, so bytes before the current
    # position are read as data prepended to it)
    if type(source) is io.BytesIO:
        return source
    if type(source) in (io.BufferedReader, io.BufferedRandom, io.FileIO):
        try:
            if stat.S_ISREG(os.fstat(source.fileno()).st_mode):
                return source
        except (OSError, ValueError):
            pass
    data = bytearray()
    while True:
        piece = source.read(_STREAM_CHUNK)
        if piece is None:  # a non-blocking stream with nothing ready
            raise ValueError("file object: not a valid fastnb model: the stream "
                             "gave no data (non-blocking and not ready)")
        if not isinstance(piece, (bytes, bytearray, memoryview)):
            raise TypeError("load needs a binary file object (its read() returned "
                            f"{type(piece).__name__}, not bytes).")
        if not piece:
            break
        data += piece
    return io.BytesIO(data)


def _load_checked(handle, what):
    """``_load``, every failure a ValueError that starts with ``what``."""
    try:
        return _load(handle)
    except FileFormatError as error:
        raise ValueError(f"{what}: {error}") from error
    except Exception as error:  # any other failure of a check is the file's too
        raise ValueError(f"{what} ({type(error).__name__}: {error})") from error


def _reject_constant(name):
    raise _Invalid(f"the header holds {name}, which is not a number JSON allows")


def _json_depth(value, limit):
    """The nesting depth of a parsed JSON value, or an error past ``limit``.
    Iterative, so a deep value cannot exhaust the stack here."""
    stack, deepest = [(value, 1)], 0
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            raise _Invalid(f"the header is nested more than {limit} deep")
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return deepest


def parse_json_bytes(blob, what, limit=_MAX_HEADER_DEPTH):
    """A JSON document from untrusted UTF-8 bytes: no NaN or Infinity, at most
    ``limit`` deep. (Python's parser raises RecursionError, cleanly, on a document
    deeper than the interpreter's stack allows; that is refused the same way.)"""
    try:
        value = json.loads(blob.decode("utf-8"), parse_constant=_reject_constant)
    except RecursionError as error:
        raise _Invalid(f"{what} is nested more than {limit} deep") from error
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise _Invalid(f"{what} is not UTF-8 JSON ({error})") from error
    _json_depth(value, limit)
    return value


def _load(handle):
    handle.seek(0, os.SEEK_END)
    reader = NpzReader(handle, _budget(handle.tell()))
    members = reader.names
    if "header" not in members:
        raise _Invalid("no header")

    def header_rule(dtype, shape):
        if dtype != np.uint8 or len(shape) != 1 or shape[0] > _MAX_HEADER_BYTES:
            raise _Invalid(f"member 'header' must be at most {_MAX_HEADER_BYTES} "
                           f"bytes of uint8, not {dtype} {shape}")

    blob = reader.read("header", header_rule)
    header = parse_json_bytes(blob.tobytes(), "member 'header'")
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
    listed = header.get("arrays")
    if not isinstance(listed, list) or not all(isinstance(n, str) for n in listed):
        raise _Invalid("header field 'arrays' must be a list of member names")
    spec = cls._state_spec_for(listed, version)
    expected = ["classes"] + sorted(spec)
    if listed != expected or members != set(expected) | {"header"}:
        raise _Invalid(
            f"members {sorted(members)} do not match {cls.__name__}'s "
            f"{['header'] + expected}"
        )

    params = with_later_params(header.get("params"), cls)
    valid_params = set(cls._get_param_names())
    # a file written before a parameter existed lacks it: it takes the default
    # (the behaviour such a file was written with); any other difference is refused
    if (not isinstance(params, dict) or not set(params) <= valid_params
            or not valid_params - set(params) <= _PARAMS_ADDED_SINCE_0_1):
        raise _Invalid(f"parameters {params!r} do not match {sorted(valid_params)}")
    model = cls(**{k: _param_from_json(k, v) for k, v in params.items()})
    try:
        model._validate_file_params()
    except (TypeError, ValueError) as error:
        raise _Invalid(f"header field 'params': {error}") from error

    n_features = header.get("n_features_in")
    if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
        raise _Invalid("n_features_in must be a positive int")
    names = header.get("feature_names")
    if names is not None:
        if (not isinstance(names, list) or len(names) != n_features
                or not all(isinstance(n, str) for n in names)):
            raise _Invalid("feature_names must be n_features_in strings")
        names = np.asarray(names, dtype=object)

    kind = header.get("classes_kind")
    if not isinstance(kind, str):
        raise _Invalid("header field 'classes_kind' must be a str")

    def classes_rule(dtype, shape):
        if len(shape) != 1 or shape[0] < 1:
            raise _Invalid(f"member 'classes' must be a non-empty 1d array, not {shape}")
        if kind == "object-str" and dtype.kind != "U":
            raise _Invalid("member 'classes' must hold strings")
        if kind != "object-str" and dtype.str != kind:
            raise _Invalid(f"member 'classes' has dtype {dtype.str}, not {kind!r}")

    classes = reader.read("classes", classes_rule)
    if kind == "object-str":
        classes = classes.astype(object)
    if classes.dtype.kind == "f" and not np.all(np.isfinite(classes)):
        raise _Invalid("member 'classes' holds non-finite values")
    if classes.size > 1 and not np.all(classes[1:] > classes[:-1]):
        raise _Invalid("member 'classes' must be sorted and unique")

    # Every other member: its dtype and shape against the layout, before its data.
    sizes = {"k": classes.size, "d": n_features}
    arrays = {name: reader.read(name, _shape_rule(name, spec[name], sizes))
              for name in sorted(spec)}
    _check_model_state(cls, model, classes, arrays, n_features)
    try:
        model._restore(classes, arrays, n_features, names)
    except ValueError as error:
        raise _Invalid(str(error)) from error
    return model


def _shape_rule(name, member_spec, sizes):
    """The check of a member's header against its layout entry ``(shape, checks)``:
    symbols ``k`` and ``d`` are the classes and features; other letters are bound
    by their first use (``sizes`` keeps them across members)."""
    shape_spec, checks = member_spec

    def rule(dtype, shape):
        _check_dtype(name, dtype, checks)
        _check_shape(name, shape, shape_spec, sizes)

    return rule


def _check_dtype(name, dtype, checks):
    """uint8 where the layout says so; float64 for the statistics (members
    checked "finite", which the kernels read as doubles); else float64 or int64."""
    if "uint8" in checks:
        if dtype != np.uint8:
            raise _Invalid(f"{name} has dtype {dtype}, expected uint8")
    elif "finite" in checks:
        if dtype != np.float64:
            raise _Invalid(f"{name} has dtype {dtype}, expected float64")
    elif dtype != np.float64 and dtype != np.int64:
        raise _Invalid(f"{name} has dtype {dtype}, expected float64 or int64")


def _check_shape(name, shape, shape_spec, sizes):
    if len(shape) != len(shape_spec):
        raise _Invalid(f"{name} has {len(shape)} dimensions, expected {len(shape_spec)}")
    for size, symbol in zip(shape, shape_spec):
        if isinstance(symbol, int):
            if size != symbol:
                raise _Invalid(f"{name} has shape {shape}")
        elif sizes.setdefault(symbol, size) != size:
            raise _Invalid(f"{name} has shape {shape}, inconsistent with "
                           f"{symbol}={sizes[symbol]}")


def _check_model_state(cls, model, classes, arrays, n_features):
    """The checks load makes of a model's state, and save of the state it writes:
    the layout's dtypes, shapes and values, then the estimator's own invariants.
    ``model`` carries the parameters (validated again here)."""
    try:
        model._validate_file_params()
    except (TypeError, ValueError) as error:
        raise _Invalid(f"parameters: {error}") from error
    spec = cls._state_spec_for(["classes"] + sorted(arrays), FORMAT_VERSION)
    if set(spec) != set(arrays):
        raise _Invalid(f"state {sorted(arrays)} does not match {sorted(spec)}")
    check_state(spec, arrays, n_classes=len(classes), n_features=n_features)
    invariants = getattr(cls, "_check_state_invariants", None)
    if invariants is not None:
        try:
            invariants(classes, arrays, n_features)
        except ValueError as error:
            raise _Invalid(str(error)) from error


def check_state(spec, arrays, *, n_classes, n_features):
    """Validate arrays against a spec ``{name: (shape, checks)}``.

    Shapes use ``"k"`` (classes), ``"d"`` (features), ints, or other letters that
    are bound by their first use; checks are ``"finite"`` (float64 statistics,
    all finite) and ``"nonneg"``. Other arrays are float64 or int64, except that
    ``"uint8"`` in checks asks for a uint8 array (raw bytes, such as UTF-8 text).
    Every array must be C-contiguous.
    """
    sizes = {"k": n_classes, "d": n_features}
    for name, (shape, checks) in spec.items():
        array = arrays[name]
        _check_dtype(name, array.dtype, checks)
        _check_shape(name, array.shape, shape, sizes)
        if not array.flags.c_contiguous:
            raise _Invalid(f"{name} is not C-contiguous")
        if "finite" in checks and not np.all(np.isfinite(array)):
            raise _Invalid(f"{name} holds non-finite values")
        if "nonneg" in checks and np.any(array < 0):
            raise _Invalid(f"{name} holds negative values")


def _qualified_name(obj):
    cls = type(obj)
    module = cls.__module__.split(".")
    return f"{module[0]}'s {cls.__name__}" if module[0] != "builtins" else cls.__name__


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
    for model in models:
        # (by class, not name: scikit-learn's MultinomialNB is not fastnb's)
        if _REGISTRY.get(type(model).__name__) is not type(model):
            raise TypeError(
                f"Cannot merge {_qualified_name(model)}: merge takes fitted "
                "fastnb estimators of one class (fastnb's "
                f"{', '.join(sorted(_REGISTRY))})."
            )
    first = models[0]
    cls = type(first)
    params = {k: v for k, v in first.get_params(deep=False).items() if k != "n_threads"}
    for model in models:
        if type(model) is not cls:
            raise TypeError(
                f"Cannot merge {type(model).__name__} into {cls.__name__}: merge "
                "takes fitted models of one class."
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
