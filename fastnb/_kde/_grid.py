"""KernelDensityNB's grid: where each histogram's nodes lie.

Each class c and feature j has its own grid (classes apart from each other
would otherwise share one coarse grid). Its nodes are the integer multiples
of a width w = 2**m, and the model keeps ``n_bins`` of them, where ``low``
and ``high`` are the smallest and largest values of the class's feature ever
fitted (``seen`` 0: none yet). A value is linearly binned onto its two
neighbouring nodes, so the top value needs node ``floor(high_j / w_j) + 1``.
The level m_j is the smallest at or above a floor (52 binary orders of
magnitude below the largest |value|: a finer node spacing than the values'
own resolution means nothing) at which ``n_bins`` nodes cover
``[low_j, high_j]``; the nodes left over are split evenly below and above
(``origin_j``, the first node's index, is a function of the range too).

The grid is therefore a function of (low, high, n_bins) alone, and covering
is monotone in m: the grid of a union of data is never finer than the grid of
a part. Widening from level m to m + 1 maps node a to node a / 2 (a even), or
half to each of (a - 1) / 2 and (a + 1) / 2 (a odd): the linear B-spline's
refinement rule, so a histogram widened is exactly (to rounding) the
histogram binned at the wider level from the start. A later batch whose
values fall outside the grid, and a merge of two models, widen both
histograms to the grid of the union of the ranges: partial_fit and merge
give fit's histogram.
"""

import numpy as np

__all__ = ["grid_of", "predict_grids", "union_range", "widened"]

# the levels (the exponent of the node spacing) a grid may take: the square of
# the spacing (and of a bandwidth as narrow) stays a normal double, so values
# of subnormal size share one node; values past ~1e146 make the densities
# overflow, which the model refuses
LEVEL_MIN = -480
LEVEL_MAX = 1000


def _covers(low, high, level, n_bins):
    """Whether n_bins nodes of spacing 2**level cover [low, high] (linear
    binning: the node after high's too)."""
    scale = np.ldexp(1.0, -level)
    return np.floor(high * scale) + 1 - np.floor(low * scale) <= n_bins - 1


def grid_of(low, high, seen, n_bins):
    """The (level, origin) int64 arrays of the grids of the ranges [low, high]
    (arrays of one shape; where ``seen`` is 0, level 0 and origin 0)."""
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    seen = np.asarray(seen) > 0
    low = np.where(seen, low, 0.0)
    high = np.where(seen, high, 0.0)
    largest = np.maximum(np.abs(low), np.abs(high))
    level = np.frexp(largest)[1].astype(np.int64) - 52
    # the spacing of any covering grid is at least (high - low) / (n_bins - 1)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        spread = high - low
        guess = np.floor(np.log2(spread / (n_bins - 1)))
    guess = np.where(spread > 0, np.nan_to_num(guess, posinf=LEVEL_MAX), LEVEL_MIN)
    level = np.clip(np.maximum(level, guess.astype(np.int64) - 1), LEVEL_MIN, LEVEL_MAX)
    while True:
        short = ~_covers(low, high, level, n_bins)
        if not short.any():
            break
        level = level + short
    scale = np.ldexp(1.0, -level)
    first = np.floor(low * scale).astype(np.int64)
    last = np.floor(high * scale).astype(np.int64) + 1
    # the nodes left over split evenly below and above the data: the
    # density's tails are computed, not extrapolated, that far
    origin = first - (n_bins - (last - first + 1)) // 2
    return np.where(seen, level, 0), np.where(seen, origin, 0)


def union_range(range_a, range_b):
    """The union of two (low, high, seen) ranges: arrays of one shape."""
    low_a, high_a, seen_a = range_a
    low_b, high_b, seen_b = range_b
    seen_a, seen_b = seen_a > 0, seen_b > 0
    low = np.where(seen_a & seen_b, np.minimum(low_a, low_b),
                   np.where(seen_a, low_a, low_b))
    high = np.where(seen_a & seen_b, np.maximum(high_a, high_b),
                    np.where(seen_a, high_a, high_b))
    seen = seen_a | seen_b
    return (np.where(seen, low, 0.0), np.where(seen, high, 0.0), seen.astype(np.float64))


