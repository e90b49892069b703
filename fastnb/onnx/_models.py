"""The joint log likelihood of each fastnb model as ONNX nodes.

Each ``*_jll(graph, terms, x, names)`` writes the nodes that compute the (n, k)
joint log likelihood of a model's typed terms (fastnb/_jll_terms.py, from the
model's ``_jll_terms()``) from its input tensor ``x`` the way the model's
predict does (the same terms; missing values, NaN, left out of the sum), and
returns the name of that tensor: nothing here reads a model's private state.
``model_inputs`` says what inputs a model's graph takes.
"""

import numpy as np
from onnx import TensorProto

from .._capabilities import ONNX_TERMS, capabilities_of, registered_models
from .._jll_terms import (
    CompositeTerms,
    GaussianTerms,
    KernelDensityTerms,
    LinearTerms,
    LookupTerms,
    ParametricTerms,
)
from ._graph import ML_DOMAIN


def check_fitted(model):
    """The model is one of fastnb's, its terms have a converter, and it is
    fitted; else a clear error."""
    terms = capabilities_of(model, what="fastnb.onnx").terms
    if terms not in ONNX_TERMS:
        raise TypeError(
            f"fastnb.onnx cannot export {type(model).__name__}: it has no converter "
            f"for its {terms!r} terms (it converts {', '.join(sorted(ONNX_TERMS))}).")
    if not hasattr(model, "classes_"):
        raise ValueError(
            f"This {type(model).__name__} instance is not fitted yet (it has no "
            "classes_): call fit before exporting it to ONNX.")
    if capabilities_of(model).composite:
        for _, sub_model, _ in model.estimators_:
            check_fitted(sub_model)


# -- inputs ------------------------------------------------------------------------


def _names(model):
    """The model's feature names (``feature_names_in_``), or None."""
    names = getattr(model, "feature_names_in_", None)
    return None if names is None else [str(name) for name in names]


def _feature_name(names, j):
    return repr(names[j]) if names is not None else str(j)


def _lookup_features(terms, names):
    """The LookupTerms' features, each exportable: hashed buckets and value
    features of several types are refused by name."""
    for j, (kind, detail) in enumerate(terms.features):
        if kind == "bucket":
            raise ValueError(
                "CategoricalNB with hash_buckets cannot be exported to ONNX: its "
                "buckets come from fastnb's own 64-bit hash of each value. Fit "
                "without hash_buckets to export.")
        if kind == "mixed":
            raise ValueError(
                f"CategoricalNB feature {_feature_name(names, j)} has categories of "
                f"types {detail}: ONNX inputs are numbers or strings, one type a "
                "column.")
    return terms.features


def _lookup_input_kind(terms, names):
    """"string" or "number": the one input type of a CategoricalNB's columns."""
    features = _lookup_features(terms, names)
    kinds = {"string" if kind == "string" else "number" for kind, _ in features}
    if len(kinds) > 1:
        strings = [_feature_name(names, j) for j, (kind, _) in enumerate(features)
                   if kind == "string"]
        raise ValueError(
            "CategoricalNB has string features (" + ", ".join(strings) + ") and "
            "numeric ones: one ONNX tensor holds one type. Model them with a "
            "ColumnwiseNB (one input a column) to export, or encode the numbers "
            "as strings.")
    return kinds.pop() if kinds else "number"


def model_inputs(model, dtype):
    """[(name, element type, n_columns)]: the graph's inputs.

    One (n, n_features) tensor ``X`` for every model but a composite one
    (ColumnwiseNB), which takes one (n, 1) tensor a column it models, named
    after the column (``feature_names_in_``, else ``x0``, ``x1``, ...), typed by
    the terms of the column: strings for a lookup's string columns, the float
    type otherwise. Dropped columns are not inputs."""
    float_type = TensorProto.FLOAT if np.dtype(dtype) == np.float32 else TensorProto.DOUBLE
    terms = model._jll_terms()
    names = _names(model)
    if isinstance(terms, CompositeTerms):
        inputs = []
        for positions, part in terms.parts:
            if isinstance(part, LookupTerms):
                kinds = [kind for kind, _ in _lookup_features(
                    part, [names[j] for j in positions] if names else None)]
            else:
                kinds = ["number"] * len(positions)
            for j, kind in zip(positions, kinds):
                name = names[j] if names is not None else f"x{j}"
                inputs.append((name, TensorProto.STRING if kind == "string"
                               else float_type, 1))
        return inputs
    element = float_type
    if isinstance(terms, LookupTerms) and _lookup_input_kind(terms, names) == "string":
        element = TensorProto.STRING
    return [("X", element, model.n_features_in_)]


