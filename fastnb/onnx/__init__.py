"""Export fastnb models to ONNX, for onnxruntime and every runtime that reads it.

``fastnb.onnx.to_onnx(model, X[:1])`` returns an ``onnx.ModelProto``. Importing
this module also registers fastnb's converters with skl2onnx, when it is
installed, so that ``skl2onnx.to_onnx(model, X[:1])`` and a scikit-learn
``Pipeline`` holding a fastnb model convert too. Needs the ``onnx`` extra
(``pip install "fastnb[onnx]"``: onnx, skl2onnx and onnxruntime); ``import
fastnb`` does not import this module.

Examples
--------
>>> import numpy as np
>>> import fastnb
>>> import fastnb.onnx
>>> X = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 2.0], [2.0, 0.5]])
>>> model = fastnb.GaussianNB().fit(X, ["a", "b", "a", "b"])
>>> onnx_model = fastnb.onnx.to_onnx(model, X[:1])
"""

from ._export import to_onnx
from ._skl2onnx import register_converters

register_converters()

__all__ = ["register_converters", "to_onnx"]