def widened(hist, value_range, new_range, n_bins):
    """``hist`` ((..., n_bins), binned on the grids of ``value_range``, a
    (low, high, seen) triple of arrays of shape ``hist.shape[:-1]``) binned on
    the grids of ``new_range`` instead (each range a superset: every level at
    least as coarse), on a new array."""
    old_level, old_origin = grid_of(*value_range, n_bins)
    new_level, new_origin = grid_of(*new_range, n_bins)
    flat = hist.reshape(-1, n_bins)
    out = flat.copy()
    old_seen = (value_range[2] > 0).ravel()
    moved = old_seen & ((old_level != new_level) | (old_origin != new_origin)).ravel()
    for row, origin, steps, new in zip(
            np.flatnonzero(moved), old_origin.ravel()[moved],
            (new_level - old_level).ravel()[moved], new_origin.ravel()[moved]):
        column = flat[row]
        origin = int(origin)
        for _ in range(int(steps)):
            nodes = origin + np.arange(n_bins)
            odd = (nodes & 1).astype(bool)
            half = nodes >> 1              # floor(a / 2): (a - 1) / 2 for odd a
            origin = origin >> 1
            wider = np.zeros(n_bins)
            np.add.at(wider, half - origin, np.where(odd, 0.5, 1.0) * column)
            np.add.at(wider, half[odd] + 1 - origin, 0.5 * column[odd])
            column = wider
        # (the nodes that carry weight lie within both windows)
        shift = origin - int(new)
        out[row] = 0.0
        if shift >= 0:
            out[row, shift:] = column[:n_bins - shift]
        else:
            out[row, :n_bins + shift] = column[-shift:]
    return out.reshape(hist.shape)


# A feature's predict grid is shared by its classes while it needs at most
# this many times n_bins nodes (predict's memory and its first-use cost grow
# with it); past that its classes keep their own grids.
SHARED_NODES_FACTOR = 4


def predict_grids(level, origin, todo, n_bins):
    """The grids predict interpolates the log densities on, from the
    histograms' (level, origin) int64 arrays (k, d) and ``todo`` (k, d) (the
    (class, feature) pairs with a density): ``(shared (d,) bool, level (k, d),
    origin (k, d), n_nodes)``, every grid ``n_nodes >= n_bins`` nodes.

    Feature j's grid is shared by its classes where it can be: the spacing
    of its finest class grid, the nodes spanning every class's grid (all
    nodes of a coarser grid are nodes of a finer one: the levels are powers
    of two), at most SHARED_NODES_FACTOR * n_bins of them. Otherwise (the
    classes' ranges too far apart for their spacings) each class keeps its
    own grid. Every grid is then widened to the largest count, ``n_nodes``,
    its extra nodes split evenly below and above: the density is computed
    there, not extrapolated."""
    level = np.asarray(level, dtype=np.int64)
    origin = np.asarray(origin, dtype=np.int64)
    todo = np.asarray(todo, dtype=bool)
    used = todo.any(axis=0)
    fine = np.where(todo, level, LEVEL_MAX).min(axis=0, initial=LEVEL_MAX)
    fine = np.where(used, fine, 0)
    shift = np.where(todo, level - fine[None, :], 0)
    with np.errstate(over="ignore", invalid="ignore"):
        # each grid's first and last node in units of the finest spacing
        # (exact: an integer times a power of two; inf where it overflows)
        low = np.ldexp(origin.astype(np.float64), shift)
        high = np.ldexp((origin + (n_bins - 1)).astype(np.float64), shift)
        first = np.where(todo, low, np.inf).min(axis=0, initial=np.inf)
        last = np.where(todo, high, -np.inf).max(axis=0, initial=-np.inf)
        needed = np.where(used, last - first + 1, n_bins)
        # (t = x / w - origin stays exact to well below a node)
        small = np.maximum(np.abs(first), np.abs(last)) < 2.0 ** 50
    shared = ~used | ((needed <= SHARED_NODES_FACTOR * n_bins) & small)
    n_nodes = int(max(n_bins, needed[shared].max(initial=n_bins)))
    first = np.where(used & shared, first, 0.0).astype(np.int64)
    shared_origin = first - (n_nodes - np.where(shared, needed, n_bins).astype(np.int64)) // 2
    own_origin = origin - (n_nodes - n_bins) // 2
    out_level = np.where(shared[None, :], fine[None, :], level)
    out_origin = np.where(shared[None, :], shared_origin[None, :], own_origin)
    return shared, out_level, out_origin, n_nodes
