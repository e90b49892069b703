"""The compiled CategoricalNB modules (AVX2 builds where the CPU has them) and the
constants they share with the Python layer."""

import importlib

from .._dispatch import load_kernels

__all__ = ["count", "keys", "tables", "predict", "TAG", "LOOKUP"]

count = load_kernels("_categorical_count")
tables = load_kernels("_categorical_tables")  # hash and log-probability tables
predict = load_kernels("_categorical_predict")  # the gather predictor
# Keys Python objects with the GIL: integer work, one portable build.
keys = importlib.import_module("fastnb._categorical_keys")

TAG = keys.TAGS
LOOKUP = keys.LOOKUPS
