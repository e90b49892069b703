"""
Deploying with ONNX: export, run in onnxruntime, compare
========================================================

A model in production often runs in onnxruntime, from a service in C#, Java or
C++, or in a browser, with no Python. :func:`fastnb.onnx.to_onnx` writes any
fitted fastnb model as an ONNX graph that computes what its ``predict`` computes,
missing values and unseen categories included.

Here a :class:`~fastnb.ColumnwiseNB` is fitted on the Palmer penguins (numbers,
strings and missing values in one table), exported, loaded in onnxruntime, and
its probabilities compared with fastnb's, row by row.
"""

import matplotlib.pyplot as plt
import numpy as np
import onnxruntime as ort

import fastnb
from fastnb.datasets import load_penguins
from fastnb.onnx import to_onnx

X, y = load_penguins(return_X_y=True, as_frame=True)
model = fastnb.ColumnwiseNB().fit(X, y)
print(model.summary())

# %%
# Export
# ------
# The graph takes one input a column, named after it: strings for the
# categorical columns, float32 numbers otherwise. ``zipmap=False`` gives the
# probabilities as one (n, k) tensor.

onnx_model = to_onnx(model, X[:1], zipmap=False)
with open("penguins.onnx", "wb") as file:
    file.write(onnx_model.SerializeToString())
print([(i.name, i.type.tensor_type.elem_type) for i in onnx_model.graph.input])

# %%
# Run in onnxruntime
# ------------------
# A string input has no NaN: the empty string stands for a missing category.


def feeds(table):
    out = {}
    for name in table.columns:
        column = table[[name]]
        if column.dtypes.iloc[0].kind in "fiub":
            out[name] = column.to_numpy(dtype=np.float32)
        else:
            out[name] = column.astype(object).fillna("").to_numpy(dtype=str)
    return out


session = ort.InferenceSession("penguins.onnx", providers=["CPUExecutionProvider"])
labels, probabilities = session.run(None, feeds(X))
expected = model.predict_proba(X)
print("labels equal fastnb's:", bool((labels == model.predict(X)).all()))
print(f"largest probability difference: {np.abs(probabilities - expected).max():.2e}")

# %%
# fastnb and onnxruntime, row by row
# ----------------------------------
# Each point is one penguin's probability of one species; the rows with missing
# measurements are marked. They lie on the diagonal: the float32 graph agrees
# with fastnb to within about 1e-6 (the red line: the tests' 1e-5).

missing = X.isna().any(axis=1).to_numpy()
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained")
for k, species in enumerate(model.classes_):
    left.scatter(expected[~missing, k], probabilities[~missing, k], s=12, label=species)
left.scatter(expected[missing].ravel(), probabilities[missing].ravel(), s=60,
             facecolors="none", edgecolors="black", label="row with a missing value")
left.plot([0, 1], [0, 1], color="grey", lw=0.8)
left.set_xlabel("fastnb predict_proba")
left.set_ylabel("onnxruntime probabilities")
left.legend()
difference = np.abs(probabilities - expected).max(axis=1)
right.semilogy(np.maximum(difference, 1e-12), ".", ms=4)
right.axhline(1e-5, color="red", lw=0.8, label="1e-5")
right.set_xlabel("row")
right.set_ylabel("largest |difference| of the row")
right.legend()
fig.suptitle("ColumnwiseNB on the penguins: exported to ONNX and run in onnxruntime")
plt.show()