# -- Gaussian terms ----------------------------------------------------------------


def gaussian_jll(graph, terms, x, names=None):
    """jll[c] = log prior[c] - sum over observed j of
    ((x_j - theta[c, j])**2 * 0.5 / var[c, j] + 0.5 * log(2 pi var[c, j]))."""
    missing, observed = graph.zeros_where_missing(x)
    theta = graph.const(terms.theta, "theta")
    diff = graph.node("Sub", [graph.unsqueeze(observed, 1), theta], "diff")
    square = graph.node("Mul", [diff, diff], "square")
    scaled = graph.node("Mul", [square, graph.const(terms.half_inv_var, "half_inv_var")])
    added = graph.node("Add", [scaled, graph.const(terms.half_log_2pi_var,
                                                   "half_log_2pi_var")], "terms")
    zero = graph.const(np.zeros(1), "zero")
    kept = graph.node("Where", [graph.unsqueeze(missing, 1), zero, added], "kept")
    total = graph.reduce("ReduceSum", kept, 2, False, "total")
    return graph.node("Sub", [graph.const(terms.log_prior, "log_prior"), total], "jll")


# -- kernel density terms ------------------------------------------------------------


def kernel_density_jll(graph, terms, x, names=None):
    """jll[c] = log prior[c] + sum over observed j of the log density of (c, j):
    t = x_j * inv_width - origin, clipped into [0, n_bins - 1]; node i =
    min(floor(t), n_bins - 2) read by Gather from the flattened grids and
    interpolated with the next; where clipping moved t, the Gaussian tail
    past the end node instead, at least the floor (the compiled predictor's
    formula, fastnb/_jll_terms.py; a float32 graph's floor is -1e30)."""
    k, d, n_bins = terms.grid.shape
    # (a float32 graph's floor is float32's: -1e30, d of them still finite)
    floor = max(terms.floor, -1e30) if graph.dtype == np.float32 else terms.floor
    missing, observed = graph.zeros_where_missing(x)
    value = graph.unsqueeze(observed, 1, "value")                   # (n, 1, d)
    t = graph.node("Sub", [graph.node("Mul", [value, graph.const(
        terms.inv_width, "inv_width")]), graph.const(terms.origin, "origin")], "t")
    clamped = graph.node("Min", [graph.node("Max", [t, graph.const(
        np.zeros(1), "zero")]), graph.const(np.array([n_bins - 1.0]), "top")], "clamped")
    node = graph.node("Min", [graph.node("Floor", [clamped]), graph.const(
        np.array([n_bins - 2.0]), "last_pair")], "node")
    base = (np.arange(k * d, dtype=np.int64) * n_bins).reshape(k, d)
    index = graph.node("Add", [graph.node("Cast", [node], to=TensorProto.INT64),
                               graph.const(base, "grid_row", dtype=np.int64)], "index")
    flat = graph.const(terms.grid.reshape(-1), "grid")
    low = graph.node("Gather", [flat, index], "low", axis=0)
    high = graph.node("Gather", [flat, graph.node("Add", [index, graph.const(
        np.array([1], dtype=np.int64), "one", dtype=np.int64)])], "high", axis=0)
    inside = graph.node("Add", [low, graph.node("Mul", [
        graph.node("Sub", [t, node]), graph.node("Sub", [high, low])])], "inside")

    def tail(end, slope, edge, hint):
        u = graph.node("Sub", [value, graph.const(edge, f"{hint}_edge")], f"{hint}_u")
        rise = graph.node("Mul", [u, graph.const(slope, f"{hint}_slope")])
        fall = graph.node("Mul", [graph.node("Mul", [u, u]), graph.const(
            terms.curvature, "curvature")])
        return graph.node("Sub", [graph.node("Add", [graph.const(end, f"{hint}_end"),
                                                     rise]), fall], hint)

    below = tail(terms.grid[:, :, 0], terms.slope_low, terms.start, "below")
    above = tail(terms.grid[:, :, -1], terms.slope_high, terms.stop, "above")
    outside = graph.node("Max", [
        graph.node("Where", [graph.node("Less", [t, graph.const(np.zeros(1), "zero")]),
                             below, above]),
        graph.const(np.array([floor]), "floor")], "outside")
    term = graph.node("Where", [graph.node("Equal", [clamped, t]), inside, outside],
                      "term")
    kept = graph.node("Where", [graph.unsqueeze(missing, 1), graph.const(
        np.zeros(1), "zero"), term], "kept")
    total = graph.reduce("ReduceSum", kept, 2, False, "total")
    return graph.node("Add", [graph.const(terms.log_prior, "log_prior"), total], "jll")


