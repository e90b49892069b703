"""The joint log likelihood of each fastnb model as ONNX nodes.

Each ``*_jll(graph, model, x)`` writes the nodes that compute the model's (n, k)
joint log likelihood from its input tensor ``x`` the way the model's predict
does (the same terms; missing values, NaN, left out of the sum), and returns the
name of that tensor. ``model_inputs`` says what inputs a model's graph takes.
"""

import numpy as np
from onnx import TensorProto

from .._capabilities import capabilities_of, registered_models
from .._categorical._kernels import LOOKUP
from ._graph import ML_DOMAIN

# Rows of features computed at a time when the weights of a sparse count table
# are written out: (TABLE_BLOCK, k) float64 scratch (4.6 MB at 35 classes), so
# the only full-size array made is the (d, k) weights in the export's dtype.
TABLE_BLOCK = 1 << 14


def check_fitted(model):
    """The model is one of fastnb's, its terms have a converter, and it is
    fitted; else a clear error."""
    _jll_of(model)
    if not hasattr(model, "classes_"):
        raise ValueError(
            f"This {type(model).__name__} instance is not fitted yet (it has no "
            "classes_): call fit before exporting it to ONNX.")
    if capabilities_of(model).composite:
        for _, sub_model, _ in model.estimators_:
            check_fitted(sub_model)


# -- inputs ------------------------------------------------------------------------


def _categorical_features(model):
    """Per feature of a CategoricalNB: ("code", None) for an integer-code feature,
    ("string", categories) or ("number", categories) for a value feature."""
    lookup = model._predict_tables.lookup
    kinds = []
    for j, categories in enumerate(model.categories_):
        if lookup[j] == LOOKUP["code"]:
            kinds.append(("code", None))
            continue
        if lookup[j] != LOOKUP["hash"]:
            raise ValueError(
                "CategoricalNB with hash_buckets cannot be exported to ONNX: its "
                "buckets come from fastnb's own 64-bit hash of each value. Fit "
                "without hash_buckets to export.")
        values = list(categories)
        if all(isinstance(v, str) for v in values):
            kinds.append(("string", values))
        elif all(isinstance(v, (int, float, np.integer, np.floating))
                 and not isinstance(v, (bool, np.bool_)) for v in values):
            kinds.append(("number", np.array(values, dtype=np.float64)))
        else:
            raise ValueError(
                f"CategoricalNB feature {_feature_name(model, j)} has categories of "
                f"types {sorted({type(v).__name__ for v in values})}: ONNX inputs "
                "are numbers or strings, one type a column.")
    return kinds


def _feature_name(model, j):
    names = getattr(model, "feature_names_in_", None)
    return repr(str(names[j])) if names is not None else str(j)


def _categorical_input_kind(model, features=None):
    """"string" or "number": the one input type of a CategoricalNB's columns."""
    features = _categorical_features(model) if features is None else features
    kinds = {"string" if kind == "string" else "number" for kind, _ in features}
    if len(kinds) > 1:
        strings = [_feature_name(model, j) for j, (kind, _) in enumerate(features)
                   if kind == "string"]
        raise ValueError(
            "CategoricalNB has string features (" + ", ".join(strings) + ") and "
            "numeric ones: one ONNX tensor holds one type. Model them with a "
            "ColumnwiseNB (one input a column) to export, or encode the numbers "
            "as strings.")
    return kinds.pop() if kinds else "number"


def model_inputs(model, dtype):
    """[(name, element type, n_columns)]: the graph's inputs.

    One (n, n_features) tensor ``X`` for every model but ColumnwiseNB, which
    takes one (n, 1) tensor a column it models, named after the column
    (``feature_names_in_``, else ``x0``, ``x1``, ...), typed by the sub-model of
    the column: strings for a CategoricalNB's string columns, the float type
    otherwise. Dropped columns are not inputs."""
    float_type = TensorProto.FLOAT if np.dtype(dtype) == np.float32 else TensorProto.DOUBLE
    if capabilities_of(model).composite:
        names = getattr(model, "feature_names_in_", None)
        inputs = []
        for (_, sub_model, _), positions in zip(model.estimators_, model._positions):
            if capabilities_of(sub_model).terms == "categorical":
                kinds = [kind for kind, _ in _categorical_features(sub_model)]
            else:
                kinds = ["number"] * len(positions)
            for j, kind in zip(positions, kinds):
                name = str(names[j]) if names is not None else f"x{j}"
                inputs.append((name, TensorProto.STRING if kind == "string"
                               else float_type, 1))
        return inputs
    element = float_type
    if (capabilities_of(model).terms == "categorical"
            and _categorical_input_kind(model) == "string"):
        element = TensorProto.STRING
    return [("X", element, model.n_features_in_)]


