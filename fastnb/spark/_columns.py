"""Spark columns to what fastnb's estimators read, on the driver and in the tasks.

The driver checks the schema (``input_spec``) before any job runs and picks, per
input, what the tasks receive; the tasks turn each Arrow batch into X, y and the
weights (``batch_arrays``) with NumPy only: Spark's vectors arrive as Arrow
structs ``(type, size, indices, values)`` and become a CSR matrix without being
densified; arrays and ``vector_to_array`` output arrive as one flat buffer of
doubles that is reshaped, not copied.
"""

import numpy as np

# Spark's VectorUDT stores type 0 for a sparse and 1 for a dense vector.
_SPARSE = 0

# The kinds of features input: a VectorUDT column of a count model (its sparse
# rows read as their struct, so they stay sparse, and its dense rows through
# vector_to_array), a VectorUDT column read through vector_to_array (the dense
# models), an array column, raw columns (inputCols), a text column.
VECTOR, VECTOR_DENSE, ARRAY, COLUMNS, TEXT = "vector", "vector_dense", "array", \
    "columns", "text"

# The names of the columns a task receives, whatever the user called them.
FEATURES, LABEL, WEIGHT = "__fastnb_features", "__fastnb_label", "__fastnb_weight"
# VECTOR's dense rows (FEATURES then holds its sparse and null rows).
DENSE_FEATURES = "__fastnb_dense_features"


def _types():
    from pyspark.sql import types

    return types


def _is_numeric(data_type):
    return isinstance(data_type, _types().NumericType)


def _column_type(schema, name, param):
    if not isinstance(name, str):
        raise TypeError(f"{param} must be a column name (str), got {name!r}.")
    if name not in schema.names:
        raise ValueError(f"{param}={name!r} is not a column of the DataFrame; its columns "
                         f"are {schema.names}.")
    return schema[name].dataType


def input_spec(estimator, schema, *, with_label):
    """The features input of ``estimator`` on ``schema``: (kind, columns), checked.

    Raises TypeError or ValueError naming the column for a missing column or one
    of a type the model cannot read, before any Spark job runs.
    """
    from pyspark.ml.linalg import VectorUDT

    types = _types()
    model_name = estimator.fastnb_class.__name__
    if with_label:
        _column_type(schema, estimator.getLabelCol(), "labelCol")
        if estimator.isSet("weightCol") and estimator.getWeightCol():
            weight = _column_type(schema, estimator.getWeightCol(), "weightCol")
            if not _is_numeric(weight):
                raise TypeError(f"weightCol {estimator.getWeightCol()!r} must be numeric, "
                                f"not {weight.simpleString()}.")
    inputs = [f"{param}={value!r}" for param, value in (
        ("inputCols", estimator.getOrDefault("inputCols") if estimator.isSet("inputCols")
         else None),
        ("inputCol", estimator.getOrDefault("inputCol") if estimator.isSet("inputCol")
         else None),
        ("featuresCol", estimator.getFeaturesCol() if estimator.isSet("featuresCol")
         else None)) if value]
    if len(inputs) > 1:
        raise ValueError(f"{' and '.join(inputs)} are set together: the features come "
                         "from one of inputCols, inputCol (text) and featuresCol; unset "
                         "the others.")
    if estimator.isSet("inputCols") and estimator.getInputCols():
        columns = list(estimator.getInputCols())
        for name in columns:
            data_type = _column_type(schema, name, "inputCols")
            if not isinstance(data_type, (types.NumericType, types.StringType,
                                          types.BooleanType)):
                raise TypeError(f"inputCols column {name!r} is "
                                f"{data_type.simpleString()}: {model_name} reads numeric, "
                                "string and boolean columns.")
            if not _is_numeric(data_type) and not estimator.takes_raw_columns:
                raise TypeError(f"inputCols column {name!r} is {data_type.simpleString()}: "
                                f"{model_name} reads numbers; CategoricalNB and "
                                "ColumnwiseNB read strings and booleans.")
        return COLUMNS, columns
    if estimator.isSet("inputCol") and estimator.getInputCol():
        name = estimator.getInputCol()
        if not estimator.takes_counts:
            raise TypeError(f"{model_name} does not read text: inputCol with a vectorizer "
                            "is for MultinomialNB, ComplementNB and BernoulliNB.")
        data_type = _column_type(schema, name, "inputCol")
        if not isinstance(data_type, types.StringType):
            raise TypeError(f"inputCol {name!r} is {data_type.simpleString()}, not a string "
                            "column of documents.")
        check_vectorizer(estimator.getOrDefault("vectorizer"), estimator.fastnb_class)
        return TEXT, [name]
    name = estimator.getFeaturesCol()
    data_type = _column_type(schema, name, "featuresCol")
    if isinstance(data_type, VectorUDT):
        return (VECTOR if estimator.takes_counts else VECTOR_DENSE), [name]
    if isinstance(data_type, types.ArrayType) and _is_numeric(data_type.elementType):
        return ARRAY, [name]
    raise TypeError(f"featuresCol {name!r} is {data_type.simpleString()}: it must be a "
                    "vector (VectorUDT) or an array of numbers; use inputCols for "
                    "separate columns.")


