"""What the sparse count table's tests share (test_count_table*.py): the
models and parameters they run, the text they fit (``hashed_text(400, seed=3)``,
each file's ``text`` fixture), the table forced for small fits, and missing
values put into a CSR batch."""

import contextlib

import numpy as np
from fastnb import _count_table

MODELS = [("MultinomialNB", {}), ("MultinomialNB", {"alpha": 0.3, "fit_prior": False}),
          ("ComplementNB", {}), ("ComplementNB", {"norm": True}),
          ("BernoulliNB", {}), ("BernoulliNB", {"binarize": 1.5, "alpha": 0.5})]


@contextlib.contextmanager
def _count_table_thresholds(min_cells, min_cells_per_nonzero):
    """The table for every CSR fit, however small (what the hypothesis tests need:
    pytest's monkeypatch fixture does not reset between hypothesis examples)."""
    saved = _count_table.TABLE_MIN_CELLS, _count_table.TABLE_MIN_CELLS_PER_NONZERO
    _count_table.TABLE_MIN_CELLS = min_cells
    _count_table.TABLE_MIN_CELLS_PER_NONZERO = min_cells_per_nonzero
    try:
        yield
    finally:
        _count_table.TABLE_MIN_CELLS, _count_table.TABLE_MIN_CELLS_PER_NONZERO = saved


def _table_of(model):
    return model.__dict__.get("_table")


def _with_missing(X, every=17):
    Xm = X.copy()
    Xm.data[::every] = np.nan
    return Xm