# -- GaussianNB --------------------------------------------------------------------


def gaussian_jll(graph, model, x):
    """jll[c] = log prior[c] - sum over observed j of
    ((x_j - theta[c, j])**2 * 0.5 / var[c, j] + 0.5 * log(2 pi var[c, j]))."""
    missing, observed = graph.zeros_where_missing(x)
    theta = graph.const(model.theta_, "theta")
    diff = graph.node("Sub", [graph.unsqueeze(observed, 1), theta], "diff")
    square = graph.node("Mul", [diff, diff], "square")
    scaled = graph.node("Mul", [square, graph.const(model._half_inv_var, "half_inv_var")])
    terms = graph.node("Add", [scaled, graph.const(model._half_log_2pi_var,
                                                   "half_log_2pi_var")], "terms")
    zero = graph.const(np.zeros(1), "zero")
    kept = graph.node("Where", [graph.unsqueeze(missing, 1), zero, terms], "kept")
    total = graph.reduce("ReduceSum", kept, 2, False, "total")
    return graph.node("Sub", [graph.const(model._log_prior, "log_prior"), total], "jll")


# -- BernoulliNB, MultinomialNB, ComplementNB ----------------------------------------


def _centred(block):
    """Subtract from each feature's row of (features, k) float64 weights, in
    place, its mean over the classes (where every class's weight is finite).

    Each row's jll then moves by sum_j x_j mean_j, the same for every class:
    the probabilities and the arg-max are those of the model, and the scores
    the graph sums are the differences between classes, not log probabilities
    of -10 to -20 a feature whose float32 rounding (~1e-6 each) would add up
    over a row's features."""
    with np.errstate(invalid="ignore"):
        mean = block.mean(axis=1, keepdims=True)
    block -= np.where(np.isfinite(mean), mean, 0.0)
    return block


def _table_weights(model, dtype):
    """(d, k) weights, centred (``_centred``), and (k,) bias of a model on the
    sparse count table, written from the table's terms by blocks of features
    without a dense float64 copy:

        W[j, c] = mult[c] * (base[j] + scale[c] + w[c, j])

    with w the entry weight of (class, feature) pairs with a count, 0 elsewhere
    (the table predict's ``bias + mult * (x . base + s(x) scale + x . w)``)."""
    cache = model._table_predict_state()
    feat_base, bias, scale, mult = cache["table_terms"]
    table = model._table
    d, k = table.n_features, table.n_classes
    base = np.broadcast_to(np.asarray(feat_base, dtype=np.float64), (d,))
    features, classes, positions = table.entries()   # feature-major
    values = mult[classes] * ((base[features] + scale[classes])
                              + cache["table_entry_weights"][positions])
    weights = np.empty((d, k), dtype=dtype)
    if np.all(mult == mult[0]):
        # One multiplier (MultinomialNB; ComplementNB without norm): the centred
        # weight of a pair without a count is mult (scale[c] - mean(scale)) less
        # the feature's mean of what its entries add, so the (d, k) array is one
        # broadcast subtraction, in the export's dtype, then the entries.
        added = np.bincount(features, values - mult[classes] * (
            base[features] + scale[classes]), minlength=d) / k
        row = mult[0] * (scale - scale.mean())
        np.subtract(row.astype(dtype)[None, :], added.astype(dtype)[:, None],
                    out=weights)
        weights[features, classes] = values - (
            mult[0] * (base[features] + scale.mean()) + added[features])
        return weights, np.asarray(bias, dtype=np.float64)
    bounds = np.searchsorted(features, np.arange(0, d + TABLE_BLOCK, TABLE_BLOCK))
    scratch = np.empty((min(d, TABLE_BLOCK), k))
    for i, start in enumerate(range(0, d, TABLE_BLOCK)):
        stop = min(d, start + TABLE_BLOCK)
        block = scratch[:stop - start]
        np.add(base[start:stop, None], scale, out=block)
        block *= mult
        lo, hi = bounds[i], bounds[i + 1]
        block[features[lo:hi] - start, classes[lo:hi]] = values[lo:hi]
        weights[start:stop] = _centred(block)
    return weights, np.asarray(bias, dtype=np.float64)


