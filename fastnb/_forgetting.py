"""Exponential forgetting (the ``half_life`` parameter of every model).

Under ``half_life=h`` a row's weight in the statistics is ``w * 2**(-age / h)``,
``age`` being the number of rows seen after it. The models keep the TRUE decayed
statistics: a batch of ``n`` rows first scales what was learned before by
``2**(-n / h)`` (``decay_factor``), then adds its rows with the weights
``w_j * 2**(-(n - 1 - j) / h)`` (``row_weights``). Every statistic a model keeps
is either a sum of row weights (counts, sums of squared deviations: they scale)
or a weighted mean (unchanged by a common scale), so this is exact for any split
of the stream into batches, and ``fit`` of a stream is its ``partial_fit``.

``half_life=None`` or ``inf`` changes nothing: the weights are not touched and
the statistics not scaled, bit for bit today's models.
"""

import math

import numpy as np

from ._params import _is_real, param_error

__all__ = ["check_half_life_param", "decay_factor", "forgets", "row_weights"]


def check_half_life_param(value, owner):
    """``half_life``: None, or a real number > 0 (``inf``: no forgetting)."""
    expected = "None or a float in the range (0.0, inf]"
    if value is None:
        return
    if not _is_real(value):
        raise param_error(owner, "half_life", expected, value, TypeError)
    try:
        value = float(value)
    except OverflowError:   # an int past float64 (a crafted file's 10**400)
        raise param_error(owner, "half_life", expected, value) from None
    if not value > 0:  # NaN too
        raise param_error(owner, "half_life", expected, value)


def forgets(half_life):
    """Whether ``half_life`` (already checked) makes the model forget."""
    return half_life is not None and math.isfinite(half_life)


def decay_factor(half_life, n_rows):
    """What the statistics learned before a batch of ``n_rows`` rows are scaled
    by: ``2**(-n_rows / half_life)``; 1.0 when the model does not forget."""
    if not forgets(half_life):
        return 1.0
    return 2.0 ** (-n_rows / float(half_life))


def row_weights(half_life, weights, n_rows):
    """The weights of a batch's rows at its end: ``weights`` (None: all 1) times
    ``2**(-(n_rows - 1 - j) / half_life)``; ``weights`` itself when the model
    does not forget."""
    if not forgets(half_life):
        return weights
    ages = np.arange(n_rows - 1, -1, -1, dtype=np.float64)
    # (ages / half_life, not ages * (1 / half_life): a denormal half-life makes
    # that inf, and the last row's 0 * inf NaN)
    with np.errstate(over="ignore"):
        decay = np.exp2(-(ages / float(half_life)))
    if weights is None:
        return decay
    return np.asarray(weights, dtype=np.float64) * decay
