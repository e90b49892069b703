"""The joint log likelihood of each fastnb model as ONNX nodes.

Each ``*_jll(graph, model, x)`` writes the nodes that compute the model's (n, k)
joint log likelihood from its input tensor ``x`` the way the model's predict
does (the same terms; missing values, NaN, left out of the sum), and returns the
name of that tensor. ``model_inputs`` says what inputs a model's graph takes.
"""

import numpy as np
from onnx import TensorProto

from .._discrete import BernoulliNB, ComplementNB, MultinomialNB
from .._gaussian import GaussianNB

SUPPORTED = (GaussianNB, BernoulliNB, MultinomialNB, ComplementNB)

# Rows of features computed at a time when the weights of a sparse count table
# are written out: (TABLE_BLOCK, k) float64 scratch (~18 MB at 35 classes), so
# the only full-size array made is the (d, k) weights in the export's dtype.
TABLE_BLOCK = 1 << 16


def check_fitted(model):
    """The model is one of fastnb's and fitted; else a clear error."""
    if not isinstance(model, SUPPORTED):
        raise TypeError(
            f"fastnb.onnx exports {', '.join(c.__name__ for c in SUPPORTED)}; "
            f"got {type(model).__name__}.")
    if not hasattr(model, "classes_"):
        raise ValueError(
            f"This {type(model).__name__} instance is not fitted yet (it has no "
            "classes_): call fit before exporting it to ONNX.")


# -- inputs ------------------------------------------------------------------------


def model_inputs(model, dtype):
    """[(name, element type, n_columns)]: the graph's inputs, one (n,
    n_features) tensor ``X``."""
    float_type = TensorProto.FLOAT if np.dtype(dtype) == np.float32 else TensorProto.DOUBLE
    return [("X", float_type, model.n_features_in_)]


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


def _table_weights(model, dtype):
    """(d, k) weights and (k,) bias of a model on the sparse count table, written
    from the table's terms without a dense float64 copy:

        W[j, c] = mult[c] * (base[j] + scale[c] + w[c, j])

    with w the entry weight of (class, feature) pairs with a count, 0 elsewhere
    (the table predict's ``bias + mult * (x . base + s(x) scale + x . w)``)."""
    cache = model._table_predict_state()
    feat_base, bias, scale, mult = cache["table_terms"]
    entry_weights = cache["table_entry_weights"]
    table = model._table
    d, k = table.n_features, table.n_classes
    base = np.broadcast_to(np.asarray(feat_base, dtype=np.float64), (d,))
    weights = np.empty((d, k), dtype=dtype)
    for start in range(0, d, TABLE_BLOCK):
        stop = min(d, start + TABLE_BLOCK)
        weights[start:stop] = mult * (base[start:stop, None] + scale)
    features, classes, positions = table.entries()
    weights[features, classes] = mult[classes] * (
        (base[features] + scale[classes]) + entry_weights[positions])
    return weights, np.asarray(bias, dtype=np.float64)


def discrete_jll(graph, model, x):
    """jll = x @ W.T + bias, W and bias as the model's predict kernels read them;
    NaN (missing) adds nothing: it is read as 0, and BernoulliNB takes back the
    log(1 - p) that a 0 adds through its bias."""
    on_table = model.__dict__.get("_table") is not None
    if on_table and not isinstance(model, BernoulliNB):
        weights_t, bias = _table_weights(model, graph.dtype)
    elif on_table:
        weights, bias = model._predict_weights(model.feature_log_prob_,
                                               model.class_log_prior_)
        weights_t = weights.T
    else:
        weights_t, bias = model._weights.T, model._bias
    missing, observed = graph.zeros_where_missing(x)
    threshold = model._threshold()
    if threshold is not None:
        above = graph.node("Greater", [observed, graph.const(np.array([threshold]),
                                                            "binarize")], "above")
        observed = graph.node("Cast", [above], "binary", to=graph.element_type)
    product = graph.node("MatMul", [observed, graph.const(weights_t, "weights")])
    jll = graph.node("Add", [product, graph.const(bias, "bias")], "jll")
    missing_terms = model._missing_log_terms()
    if missing_terms is None:
        return jll
    indicator = graph.node("Cast", [missing], "missing_indicator", to=graph.element_type)
    correction = graph.node("MatMul", [indicator, graph.const(missing_terms.T,
                                                             "missing_terms")])
    return graph.node("Sub", [jll, correction], "jll_observed")


MODEL_JLL = {
    GaussianNB: gaussian_jll,
    BernoulliNB: discrete_jll,
    MultinomialNB: discrete_jll,
    ComplementNB: discrete_jll,
}


def model_jll(graph, model, inputs):
    """The (n, k) joint log likelihood of ``model`` from its input names."""
    return _jll_of(model)(graph, model, inputs[0])


def _jll_of(model):
    for kind, jll in MODEL_JLL.items():
        if isinstance(model, kind):
            return jll
    raise TypeError(f"no ONNX converter for {type(model).__name__}")