# -- linear terms (BernoulliNB, MultinomialNB, ComplementNB) --------------------------


def linear_jll(graph, terms, x, names=None):
    """jll = v(x) @ W + bias, W as the model's predict reads it (centred);
    NaN (missing) adds nothing: it is read as 0, and the ``absent`` terms
    (BernoulliNB's log(1 - p)) are summed over the observed features only."""
    weights_t = terms.centred_weights(graph.dtype)
    missing, observed = graph.zeros_where_missing(x)
    values = observed
    if terms.threshold is not None:
        above = graph.node("Greater", [observed, graph.const(
            np.array([terms.threshold]), "binarize")], "above")
        values = graph.node("Cast", [above], "binary", to=graph.element_type)
    product = graph.node("MatMul", [values, graph.const(weights_t, "weights")])
    jll = graph.node("Add", [product, graph.const(terms.bias, "bias")], "jll")
    if terms.absent is None:
        return jll
    seen = graph.node("Cast", [graph.node("Not", [missing])], "observed_indicator",
                      to=graph.element_type)
    absent = graph.node("MatMul", [seen, graph.const(terms.absent, "log_absent")])
    return graph.node("Add", [jll, absent], "jll_observed")


# -- parametric terms (PoissonNB, ExponentialNB, GammaNB, LogNormalNB) ----------------


def _centred_weights(weights, dtype):
    """(k, d) weights as (d, k), each feature's row less the mean over the
    classes of its ordinary weights (linear_jll's centring: a per-row constant,
    the probabilities are the model's). A weight beyond +-sqrt(the dtype's
    largest), such as PoissonNB's log rate of a class that saw only zeros under
    alpha=0 (float64's most negative number), is held at that bound and left
    out of the mean, which would otherwise round away the other classes'
    weights: a zero count times it stays 0, and a positive count rules the
    class out without overflowing the row's sum."""
    limit = np.sqrt(np.finfo(dtype).max)
    block = np.array(weights.T, dtype=np.float64)
    ordinary = np.abs(block) < limit
    count = ordinary.sum(axis=1, keepdims=True)
    mean = np.where(ordinary, block, 0.0).sum(axis=1, keepdims=True) / np.maximum(count, 1)
    block = np.where(ordinary, block - mean, np.clip(block, -limit, limit))
    return block.astype(dtype)


def parametric_jll(graph, terms, x, names=None):
    """A value is observed where it is in the family's support (finite, x >= 0;
    x > 0 for the gamma and log-normal), else missing, as in the model's
    predict (NaN, a negative value, ...: it adds nothing). Poisson,
    exponential, gamma: jll = x @ A + log x @ B + observed @ C + log prior, the
    weights centred as linear_jll's, x and log x read as 0 where missing.
    Log-normal: gaussian_jll of log x, NaN where missing. The class-free terms
    (Poisson's -log x!, log-normal's -log x) change no probability and no
    label: they are left out (ONNX has no lgamma)."""
    zero = graph.const(np.zeros(1), "zero")
    in_support = graph.node("Greater" if terms.positive else "GreaterOrEqual",
                            [x, zero], "in_support")
    finite = graph.node("Less", [x, graph.const(np.array([np.inf]), "infinity")],
                        "finite")
    observed = graph.node("And", [in_support, finite], "observed")
    safe = graph.node("Where", [observed, x, graph.const(np.ones(1), "one")],
                      "safe_x")
    log_x = graph.node("Log", [safe], "log_x")   # 0 where missing
    if terms.of_log:
        log_observed = graph.node("Where", [observed, log_x, graph.const(
            np.array([np.nan]), "nan")], "log_observed")
        return gaussian_jll(graph, GaussianTerms(
            log_prior=terms.log_prior, theta=terms.a, half_inv_var=terms.b,
            half_log_2pi_var=terms.const), log_observed, names)
    values = graph.node("Where", [observed, x, zero], "x_observed")
    indicator = graph.node("Cast", [observed], "observed_indicator",
                           to=graph.element_type)
    jll = graph.node("MatMul", [values, graph.const(
        _centred_weights(terms.a, graph.dtype), "weights_x")])
    if np.any(terms.b != 0):
        jll = graph.node("Add", [jll, graph.node("MatMul", [log_x, graph.const(
            _centred_weights(terms.b, graph.dtype), "weights_log_x")])])
    jll = graph.node("Add", [jll, graph.node("MatMul", [indicator, graph.const(
        _centred_weights(terms.const, graph.dtype), "weights_const")])])
    return graph.node("Add", [jll, graph.const(terms.log_prior, "log_prior")], "jll")


