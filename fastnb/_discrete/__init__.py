"""BernoulliNB, MultinomialNB and ComplementNB on compiled one-pass kernels.

Modules: _shared (kernels, predict cache, input helpers), _base (the shared fit
machinery, persistence and merging), _table (the sparse count table of the
text-scale models), _predict (predict dispatch), _multinomial (MultinomialNB,
ComplementNB), _bernoulli (BernoulliNB).
"""

from ._bernoulli import BernoulliNB
from ._multinomial import ComplementNB, MultinomialNB
from ._shared import (  # noqa: F401  (tests and tools read these here)
    _PREDICT_CACHE,
    TABLE_DENSE_PREDICT_NNZ_RATIO,
    _kernels,
    _predict_kernels,
    _table_kernels,
    _table_update_kernels,
)

# Pickles name the classes by this module (as fastnb 0.1's did), not by the module
# each is written in: a stable path however the package is laid out inside.
for _cls in (BernoulliNB, ComplementNB, MultinomialNB):
    _cls.__module__ = __name__
del _cls

__all__ = ["BernoulliNB", "ComplementNB", "MultinomialNB"]
