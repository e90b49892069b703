"""X as columns, each read where it lives, and the blocks each sub-model reads
(see the package notes, "How the data moves")."""

import numpy as np

from .._dispatch import load_kernels
from .._validation import _shape_errors, is_sparse

_kernels = load_kernels("_columnwise_kernels")

# Rows per band when columns are copied side by side (see _stack_columns).
_STACK_ROWS = 4096
# DataFrame columns of these dtypes are put side by side by a kernel (stack_columns).
_STACKED_DTYPES = (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.bool_))


def _is_dataframe(X):
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


def _arrow_table(X):
    """X as a pyarrow Table when it is a data frame that exports Arrow (polars,
    pyarrow's Table, any frame with ``__arrow_c_stream__`` or ``to_arrow``) and
    pandas and pyarrow are installed; else None. pandas frames are not asked:
    their columns are read as they are."""
    if _is_dataframe(X) or isinstance(X, np.ndarray) or not hasattr(X, "columns") \
            or not (hasattr(X, "__arrow_c_stream__") or hasattr(X, "to_arrow")):
        return None
    try:
        import pandas  # noqa: F401  (the extension columns below are pandas')
        import pyarrow as pa
    except ImportError:
        return None
    table = pa.table(X) if hasattr(X, "__arrow_c_stream__") else X.to_arrow()
    return table if isinstance(table, pa.Table) else None


def _arrow_column(column):
    """One Arrow column (ChunkedArray) as the pandas path reads it: numbers and
    bools without nulls as NumPy arrays (floats with nulls too, as NaN);
    dictionaries (polars' Categorical and Enum) as pandas categoricals; strings
    and the rest as pandas Series of ArrowDtype, so Arrow strings take the
    string-table path (_arrow_strings) as pandas' own Arrow strings do."""
    import pandas as pd
    import pyarrow as pa

    kind = column.type
    if pa.types.is_floating(kind) or (
            column.null_count == 0 and (pa.types.is_integer(kind)
                                        or pa.types.is_boolean(kind))):
        return column.to_numpy()
    if pa.types.is_dictionary(kind):
        return column.to_pandas()
    if pa.types.is_string_view(kind):
        column = column.cast(pa.large_string())
    return pd.Series(pd.arrays.ArrowExtensionArray(column), copy=False)


def _is_extension(column):
    """A pandas Series of an extension dtype (category, str, Int64, boolean, ...)."""
    return not isinstance(column, np.ndarray)


class _Table:
    """X as columns, each read where it lives (see the package notes).

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
        arrow = _arrow_table(X)
        if arrow is not None:
            shape = arrow.shape
            _shape_errors(np.empty(shape, dtype=np.bool_), name)
            self.labels = list(arrow.column_names)
            self.columns = [_arrow_column(column) for column in arrow.columns]
        elif _is_dataframe(X):
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
            self.array, shape = array, array.shape
            labels = getattr(X, "columns", None)
            if not isinstance(X, np.ndarray) and labels is not None and all(
                    isinstance(label, str) for label in labels):
                # A frame read as one array (no pyarrow to read it by columns):
                # its names still select columns.
                self.labels = list(labels)
        self.n_samples, self.n_columns = shape
        self.shape = (self.n_samples, self.n_columns)
        self._arrow = {}

    def arrow_strings(self, j):
        """Column j as a pyarrow string ChunkedArray when Arrow stores its strings
        (see _arrow_strings), else None; looked up once per table."""
        if j not in self._arrow:
            self._arrow[j] = None if self.columns is None else _arrow_strings(
                self.columns[j])
        return self._arrow[j]

    def column(self, j):
        return self.array[:, j] if self.array is not None else self.columns[j]

    def block(self, columns, start, stop, categorical, scratch=None, n_threads=1):
        """Rows start:stop of the given columns, as a sub-model reads them.

        ``categorical``: for CategoricalNB (values as they are); otherwise numbers.
        ``scratch``: a dict in which a block of DataFrame columns put side by side
        is kept for the next call on the same columns (and overwritten by it).
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
            return self._categorical_frame(parts, [self.arrow_strings(j) for j in
                                                   columns], start, stop, n_threads)
        dtype = parts[0].dtype if not _is_extension(parts[0]) else None
        same = dtype in _STACKED_DTYPES and all(
            not _is_extension(p) and p.dtype == dtype for p in parts)
        if same and dtype.kind == "f":
            # Columns that pandas keeps in one 2d array: a view of it, read in
            # place (GaussianNB's kernels take any strides), no copy at all.
            view = _shared_view(parts)
            if view is not None:
                return view[start:stop]
        if len(parts) > 1 and same:
            # One compiled pass, into the caller's scratch when it keeps one.
            out = None if scratch is None else scratch.get(tuple(columns))
            if out is None or out.shape[0] < stop - start:
                out = np.empty((stop - start, len(parts)), dtype=dtype)
                if scratch is not None:
                    scratch[tuple(columns)] = out
            out = out[:stop - start]
            as_bytes = dtype == np.bool_
            _kernels.stack_columns([p.view(np.uint8) if as_bytes else p for p in parts],
                                   out.view(np.uint8) if as_bytes else out, start)
            return out
        pieces = [_numeric_piece(part, start, stop, categorical) for part in parts]
        if len(pieces) == 1:
            return pieces[0].reshape(-1, 1)
        return _stack_columns(pieces)

    @staticmethod
    def _categorical_frame(parts, strings, start, stop, n_threads):
        """A DataFrame (unnamed columns) of category columns for CategoricalNB
        (``strings``: each part's Arrow strings, or None). Arrow strings are
        factorised by a kernel (each distinct string is then keyed once, not once
        per row), on up to ``n_threads`` Python threads (the kernel releases the
        GIL)."""
        import pandas as pd

        def factorised(i):
            codes = np.empty(stop - start, dtype=np.int32)
            uniques = _arrow_string_codes(strings[i], start, stop, codes)
            return pd.Categorical.from_codes(codes, categories=uniques, validate=False)

        arrow = [i for i, column in enumerate(strings) if column is not None]
        if n_threads > 1 and len(arrow) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(min(n_threads, len(arrow))) as pool:
                columns = dict(zip(arrow, pool.map(factorised, arrow)))
        else:
            columns = {i: factorised(i) for i in arrow}
        for i, part in enumerate(parts):
            if i in columns:
                continue
            if not _is_extension(part):
                columns[i] = part[start:stop]
            elif isinstance(part.dtype, pd.StringDtype):
                codes, uniques = part.array[start:stop].factorize()
                columns[i] = pd.Categorical.from_codes(codes, categories=uniques,
                                                       validate=False)
            else:  # pandas Categorical, or another extension array
                columns[i] = part.array[start:stop]
        return pd.DataFrame({i: columns[i] for i in range(len(parts))}, copy=False)