def discrete_jll(graph, model, x):
    """jll = x @ W.T + bias, W and bias as the model's predict reads them (W
    centred, ``_centred``); NaN (missing) adds nothing: it is read as 0, and
    BernoulliNB's log(1 - p) terms are summed over the observed features only
    (jll = log prior + x @ (log p - log(1 - p)).T + observed @ log(1 - p).T)."""
    bernoulli = capabilities_of(model).terms == "bernoulli"
    if model.__dict__.get("_table") is not None and not bernoulli:
        weights_t, bias = _table_weights(model, graph.dtype)
    else:
        if bernoulli:
            # (the dense weights; on the table too, from its counts)
            weights = model._predict_weights(model.feature_log_prob_,
                                             model.class_log_prior_)[0]
            bias = model.class_log_prior_
        else:
            weights, bias = model._weights, model._bias
        weights_t = _centred(np.array(weights.T, dtype=np.float64))
    missing, observed = graph.zeros_where_missing(x)
    threshold = model._threshold()
    values = observed
    if threshold is not None:
        above = graph.node("Greater", [observed, graph.const(np.array([threshold]),
                                                            "binarize")], "above")
        values = graph.node("Cast", [above], "binary", to=graph.element_type)
    product = graph.node("MatMul", [values, graph.const(weights_t, "weights")])
    jll = graph.node("Add", [product, graph.const(bias, "bias")], "jll")
    if not bernoulli:
        return jll
    log_absent = _centred(np.array(model._missing_log_terms().T, dtype=np.float64))
    seen = graph.node("Cast", [graph.node("Not", [missing])], "observed_indicator",
                      to=graph.element_type)
    absent = graph.node("MatMul", [seen, graph.const(log_absent, "log_absent")])
    return graph.node("Add", [jll, absent], "jll_observed")


# -- CategoricalNB -----------------------------------------------------------------


def _categorical_table(model):
    """(sum_j (n_categories[j] + 1), k) log probabilities, feature by feature, each
    feature's last row the smoothed probability of an unseen category (read from
    the model's predict tables), and each feature's first row in it."""
    tables = model._predict_tables
    k = model.classes_.shape[0]
    blocks = []
    for j, n_categories in enumerate(tables.n_categories):
        start = tables.block_start[j]
        size = (n_categories + 1) * tables.row_width
        blocks.append(tables.log_prob[start:start + size].reshape(-1, tables.row_width)[:, :k])
    sizes = np.array([b.shape[0] for b in blocks], dtype=np.int64)
    return np.concatenate(blocks), np.concatenate([[0], np.cumsum(sizes)[:-1]])


def categorical_jll(graph, model, x):
    """jll[c] = log prior[c] + sum over observed j of log P(x_j | c): each value's
    row in its feature's block of the table (an integer code is its own row, a
    value is looked up among ``categories_``; unseen: the block's last row),
    gathered, and the missing values' rows left out.

    ``x`` is the (n, d) input, or a list of d (n, 1) columns (ColumnwiseNB's
    inputs, which may mix strings and numbers)."""
    features = _categorical_features(model)
    if isinstance(x, str):
        _categorical_input_kind(model, features)
        columns = [graph.columns(x, [j], "column") for j in range(len(features))]
    else:
        columns = list(x)
    table, first_row = _categorical_table(model)
    n_categories = model._predict_tables.n_categories
    rows, missing = [], []
    for j, ((feature_kind, categories), column) in enumerate(zip(features, columns)):
        if feature_kind == "string":
            # the empty string is missing (row -1, left out) unless a category
            keys, values = list(categories), list(range(len(categories)))
            if "" not in categories:
                keys.append("")
                values.append(-1)
            row = graph.node("LabelEncoder", [column], "row", domain=ML_DOMAIN,
                             keys_strings=keys, values_int64s=values,
                             default_int64=int(n_categories[j]))
            rows.append(row)
            missing.append(graph.node("Less", [row, graph.const(
                np.zeros(1, dtype=np.int64), "zero_row")], "missing"))
            continue
        missing.append(graph.node("IsNaN", [column], "missing"))
        unseen = graph.const(np.array([n_categories[j]], dtype=np.int64), "unseen")
        if feature_kind == "code":
            # an integer in [0, n_categories) is its own row
            whole = graph.node("Equal", [column, graph.node("Floor", [column])])
            low = graph.node("GreaterOrEqual", [column, graph.const(np.zeros(1), "zero")])
            high = graph.node("Less", [column, graph.const(
                np.array([n_categories[j]], dtype=np.float64), "n_categories")])
            code = graph.node("And", [graph.node("And", [whole, low]), high], "is_code")
            safe = graph.node("Where", [code, column, graph.const(np.zeros(1), "zero")],
                              "safe_code")
            as_int = graph.node("Cast", [safe], "code", to=TensorProto.INT64)
            rows.append(graph.node("Where", [code, as_int, unseen], "row"))
            continue
        _check_exact(categories, graph.dtype, model, j)
        # a value feature: the first category equal to the value, else unseen
        equal = graph.node("Equal", [column, graph.const(categories[None, :],
                                                         "categories")], "equal")
        hits = graph.node("Cast", [equal], "hits", to=TensorProto.INT32)
        found = graph.reduce("ReduceMax", hits, 1, True, "found")
        position = graph.node("ArgMax", [hits], "position", axis=1, keepdims=1)
        is_found = graph.node("Cast", [found], "is_found", to=TensorProto.BOOL)
        rows.append(graph.node("Where", [is_found, position, unseen], "row"))
    row = graph.node("Concat", rows, "rows", axis=1) if len(rows) > 1 else rows[0]
    mask = graph.node("Concat", missing, "missing", axis=1) if len(missing) > 1 else missing[0]
    index = graph.node("Add", [row, graph.const(first_row, "first_row",
                                                dtype=np.int64)], "table_row")
    gathered = graph.node("Gather", [graph.const(table, "log_prob"), index],
                          "log_terms", axis=0)
    gathered = graph.node("Where", [graph.unsqueeze(mask, 2), graph.const(
        np.zeros(1), "zero"), gathered], "observed_terms")
    total = graph.reduce("ReduceSum", gathered, 1, False, "total")
    return graph.node("Add", [total, graph.const(model._predict_tables.class_log_prior,
                                                 "class_log_prior")], "jll")


