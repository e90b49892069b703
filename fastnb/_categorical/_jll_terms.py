"""CategoricalNB as ``LookupTerms`` (fastnb/_jll_terms.py)."""

import numpy as np

from .._jll_terms import LookupTerms
from ._kernels import LOOKUP


def _features(model):
    """Per feature: ("code", None) for an integer-code feature, ("string",
    categories) or ("number", categories) for a value feature, ("bucket", None)
    for a hashed one; ("mixed", types) for a value feature whose categories are
    of several types."""
    lookup = model._predict_tables.lookup
    kinds = []
    for j, categories in enumerate(model.categories_):
        if lookup[j] == LOOKUP["code"]:
            kinds.append(("code", None))
            continue
        if lookup[j] != LOOKUP["hash"]:
            kinds.append(("bucket", None))
            continue
        values = list(categories)
        if all(isinstance(v, str) for v in values):
            kinds.append(("string", values))
        elif all(isinstance(v, (int, float, np.integer, np.floating))
                 and not isinstance(v, (bool, np.bool_)) for v in values):
            kinds.append(("number", np.array(values, dtype=np.float64)))
        else:
            kinds.append(("mixed", sorted({type(v).__name__ for v in values})))
    return tuple(kinds)


def lookup_terms(model):
    """The ``LookupTerms`` of a fitted CategoricalNB: its predict tables' log
    probabilities, feature by feature, each feature's last row the smoothed
    probability of an unseen category."""
    tables = model._predict_tables
    k = model.classes_.shape[0]
    blocks = []
    for j, n_categories in enumerate(tables.n_categories):
        start = tables.block_start[j]
        size = (n_categories + 1) * tables.row_width
        blocks.append(tables.log_prob[start:start + size].reshape(-1, tables.row_width)[:, :k])
    sizes = np.array([b.shape[0] for b in blocks], dtype=np.int64)
    return LookupTerms(
        class_log_prior=np.asarray(tables.class_log_prior, dtype=np.float64),
        table=np.concatenate(blocks),
        first_row=np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64),
        n_categories=np.asarray(tables.n_categories),
        features=_features(model))