# -- lookup terms (CategoricalNB) ---------------------------------------------------


def lookup_jll(graph, terms, x, names=None):
    """jll[c] = log prior[c] + sum over observed j of log P(x_j | c): each value's
    row in its feature's block of the table (an integer code is its own row, a
    value is looked up among ``categories_``; unseen: the block's last row),
    gathered, and the missing values' rows left out.

    ``x`` is the (n, d) input, or a list of d (n, 1) columns (ColumnwiseNB's
    inputs, which may mix strings and numbers)."""
    features = _lookup_features(terms, names)
    if isinstance(x, str):
        _lookup_input_kind(terms, names)
        columns = [graph.columns(x, [j], "column") for j in range(len(features))]
    else:
        columns = list(x)
    table, first_row = terms.table, terms.first_row
    n_categories = terms.n_categories
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
        _check_exact(categories, graph.dtype, names, j)
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
    return graph.node("Add", [total, graph.const(terms.class_log_prior,
                                                 "class_log_prior")], "jll")


def _check_exact(categories, dtype, names, j):
    """The categories of a numeric value feature are exact in the input's dtype:
    else two categories, or a category and an unseen value, would be one."""
    rounded = categories.astype(dtype).astype(np.float64)
    if not np.array_equal(rounded, categories):
        bad = categories[rounded != categories][:3].tolist()
        raise ValueError(
            f"CategoricalNB feature {_feature_name(names, j)} has categories {bad} "
            f"that {np.dtype(dtype).name} does not hold exactly: export with "
            "dtype=np.float64.")


# -- composite terms (ColumnwiseNB) ------------------------------------------------


def composite_jll(graph, terms, inputs, names=None):
    """jll = the combined bias + the sum of the parts' jll, each part's graph
    taking the columns it models, concatenated in its order (the bias: the log
    prior less the log prior each sub-model includes)."""
    feeds = iter(inputs)
    total = None
    for positions, part in terms.parts:
        columns = [next(feeds) for _ in positions]
        if isinstance(part, LookupTerms):
            block = columns
        else:
            block = (graph.node("Concat", columns, "block", axis=1) if len(columns) > 1
                     else columns[0])
        part_names = [names[j] for j in positions] if names is not None else None
        jll = _TYPE_JLL[type(part)](graph, part, block, part_names)
        total = jll if total is None else graph.node("Add", [total, jll], "sum")
    return graph.node("Add", [total, graph.const(terms.bias, "combined_bias")], "jll")


# The converter of each type of terms (fastnb/_jll_terms.py).
_TYPE_JLL = {
    GaussianTerms: gaussian_jll,
    LinearTerms: linear_jll,
    LookupTerms: lookup_jll,
    ParametricTerms: parametric_jll,
    CompositeTerms: composite_jll,
    KernelDensityTerms: kernel_density_jll,
}


def supported_models():
    """The registered model classes whose terms have a converter."""
    return [cls for cls in registered_models().values()
            if cls._capabilities.terms in ONNX_TERMS]


def model_jll(graph, model, inputs):
    """The (n, k) joint log likelihood of ``model`` from its input names."""
    check_fitted(model)
    terms = model._jll_terms()
    converter = _TYPE_JLL[type(terms)]
    x = inputs if isinstance(terms, CompositeTerms) else inputs[0]
    return converter(graph, terms, x, _names(model))