def _check_exact(categories, dtype, model, j):
    """The categories of a numeric value feature are exact in the input's dtype:
    else two categories, or a category and an unseen value, would be one."""
    rounded = categories.astype(dtype).astype(np.float64)
    if not np.array_equal(rounded, categories):
        bad = categories[rounded != categories][:3].tolist()
        raise ValueError(
            f"CategoricalNB feature {_feature_name(model, j)} has categories {bad} "
            f"that {np.dtype(dtype).name} does not hold exactly: export with "
            "dtype=np.float64.")


# -- ColumnwiseNB ------------------------------------------------------------------


def columnwise_jll(graph, model, inputs):
    """jll = the combined bias + the sum of the sub-models' jll, each sub-model's
    graph taking the columns it models, concatenated in its order (the bias: the
    log prior less the log prior each sub-model includes)."""
    names = iter(inputs)
    total = None
    for (_, sub_model, _), positions in zip(model.estimators_, model._positions):
        columns = [next(names) for _ in positions]
        if capabilities_of(sub_model).terms == "categorical":
            block = columns
        else:
            block = (graph.node("Concat", columns, "block", axis=1) if len(columns) > 1
                     else columns[0])
        part = _jll_of(sub_model)(graph, sub_model, block)
        total = part if total is None else graph.node("Add", [total, part], "sum")
    return graph.node("Add", [total, graph.const(model._bias, "combined_bias")], "jll")


# The converter of each kind of joint-log-likelihood terms (Capabilities.terms):
# a model whose kind is not here is refused by name.
TERMS_JLL = {
    "gaussian": gaussian_jll,
    "bernoulli": discrete_jll,
    "multinomial": discrete_jll,
    "complement": discrete_jll,
    "categorical": categorical_jll,
    "composite": columnwise_jll,
}


def supported_models():
    """The registered model classes whose terms have a converter."""
    return [cls for cls in registered_models().values()
            if cls._capabilities.terms in TERMS_JLL]


def model_jll(graph, model, inputs):
    """The (n, k) joint log likelihood of ``model`` from its input names."""
    if capabilities_of(model).composite:
        return columnwise_jll(graph, model, inputs)
    return _jll_of(model)(graph, model, inputs[0])


def _jll_of(model):
    terms = capabilities_of(model, what="fastnb.onnx").terms
    jll = TERMS_JLL.get(terms)
    if jll is None:
        raise TypeError(
            f"fastnb.onnx cannot export {type(model).__name__}: it has no converter "
            f"for its {terms!r} terms (it converts "
            f"{', '.join(sorted(TERMS_JLL))}).")
    return jll