def check_vectorizer(vectorizer, model_class):
    """On the driver: ``vectorizer`` can run in the tasks, and gives what
    ``model_class`` reads (a count model: no negative values)."""
    model_name = model_class.__name__
    if vectorizer is None:
        raise ValueError("inputCol needs a vectorizer: a fastnb.text.HashingVectorizer "
                         "or a CountVectorizer with a fixed vocabulary.")
    if not hasattr(vectorizer, "transform"):
        raise TypeError(f"vectorizer must be a fastnb.text vectorizer, got "
                        f"{type(vectorizer).__name__}.")
    try:
        vectorizer.transform([""])  # its parameters, and its vocabulary, checked
    except (ValueError, TypeError, AttributeError) as error:
        raise ValueError(f"The vectorizer cannot transform text ({error}): every task "
                         "must make the same columns, so a CountVectorizer needs its "
                         "vocabulary (fitted on a sample, or vocabulary=...) before the "
                         "fit.") from None
    if getattr(model_class, "_check_negative", False) and \
            getattr(vectorizer, "alternate_sign", False):
        raise ValueError(f"The vectorizer has alternate_sign=True, which gives negative "
                         f"values: {model_name} counts, and a count cannot be negative. "
                         "Use HashingVectorizer(alternate_sign=False, norm=None).")


def feature_exprs(kind, columns):
    """The Spark columns a task receives for the features."""
    from pyspark.sql import functions as F

    if kind == VECTOR:
        from pyspark.ml.functions import vector_to_array

        # A dense vector's struct reaches Arrow row by row, 8x slower than
        # vector_to_array's flat doubles (VectorAssembler output is dense, or
        # mixed); a sparse one must stay sparse: each row goes the way of its type.
        vector = F.col(columns[0])
        dense = F.unwrap_udt(vector).getField("type") == 1
        return [F.when(~dense | dense.isNull(), vector).alias(FEATURES),
                F.when(dense, vector_to_array(vector)).alias(DENSE_FEATURES)]
    if kind == VECTOR_DENSE:
        from pyspark.ml.functions import vector_to_array

        return [vector_to_array(F.col(columns[0])).alias(FEATURES)]
    if kind == ARRAY:
        return [F.col(columns[0]).cast("array<double>").alias(FEATURES)]
    if kind == COLUMNS:
        return [F.col(name) for name in columns]
    return [F.col(columns[0]).alias(FEATURES)]


def feature_names(kind, columns):
    """The names of the columns ``feature_exprs`` gives, in its order."""
    if kind == COLUMNS:
        return list(columns)
    return [FEATURES, DENSE_FEATURES] if kind == VECTOR else [FEATURES]


def _flat_lists(array):
    """A list array's row offsets (from 0) and its flat child values."""
    offsets = np.asarray(array.offsets.to_numpy(zero_copy_only=False), dtype=np.int64)
    start, stop = int(offsets[0]), int(offsets[-1])
    values = array.values.slice(start, stop - start)
    return offsets - start, values


def _doubles(values):
    """A flat Arrow array of numbers as float64, nulls as NaN (missing)."""
    import pyarrow as pa

    if values.null_count:
        values = values.cast(pa.float64()).fill_null(np.nan)
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=np.float64)


def _width(sizes, name):
    """The number of features of a column whose non-null rows have ``sizes``."""
    if sizes.size == 0:
        raise ValueError(f"Column {name!r} holds only null vectors: no feature count.")
    d = int(sizes[0])
    if np.any(sizes != d):
        raise ValueError(f"Column {name!r} holds vectors of sizes {np.unique(sizes)}; "
                         "every row needs the same number of features.")
    return d


def _array_rows(array, name):
    """A list<double> column (an array column, or vector_to_array's output) as a
    dense (n, d) matrix; a null row is a row of missing values."""
    n = len(array)
    null_rows = array.is_null().to_numpy(zero_copy_only=False) if array.null_count \
        else None
    offsets, values = _flat_lists(array)
    lengths = np.diff(offsets)
    d = _width(lengths if null_rows is None else lengths[~null_rows], name)
    flat = _doubles(values)
    if null_rows is None:
        return flat.reshape(n, d)
    X = np.full((n, d), np.nan)
    X[~null_rows] = flat.reshape(-1, d)
    return X