def _shared_view(parts):
    """The 1d columns as one (n, d) view, when they are evenly spaced in one
    buffer (pandas keeps a DataFrame's columns of one dtype as the rows of one 2d
    array); else None. Element (i, j) of the view is element i of column j, so the
    view reads nothing the columns do not hold."""
    first = parts[0]
    base = first.base
    if base is None or any(
            p.base is not base or p.shape != first.shape or p.strides != first.strides
            for p in parts):
        return None
    address = [p.__array_interface__["data"][0] for p in parts]
    step = address[1] - address[0] if len(parts) > 1 else first.itemsize
    if step == 0 or any(a != address[0] + j * step for j, a in enumerate(address)):
        return None
    return np.lib.stride_tricks.as_strided(
        first, shape=(first.shape[0], len(parts)), strides=(first.strides[0], step),
        writeable=False)


def _arrow_strings(part):
    """The pyarrow ChunkedArray of a pandas string column stored by Arrow (the
    ``str``/``string[pyarrow]`` dtypes, or ``ArrowDtype`` of (large) strings), as
    a zero-copy view; None for any other column."""
    if not _is_extension(part):
        return None
    dtype = part.dtype
    pyarrow_type = getattr(dtype, "pyarrow_dtype", None)  # pd.ArrowDtype
    if getattr(dtype, "storage", None) != "pyarrow" and pyarrow_type is None:
        return None
    import pyarrow as pa

    strings = part.array.__arrow_array__()
    kind = strings.type
    return strings if pa.types.is_string(kind) or pa.types.is_large_string(kind) \
        else None


def _arrow_string_codes(strings, start, stop, codes):
    """The distinct strings of rows start:stop of a pyarrow string ChunkedArray
    (an object array, each decoded once), with each row's code written into
    ``codes`` (int32, -1 for a null), as pandas' factorize numbers them."""
    import pyarrow as pa

    strings = strings.slice(start, stop - start)
    array = strings.chunk(0) if strings.num_chunks == 1 else strings.combine_chunks()
    n = len(array)
    validity, offsets, data = array.buffers()[:3]
    offsets = np.frombuffer(offsets, dtype=np.int64 if pa.types.is_large_string(
        array.type) else np.int32)[array.offset:array.offset + n + 1]
    data = np.zeros(0, np.uint8) if data is None else np.frombuffer(data, np.uint8)
    bits = None if validity is None or array.null_count == 0 else \
        np.frombuffer(validity, np.uint8)
    size = 1024
    while True:  # a table 8 times larger until the distinct strings fit
        first_rows = np.empty(size // 2, dtype=np.int64)
        n_codes = _kernels.string_codes(offsets, data, bits, array.offset, codes,
                                        np.zeros(size, dtype=np.int32), first_rows)
        if n_codes >= 0:
            break
        size *= 8
    return array.take(first_rows[:n_codes]).to_numpy(zero_copy_only=False)


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


def is_missing_object(value):
    """Whether an object cell is a missing value other than NaN: None, or pandas'
    ``pd.NA`` (recognised without importing pandas)."""
    return value is None or (type(value).__name__ == "NAType"
                             and type(value).__module__.startswith("pandas"))


_missing_as_none = np.frompyfunc(lambda v: None if is_missing_object(v) else v, 1, 1)


def _as_float(values):
    """Object or string values as float64 (None and pd.NA -> NaN), or a clear
    error. A TypeError stays a TypeError (an unhashable or odd object), as in
    NumPy."""
    try:
        return np.array(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        failure = error
    if isinstance(failure, TypeError) and values.dtype == object:
        # pd.NA has no float(): the rare column that holds it is read again with
        # every pd.NA as None, which NumPy reads as NaN.
        try:
            return np.array(_missing_as_none(values), dtype=np.float64)
        except (TypeError, ValueError) as error:
            failure = error
    raise type(failure)(
        f"X holds values that are not numbers ({failure}); give such columns to a "
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
