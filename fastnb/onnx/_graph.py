"""A small ONNX graph builder: nodes and initializers with unique names, the
opset-dependent forms of the reductions, and the classifier's outputs (softmax
by log-sum-exp, arg-max, class labels).

The converters of ``_models`` write into a ``Graph``; ``to_onnx`` wraps it in a
ModelProto, and the skl2onnx converter copies its nodes and initializers into
skl2onnx's container (``_skl2onnx``), so both paths build the same graph.
"""

import numpy as np
from onnx import TensorProto, helper

# ai.onnx.ml: LabelEncoder (strings -> category index) and ZipMap
ML_DOMAIN = "ai.onnx.ml"
ML_OPSET = 3
# The oldest ai.onnx opset the graphs are written for (ReduceSum's axes input).
MIN_OPSET = 13
DEFAULT_OPSET = 18

ELEMENT_TYPE = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
}


class Graph:
    """Nodes and initializers of one fastnb model's graph.

    Parameters
    ----------
    dtype : np.float32 or np.float64
        The precision of every weight and computation.
    opset : int
        The ai.onnx opset the nodes are written for.
    unique : callable
        ``unique(hint) -> str``, a name not used elsewhere in the model.
    """

    def __init__(self, dtype, opset, unique):
        self.dtype = np.dtype(dtype)
        self.opset = opset
        self.unique = unique
        self.nodes = []
        self.initializers = []

    @property
    def element_type(self):
        return ELEMENT_TYPE[self.dtype]

    def const(self, array, hint, dtype=None):
        """An initializer holding ``array`` (cast to ``dtype``, default the
        graph's float type; int64 and str arrays keep their kind)."""
        array = np.asarray(array)
        if dtype is not None:
            array = array.astype(dtype, copy=False)
        elif array.dtype.kind == "f":
            array = array.astype(self.dtype, copy=False)
        name = self.unique(hint)
        self.initializers.append((name, array))
        return name

    def write_initializers(self, tensors):
        """Each initializer into ``tensors.add()`` (a repeated TensorProto field),
        its bytes copied once: a model of 2**20 x 35 float32 weights (147 MB)
        spent 0.75 s more in copies through ``make_graph``."""
        for name, array in self.initializers:
            tensor = tensors.add()
            tensor.name = name
            tensor.dims.extend(array.shape)
            if array.dtype.kind in "UO":
                tensor.data_type = TensorProto.STRING
                tensor.string_data.extend(str(v).encode("utf-8") for v in array.ravel())
                continue
            tensor.data_type = helper.np_dtype_to_tensor_dtype(array.dtype)
            tensor.raw_data = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder(
                "<")).tobytes()

    def node(self, op_type, inputs, hint=None, domain="", n_outputs=1, **attrs):
        """Add a node; return its output name (or names, for ``n_outputs > 1``)."""
        hint = hint or op_type.lower()
        outputs = [self.unique(hint) for _ in range(n_outputs)]
        self.nodes.append(helper.make_node(
            op_type, list(inputs), outputs, name=self.unique(f"{op_type}_node"),
            domain=domain, **attrs))
        return outputs[0] if n_outputs == 1 else outputs

    def reduce(self, op_type, x, axis, keepdims, hint=None):
        """ReduceSum/ReduceMax over one axis, with ``axes`` as an input where the
        opset takes it so (ReduceSum from 13, the others from 18)."""
        if op_type == "ReduceSum" or self.opset >= 18:
            axes = self.const(np.array([axis], dtype=np.int64), "axes")
            return self.node(op_type, [x, axes], hint, keepdims=int(keepdims))
        return self.node(op_type, [x], hint, axes=[axis], keepdims=int(keepdims))

    def unsqueeze(self, x, axis, hint=None):
        axes = self.const(np.array([axis], dtype=np.int64), "axes")
        return self.node("Unsqueeze", [x, axes], hint)

    def columns(self, x, positions, hint="columns"):
        """The columns ``positions`` of a 2d tensor, in that order."""
        index = self.const(np.asarray(positions, dtype=np.int64), "positions")
        return self.node("Gather", [x, index], hint, axis=1)

    def zeros_where_missing(self, x):
        """(missing, x with 0 where x is NaN): NaN means missing in fastnb."""
        missing = self.node("IsNaN", [x], "missing")
        zero = self.const(np.zeros(1), "zero")
        return missing, self.node("Where", [missing, zero, x], "observed")


def label_kind(classes):
    """How the labels leave the graph: ("int64", values) for integer, bool and
    integral float labels, ("string", values) for str labels (skl2onnx's rule)."""
    classes = np.asarray(classes)
    if classes.dtype.kind in "iub":
        return "int64", classes.astype(np.int64)
    if classes.dtype.kind == "f":
        if np.all(np.isfinite(classes)) and np.all(classes == np.round(classes)):
            return "int64", classes.astype(np.int64)
        raise ValueError(
            "ONNX classifiers give integer or string labels: classes_ holds "
            f"non-integral floats {classes[classes != np.round(classes)][:3].tolist()}. "
            "Fit on integer or string labels to export.")
    if all(isinstance(c, str) for c in classes.tolist()):
        return "string", np.array([str(c) for c in classes.tolist()], dtype=object)
    raise ValueError(
        "ONNX classifiers give integer or string labels: classes_ holds "
        f"{sorted({type(c).__name__ for c in classes.tolist()})}.")


def finish_classifier(graph, jll, classes, label_out, proba_out):
    """From the (n, k) joint log likelihood: the label (the first class of the
    largest score, as fastnb's arg-max) into ``label_out`` and the probabilities
    (a softmax by log-sum-exp) into ``proba_out``."""
    top = graph.reduce("ReduceMax", jll, 1, True, "top")
    shifted = graph.node("Sub", [jll, top], "shifted")
    total = graph.reduce("ReduceSum", graph.node("Exp", [shifted]), 1, True, "sum_exp")
    log_proba = graph.node("Sub", [shifted, graph.node("Log", [total])], "log_proba")
    graph.nodes.append(helper.make_node("Exp", [log_proba], [proba_out],
                                        name=graph.unique("Exp_proba")))
    index = graph.node("ArgMax", [jll], "class_index", axis=1, keepdims=0)
    _, values = label_kind(classes)
    table = graph.const(values, "classes", dtype=np.int64 if values.dtype.kind == "i"
                        else None)
    graph.nodes.append(helper.make_node("Gather", [table, index], [label_out],
                                        name=graph.unique("Gather_label"), axis=0))