def _vector_rows(array, name):
    """A VectorUDT column's Arrow struct as a CSR matrix, or as a dense matrix when
    every row is dense; a null vector is a row of missing values."""
    from scipy import sparse

    n = len(array)
    null_rows = array.is_null().to_numpy(zero_copy_only=False) if array.null_count \
        else np.zeros(n, dtype=bool)
    kinds = np.asarray(array.field("type").fill_null(1).to_numpy(zero_copy_only=False))
    offsets, values = _flat_lists(array.field("values"))
    lengths = np.diff(offsets)
    sparse_rows = (kinds == _SPARSE) & ~null_rows
    sizes = array.field("size").fill_null(-1).to_numpy(zero_copy_only=False)
    d = _width(np.where(sparse_rows, sizes, lengths)[~null_rows], name)
    flat = _doubles(values)
    if not sparse_rows.any() and not null_rows.any():
        return flat.reshape(n, d)
    columns = np.arange(flat.size, dtype=np.int64) - np.repeat(offsets[:-1], lengths)
    if sparse_rows.any():
        index_offsets, indices = _flat_lists(array.field("indices"))
        in_sparse_row = np.repeat(sparse_rows, lengths)
        columns[in_sparse_row] = indices.to_numpy(zero_copy_only=False)
    if null_rows.any():
        # every feature of a null vector is missing: d explicit NaN entries
        lengths = np.where(null_rows, d, lengths)
        starts = np.concatenate([[0], np.cumsum(lengths)])
        full_flat = np.full(starts[-1], np.nan)
        full_columns = np.empty(starts[-1], dtype=np.int64)
        kept = np.repeat(~null_rows, lengths)
        full_flat[kept] = flat
        full_columns[kept] = columns
        full_columns[~kept] = np.tile(np.arange(d, dtype=np.int64), int(null_rows.sum()))
        flat, columns, offsets = full_flat, full_columns, starts
    return sparse.csr_matrix((flat, columns, offsets), shape=(n, d))


def _split_vector_rows(batch, name):
    """VECTOR's features: the sparse and null rows from their structs (FEATURES),
    the dense rows from vector_to_array's doubles (DENSE_FEATURES), put back in
    the rows' order; a dense matrix when every row is dense."""
    from scipy import sparse

    structs, arrays = batch.column(FEATURES), batch.column(DENSE_FEATURES)
    if arrays.null_count == len(arrays):
        return _vector_rows(structs, name)
    if arrays.null_count == 0:
        return _array_rows(arrays, name)
    dense_rows = ~np.asarray(arrays.is_null().to_numpy(zero_copy_only=False))
    dense = _array_rows(arrays.filter(dense_rows), name)
    d = dense.shape[1]
    others = structs.filter(~dense_rows)
    if others.null_count == len(others):  # null vectors: rows of missing values
        rest = sparse.csr_matrix(np.full((len(others), d), np.nan))
    else:
        rest = sparse.csr_matrix(_vector_rows(others, name))
        if rest.shape[1] != d:
            _width(np.array([d, rest.shape[1]]), name)  # raises, naming both sizes
    order = np.concatenate([np.flatnonzero(dense_rows), np.flatnonzero(~dense_rows)])
    stacked = sparse.vstack([sparse.csr_matrix(dense), rest], format="csr")
    return stacked[np.argsort(order, kind="stable")]


def _raw_columns(batch, columns, takes_raw):
    """inputCols: a pyarrow Table for the models that read raw columns, else the
    numbers as a float64 matrix with nulls as NaN."""
    import pyarrow as pa

    if takes_raw:
        return pa.Table.from_batches([batch.select(columns)]) if hasattr(batch, "select") \
            else pa.table({c: batch.column(c) for c in columns})
    X = np.empty((batch.num_rows, len(columns)))
    for j, name in enumerate(columns):
        X[:, j] = _doubles(batch.column(name))
    return X


def check_counts(X, columns, kind, model_name):
    """A count model's features must not be negative: name the column that is."""
    data = X if isinstance(X, np.ndarray) else X.data
    if data.size == 0 or not (np.nanmin(data) < 0):
        return
    if kind == COLUMNS:
        column = columns[int(np.nonzero(np.nanmin(X, axis=0) < 0)[0][0])]
    else:
        column = columns[0]
    raise ValueError(f"Column {column!r} holds a negative value ({np.nanmin(data):g}): "
                     f"{model_name} counts, and a count cannot be negative.")


def features(batch, kind, columns, *, takes_raw=False, vectorizer=None):
    """X of one Arrow record batch."""
    if kind == COLUMNS:
        return _raw_columns(batch, columns, takes_raw)
    column = batch.column(FEATURES)
    if kind == TEXT:
        documents = column.fill_null("").to_numpy(zero_copy_only=False)
        return vectorizer.transform(documents)
    if kind == VECTOR:
        return _split_vector_rows(batch, columns[0])
    return _array_rows(column, columns[0])


def labels(batch, name):
    """y of one record batch: the label column's own values (any type)."""
    column = batch.column(LABEL)
    if column.null_count:
        raise ValueError(f"labelCol {name!r} holds nulls: every training row needs a "
                         "label.")
    return column.to_numpy(zero_copy_only=False)


def weights(batch, name):
    """sample_weight of one record batch, or None."""
    if WEIGHT not in batch.schema.names:
        return None
    column = batch.column(WEIGHT)
    if column.null_count:
        raise ValueError(f"weightCol {name!r} holds nulls.")
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.float64)
