"""Count data for the count models' tests (test_discrete*.py): the models, a
count matrix, and the input kinds (dtypes, layouts, sparse formats) it is given as."""

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")

MODELS = ["BernoulliNB", "MultinomialNB", "ComplementNB"]


def _counts(rng, n=120, d=13, k=3, lam=1.2):
    X = rng.poisson(lam, size=(n, d)).astype(np.float64)
    y = rng.integers(0, k, n)
    return X, y


def _as_kind(X, kind):
    if kind == "float64":
        return X
    if kind == "float32":
        return X.astype(np.float32)
    if kind == "int64":
        return X.astype(np.int64)
    if kind == "uint8":
        return X.astype(np.uint8)
    if kind == "bool":
        return X > 0
    if kind == "fortran":
        return np.asfortranarray(X)
    if kind == "csr32":
        m = sp.csr_matrix(X)
        m.indices = m.indices.astype(np.int32)
        m.indptr = m.indptr.astype(np.int32)
        return m
    if kind == "csr64":
        m = sp.csr_matrix(X)
        m.indices = m.indices.astype(np.int64)
        m.indptr = m.indptr.astype(np.int64)
        return m
    if kind == "csr_float32":
        return sp.csr_matrix(X.astype(np.float32))
    if kind == "csc":
        return sp.csc_matrix(X)
    if kind == "coo":
        return sp.coo_matrix(X)
    if kind == "csr_array":
        return sp.csr_array(X)
    raise AssertionError(kind)
