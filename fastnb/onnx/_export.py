"""``to_onnx``: a fitted fastnb model as an ONNX ModelProto, built with
``onnx.helper`` alone (skl2onnx is not needed for it)."""

import itertools

import numpy as np
from onnx import TensorProto, helper

from .._version import __version__
from ._graph import (
    DEFAULT_OPSET,
    ML_DOMAIN,
    ML_OPSET,
    MIN_OPSET,
    Graph,
    finish_classifier,
    label_kind,
)
from ._models import check_fitted, model_inputs, model_jll


def check_dtype(dtype):
    """np.float32 or np.float64, else a clear error."""
    try:
        resolved = np.dtype(dtype)
    except TypeError:
        resolved = None
    if resolved not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be np.float32 or np.float64; got {dtype!r}.")
    return resolved


def resolve_opset(target_opset):
    """The ai.onnx opset: an int, a dict with key "" (skl2onnx's form), or None
    for DEFAULT_OPSET."""
    if isinstance(target_opset, dict):
        target_opset = target_opset.get("", None)
    if target_opset is None:
        return DEFAULT_OPSET
    if not isinstance(target_opset, (int, np.integer)) or isinstance(target_opset, bool):
        raise TypeError(f"target_opset must be an int; got {target_opset!r}.")
    if target_opset < MIN_OPSET:
        raise ValueError(
            f"target_opset={target_opset}: fastnb's graphs need ai.onnx opset "
            f"{MIN_OPSET} or later.")
    return int(target_opset)


def _check_sample(model, X_sample):
    if X_sample is None:
        return
    shape = getattr(X_sample, "shape", None)
    if shape is None:
        shape = np.shape(np.asarray(X_sample, dtype=object))
    if len(shape) != 2 or shape[1] != model.n_features_in_:
        raise ValueError(
            f"X_sample has shape {tuple(shape)}, but {type(model).__name__} is "
            f"expecting {model.n_features_in_} features as input.")


def _unique_names():
    used = set()
    counter = itertools.count()

    def unique(hint):
        name = hint
        while name in used:
            name = f"{hint}_{next(counter)}"
        used.add(name)
        return name

    return unique, used


def to_onnx(model, X_sample=None, *, target_opset=None, dtype=np.float32, zipmap=True):
    """Export a fitted fastnb model to ONNX, for onnxruntime and other runtimes.

    The graph computes the joint log likelihood as the model's ``predict`` does
    (a missing value, NaN, adds nothing, nor does a value out of a parametric
    model's support; an unseen category gets the smoothed probability of a
    zero count), then the probabilities by a log-sum-exp
    softmax and the label by arg-max, with the outputs of skl2onnx's
    classifiers. Needs the ``onnx`` package (``pip install "fastnb[onnx]"``).

    Parameters
    ----------
    model : fitted GaussianNB, BernoulliNB, MultinomialNB, ComplementNB, CategoricalNB, PoissonNB, ExponentialNB, GammaNB, LogNormalNB, KernelDensityNB or ColumnwiseNB
        The model to export.
    X_sample : array-like or DataFrame of shape (n_samples, n_features), default=None
        A few rows of the model's input: when given, its number of columns is
        checked against the model's.
    target_opset : int, default=None
        The ai.onnx opset (13 or later; None: 18). ai.onnx.ml opset 3 is used
        for LabelEncoder and ZipMap.
    dtype : {np.float32, np.float64}, default=np.float32
        The type of the numeric inputs, the weights, every computation and the
        probabilities.
    zipmap : bool, default=True
        True: the outputs are ``output_label`` and ``output_probability``, a
        list of {label: probability} maps (ZipMap, float32 whatever ``dtype``),
        as skl2onnx's classifiers give by default. False: ``label`` and
        ``probabilities``, an (n_samples, n_classes) tensor of ``dtype``.

    Returns
    -------
    onnx_model : onnx.ModelProto
        The model; ``onnx_model.SerializeToString()`` is the ``.onnx`` file.

    Notes
    -----
    Inputs: one tensor ``X`` of shape (n, n_features) (strings for a
    CategoricalNB of string categories, numbers otherwise); a ColumnwiseNB takes
    one (n, 1) tensor a column it models, named after the column. See the user
    guide's page "Deploying a model" for each model's graph and its size.

    Examples
    --------
    >>> import numpy as np
    >>> import fastnb
    >>> from fastnb.onnx import to_onnx
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> model = fastnb.GaussianNB().fit(X, [0, 0, 1, 1])
    >>> onnx_model = to_onnx(model, X[:1], zipmap=False)
    >>> [output.name for output in onnx_model.graph.output]
    ['label', 'probabilities']
    """
    check_fitted(model)
    dtype = check_dtype(dtype)
    opset = resolve_opset(target_opset)
    if not isinstance(zipmap, (bool, np.bool_)):
        raise ValueError(f"zipmap must be True or False; got {zipmap!r}.")
    _check_sample(model, X_sample)
    kind, _ = label_kind(model.classes_)
    unique, used = _unique_names()
    spec = model_inputs(model, dtype)
    for name, _, _ in spec:
        if name in used:
            raise ValueError(f"two input columns are named {name!r}")
        used.add(name)
    graph = Graph(dtype, opset, unique)
    label_name = unique("output_label" if zipmap else "label")
    proba_name = unique("probability_tensor" if zipmap else "probabilities")
    jll = model_jll(graph, model, [name for name, _, _ in spec])
    finish_classifier(graph, jll, model.classes_, label_name, proba_name)

    k = model.classes_.shape[0]
    label_type = TensorProto.INT64 if kind == "int64" else TensorProto.STRING
    outputs = [helper.make_tensor_value_info(label_name, label_type, [None])]
    if zipmap:
        outputs.append(_zipmap(graph, model.classes_, proba_name, unique))
    else:
        outputs.append(helper.make_tensor_value_info(proba_name, graph.element_type,
                                                     [None, k]))
    inputs = [helper.make_tensor_value_info(name, element, [None, n_columns])
              for name, element, n_columns in spec]
    onnx_graph = helper.make_graph(graph.nodes, f"fastnb_{type(model).__name__}",
                                   inputs, outputs)
    opsets = [helper.make_opsetid("", opset), helper.make_opsetid(ML_DOMAIN, ML_OPSET)]
    onnx_model = helper.make_model(onnx_graph, opset_imports=opsets,
                                   producer_name="fastnb", producer_version=__version__)
    onnx_model.ir_version = helper.find_min_ir_version_for(opsets)
    graph.write_initializers(onnx_model.graph.initializer)
    return onnx_model


def _zipmap(graph, classes, proba_name, unique):
    """ZipMap the probabilities into a list of {label: probability} (ZipMap
    takes float32 only: a float64 graph's probabilities are cast first)."""
    kind, values = label_kind(classes)
    source = proba_name
    if graph.dtype == np.float64:
        source = graph.node("Cast", [proba_name], "probability_float", to=TensorProto.FLOAT)
    name = unique("output_probability")
    if kind == "int64":
        attrs = {"classlabels_int64s": [int(v) for v in values]}
        key_type = TensorProto.INT64
    else:
        attrs = {"classlabels_strings": [str(v) for v in values]}
        key_type = TensorProto.STRING
    graph.nodes.append(helper.make_node("ZipMap", [source], [name], domain=ML_DOMAIN,
                                        name=unique("ZipMap"), **attrs))
    map_type = helper.make_map_type_proto(
        key_type, helper.make_tensor_type_proto(TensorProto.FLOAT, []))
    return helper.make_value_info(name, helper.make_sequence_type_proto(map_type))
