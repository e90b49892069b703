"""fastnb's converters registered with skl2onnx: ``skl2onnx.to_onnx(model, X)``
and a scikit-learn ``Pipeline`` holding a fastnb model convert through the graph
``to_onnx`` builds (``_models``), with skl2onnx's classifier outputs (a label
and the probabilities, ZipMap'ed unless the option ``zipmap=False``)."""

import numpy as np
from onnx import TensorProto, helper

from ._graph import ML_DOMAIN, MIN_OPSET, Graph, finish_classifier, label_kind
from ._models import check_fitted, supported_models, model_inputs, model_jll

# the alias each class is registered under (skl2onnx's naming: Sklearn + class)
_ALIAS = "Fastnb{}"


def register_converters():
    """Register fastnb's six models with skl2onnx (nothing if it is not installed).

    ``import fastnb.onnx`` calls it; calling it again changes nothing.

    Returns
    -------
    registered : bool
        Whether skl2onnx was found and the converters registered.

    Examples
    --------
    >>> import fastnb.onnx
    >>> fastnb.onnx.register_converters()
    True
    """
    try:
        from skl2onnx import update_registered_converter
    except ImportError:
        return False
    for model_class in supported_models():
        update_registered_converter(
            model_class, _ALIAS.format(model_class.__name__), _shape_calculator,
            _converter, parser=_parser, options={"zipmap": [True, False],
                                                 "nocl": [False]})
    return True


def _label_type(model):
    from skl2onnx.common.data_types import Int64TensorType, StringTensorType

    kind, _ = label_kind(model.classes_)
    return Int64TensorType([None]) if kind == "int64" else StringTensorType([None])


def _double(inputs):
    """The graph computes in float64 when an input is float64 (skl2onnx's rule)."""
    from skl2onnx.common.data_types import DoubleTensorType

    return any(isinstance(v.type, DoubleTensorType) for v in inputs)


def _proba_type(inputs, k, zipmap):
    """Double probabilities for a double input, float otherwise, and always for
    ZipMap, which reads floats only."""
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType

    if _double(inputs) and not zipmap:
        return DoubleTensorType([None, k])
    return FloatTensorType([None, k])


def _parser(scope, model, inputs, custom_parsers=None):
    """Two outputs, label and probabilities, then ZipMap unless zipmap=False."""
    from skl2onnx._parse import _apply_zipmap

    check_fitted(model)
    options = scope.get_options(model, dict(zipmap=True))
    operator = scope.declare_local_operator(_ALIAS.format(type(model).__name__), model)
    operator.inputs = list(inputs)
    label = scope.declare_local_variable("label", _label_type(model))
    zipmap = options["zipmap"] is not False
    probabilities = scope.declare_local_variable(
        "probabilities", _proba_type(inputs, model.classes_.shape[0], zipmap))
    operator.outputs.append(label)
    operator.outputs.append(probabilities)
    if not zipmap:
        return list(operator.outputs)
    return _apply_zipmap(options["zipmap"], scope, model, inputs[0].type,
                         list(operator.outputs))


def _shape_calculator(operator):
    # (the probabilities keep the type the parser gave them, which depends on
    # the zipmap option)
    operator.outputs[0].type = _label_type(operator.raw_operator)


def _element_type(variable):
    from skl2onnx.common.data_types import (
        BooleanTensorType, DoubleTensorType, FloatTensorType, Int32TensorType,
        Int64TensorType, StringTensorType)

    kinds = {FloatTensorType: TensorProto.FLOAT, DoubleTensorType: TensorProto.DOUBLE,
             StringTensorType: TensorProto.STRING, Int64TensorType: TensorProto.INT64,
             Int32TensorType: TensorProto.INT32, BooleanTensorType: TensorProto.BOOL}
    return kinds.get(type(variable.type))


def _columns_of(variable):
    shape = getattr(variable.type, "shape", None)
    return shape[1] if shape is not None and len(shape) == 2 else None


def _bind_inputs(graph, model, variables):
    """The input names the model's graph reads (``model_inputs``), from skl2onnx's
    input variables: numbers cast to the graph's type; several inputs (one a
    DataFrame column) matched by name for a ColumnwiseNB, else concatenated; one
    input of every column split into columns for a ColumnwiseNB."""
    spec = model_inputs(model, graph.dtype)
    given = []
    for variable in variables:
        element = _element_type(variable)
        name = variable.full_name
        if element is None:
            raise TypeError(f"input {variable.raw_name!r} has type {variable.type}, "
                            "which fastnb's ONNX graphs do not read")
        if element != TensorProto.STRING and element != graph.element_type:
            name = graph.node("Cast", [name], "cast_input", to=graph.element_type)
            element = graph.element_type
        given.append((variable.raw_name, name, element, _columns_of(variable)))
    if len(spec) == 1:
        names = [name for _, name, _, _ in given]
        if any(element != spec[0][1] for _, _, element, _ in given):
            raise TypeError(f"{type(model).__name__} reads one "
                            f"{TensorProto.DataType.Name(spec[0][1]).lower()} tensor: "
                            "every input must be of that type")
        return [graph.node("Concat", names, "concat_inputs", axis=1)
                if len(names) > 1 else names[0]]
    if len(given) == 1 and given[0][3] == model.n_features_in_:
        # one tensor of every column (a NumPy array): each column by position
        if any(element == TensorProto.STRING for _, element, _ in spec):
            raise TypeError("this ColumnwiseNB has string columns: give one input a "
                            "column (a DataFrame sample) to convert it")
        positions = np.concatenate(model._positions)
        return [graph.columns(given[0][1], [j], "column") for j in positions]
    by_name = {raw: name for raw, name, _, _ in given}
    missing = [name for name, _, _ in spec if name not in by_name]
    if missing:
        raise ValueError(f"ColumnwiseNB reads the columns {missing}, which are not "
                         f"among the inputs {list(by_name)}")
    return [by_name[name] for name, _, _ in spec]


class _ListOfTensors:
    """A list of TensorProto with the ``add()`` of a repeated field."""

    def __init__(self, tensors):
        self.tensors = tensors

    def add(self):
        tensor = TensorProto()
        self.tensors.append(tensor)
        return tensor


def _converter(scope, operator, container):
    model = operator.raw_operator
    check_fitted(model)
    opset = container.target_opset
    if opset < MIN_OPSET:
        raise ValueError(f"target_opset={opset}: fastnb's graphs need ai.onnx opset "
                         f"{MIN_OPSET} or later.")
    dtype = np.float64 if _double(operator.inputs) else np.float32
    graph = Graph(dtype, opset, scope.get_unique_variable_name)
    inputs = _bind_inputs(graph, model, operator.inputs)
    jll = model_jll(graph, model, inputs)
    probabilities = operator.outputs[1].full_name
    cast = _element_type(operator.outputs[1]) != graph.element_type
    computed = graph.unique("probabilities_computed") if cast else probabilities
    finish_classifier(graph, jll, model.classes_, operator.outputs[0].full_name,
                      computed)
    if cast:  # float64 computed, float32 for ZipMap
        graph.nodes.append(helper.make_node(
            "Cast", [computed], [probabilities],
            name=graph.unique("Cast_probabilities"), to=TensorProto.FLOAT))
    graph.write_initializers(_ListOfTensors(container.initializers))
    for node in graph.nodes:
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        version = 2 if node.domain == ML_DOMAIN else None  # LabelEncoder 2
        container.add_node(node.op_type, list(node.input), list(node.output),
                           op_domain=node.domain, op_version=version, name=node.name,
                           **attrs)
