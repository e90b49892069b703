"""KernelDensityNB: Naive Bayes with a Gaussian kernel density per class and
feature, from a linearly binned histogram of bounded size."""

from typing import NamedTuple

import numpy as np

from .. import _invariants as rules
from .._capabilities import Capabilities
from .._dispatch import load_kernels
from .._jll_terms import KernelDensityTerms
from .._forgetting import check_half_life_param, decay_factor
from .._params import (
    _is_int,
    _is_real,
    check_bool_param,
    check_n_threads,
    check_prior_param,
    param_error,
    resolve_priors,
)
from .._persist import union_classes
from .._threads import threads_for
from .._parametric._base import MEAN_LIMIT, _ParametricNB
from ._grid import grid_of, predict_grids, union_range, widened

__all__ = ["KernelDensityNB"]

kernels = load_kernels("_kde_kernels")

# The chunks of a fit, as the parametric models': by the data's shape only.
_FIT_MIN_ROWS_PER_CHUNK = 4096
_FIT_MAX_CHUNKS = 64
_FIT_SCRATCH_BYTES = 32 << 20

N_BINS_RANGE = (16, 4096)
BANDWIDTH_RULES = ("scott", "silverman")


def _fit_chunk_count(n_samples, n_classes, n_features, n_bins):
    by_rows = n_samples // _FIT_MIN_ROWS_PER_CHUNK
    by_memory = _FIT_SCRATCH_BYTES // (8 * n_classes * (n_features * (n_bins + 4) + 1))
    return int(max(1, min(_FIT_MAX_CHUNKS, by_rows, by_memory)))


def _log_density_grid(rows, width, h, first, step, n_nodes, n_threads):
    """kernels.kde_log_density of the histograms ``rows`` (m, n_bins) at
    ``n_nodes`` points each (``first + s * step`` in node units)."""
    n_threads = threads_for(n_threads, rows.shape[0] * rows.shape[1] * n_nodes,
                            "gaussian_fit")
    return kernels.kde_log_density(
        np.ascontiguousarray(rows), np.ascontiguousarray(width), np.ascontiguousarray(h),
        np.ascontiguousarray(first), np.ascontiguousarray(step), n_nodes, n_threads)


class _PredictGrid(NamedTuple):
    """What predict reads: per (class, feature) a grid of ``n_nodes`` nodes
    (shared by the classes of a feature where ``predict_grids`` allows)."""
    grid: np.ndarray          # (k, d, n_nodes) log densities at the nodes
    slope_low: np.ndarray     # (k, d) at the first node
    slope_high: np.ndarray    # (k, d) at the last node
    inv_width: np.ndarray     # (k, d) 1 / node spacing
    origin: np.ndarray        # (k, d) the first node's index
    start: np.ndarray         # (k, d) the first node's value
    stop: np.ndarray          # (k, d) the last node's value
    fast: np.ndarray          # (d, 2) a shared grid's (1 / spacing, origin), else (0, 1)
    table: np.ndarray         # (d, n_nodes, 2 kp) a shared grid's classes' (values, steps)
    class_inv_width: np.ndarray  # (d, kp) the classes' own grids' (0: padding)
    class_origin: np.ndarray     # (d, kp)
    class_base: np.ndarray       # (d, kp) int64: where each starts in grid's values
    pairs: np.ndarray         # (k, d, 2 n_nodes) (value, step) per class's node
    by_class: bool            # predict class by class: most features on own grids


def _zeros_on_cache_lines(shape):
    """A float64 array of zeros whose first value starts a 64-byte cache line
    (numpy aligns to 16 bytes: a table line of 2 kp values would then span
    a line more, and predict reads one per feature and row)."""
    size = int(np.prod(shape))
    buffer = np.zeros(size + 8)
    skip = (-buffer.ctypes.data % 64) // 8
    return buffer[skip:skip + size].reshape(shape)


def _predict_grid(rows, level, origin, h, todo, n_threads):
    """The _PredictGrid of the histograms ``rows`` (m, n_bins) of the
    ``todo`` (k, d) pairs, binned on the grids (level, origin) (k, d) with
    bandwidths h (k, d)."""
    k, d = todo.shape
    n_bins = rows.shape[-1]
    shared, grid_level, grid_origin, n_nodes = predict_grids(level, origin, todo, n_bins)
    grid = np.zeros((k, d, n_nodes))
    slope_low = np.zeros((k, d))
    slope_high = np.zeros((k, d))
    # each predict node in units of its histogram's nodes: exact (integers
    # times powers of two)
    step = np.ldexp(1.0, grid_level - level)[todo]
    first = grid_origin[todo] * step - origin[todo]
    grid[todo], slope_low[todo], slope_high[todo] = _log_density_grid(
        rows, np.ldexp(1.0, level[todo]), h[todo], first, step, n_nodes, n_threads)
    width = np.ldexp(1.0, grid_level)
    kp = -(-k // 4) * 4
    table = _zeros_on_cache_lines((d, n_nodes, 2 * kp))
    table[:, :, :k] = grid.transpose(1, 2, 0)
    table[:, :-1, kp:kp + k] = (grid[..., 1:] - grid[..., :-1]).transpose(1, 2, 0)
    table[~shared] = 0.0
    # (the class-by-class path's table: the row-major path reads a feature
    # on its classes' own grids at 1.2 to 1.8 times its cost per term)
    pairs = np.zeros((k, d, n_nodes, 2))
    pairs[..., 0] = grid
    pairs[..., :-1, 1] = grid[..., 1:] - grid[..., :-1]
    pairs = pairs.reshape(k, d, 2 * n_nodes)
    fast = np.zeros((d, 2))
    fast[:, 0] = np.where(shared, np.ldexp(1.0, -grid_level[0]), 0.0)
    fast[:, 1] = np.where(shared, grid_origin[0], 1.0)
    inv_width = np.ldexp(1.0, -grid_level)
    class_inv_width = np.zeros((d, kp))
    class_origin = np.zeros((d, kp))
    class_base = np.zeros((d, kp), dtype=np.int64)
    class_inv_width[:, :k] = inv_width.T
    class_origin[:, :k] = grid_origin.T
    class_base[:, :k] = (np.arange(k)[None, :] * d + np.arange(d)[:, None]) * n_nodes
    return _PredictGrid(
        grid, slope_low, slope_high, inv_width,
        grid_origin.astype(np.float64), grid_origin * width,
        (grid_origin + (n_nodes - 1)) * width, fast, table, class_inv_width,
        class_origin, class_base, pairs, bool(2 * shared.sum() < d))


class _LazyDensity:
    """The log-density grid predict reads (a _PredictGrid), derived from the
    histograms the first time a prediction (or inspection, or ONNX export)
    needs it.

    It holds the kernel's inputs (the histograms of the (class, feature)
    pairs that have a density, their grids, bandwidths and which pairs they
    are); its state (pickle, equality) is those inputs only, so computing the
    grid does not change the model's state. Two threads that ask at once may
    both compute it (the same bits): each result is a new tuple, assigned in
    one step.
    """

    __slots__ = ("_inputs", "_arrays")

    def __init__(self, rows, level, origin, h, todo, n_threads):
        self._inputs = (rows, level, origin, h, todo, n_threads)
        self._arrays = None

    def arrays(self):
        """The _PredictGrid, computed on first use."""
        arrays = self._arrays
        if arrays is None:
            arrays = _predict_grid(*self._inputs)
            self._arrays = arrays
        return arrays

    def __getstate__(self):
        return self._inputs

    def __setstate__(self, inputs):
        self._inputs = inputs
        self._arrays = None

    def __eq__(self, other):
        if not isinstance(other, _LazyDensity):
            return NotImplemented
        a, b = self._inputs, other._inputs
        return a[-1] == b[-1] and all(np.array_equal(x, y) for x, y in zip(a[:-1], b[:-1]))

    __hash__ = None


class KernelDensityNB(_ParametricNB):
    """Kernel density Naive Bayes: a Gaussian kernel density estimate per class
    and feature, from a binned histogram of bounded size.

    Each feature j of each class c is the one-dimensional Gaussian kernel
    density ``f_cj(x) = sum_i w_i N(x; x_i, h_cj**2) / sum_i w_i`` over the
    class's training values x_i (weights w_i), approximated on a grid. Fit
    makes one pass over X in a compiled, OpenMP-parallel kernel: per class
    and feature a histogram of ``n_bins`` nodes (linear binning: a value's
    weight is split between its two neighbouring nodes in proportion to its
    distance from them), and the weighted count, mean and centred second
    moment of the values (for the bandwidth rule). The model's size is
    ``O(n_classes * n_features * n_bins)`` whatever the number of rows. The
    log density of each class and feature at the nodes of predict's grid (in
    log space, a sum shifted by its largest term) is derived from the
    histograms on the first prediction after a ``fit``, ``partial_fit`` or
    load, so a ``partial_fit`` costs its batch; predict interpolates it
    linearly in one fused kernel.

    Parameters
    ----------
    {priors}
    bandwidth : {"scott", "silverman"} or float, default="scott"
        The kernel's standard deviation h, per class and feature. "scott":
        ``h = sigma * n**(-1/5)``, "silverman": ``h = sigma * (3 n / 4)**(-1/5)``
        (``scipy.stats.gaussian_kde``'s rules in one dimension), where sigma
        is the weighted standard deviation of the class's values of the
        feature and n their weight (a weight of 2 is a row twice). A float:
        that h everywhere. In every case h is at least the feature's node
        spacing ``bin_width_`` (a narrower kernel cannot be resolved by the
        grid; it also gives a feature constant within a class a finite
        density). The bandwidth only finalises the model: ``with_params``
        changes it without the data.
    n_bins : int, default=256
        Nodes per feature, in [16, 4096]. The node spacing of feature j is a
        power of two, the smallest whose ``n_bins`` nodes cover every value of
        the feature fitted so far; finer grids cost more on the first
        prediction after a change (exponentials within about 10 bandwidths of
        each node, ``O(n_classes * n_features * n_bins**2)`` at worst; each
        kernel term left out is below 2e-22 of the node's largest) and in
        memory (predict's grids, up to ``4 * n_bins`` nodes: see Notes).
    {n_threads, grow_classes, half_life}

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training samples observed in each class.
    class_prior_ : ndarray of shape (n_classes,)
        Probability of each class.
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    bandwidth_ : ndarray of shape (n_classes, n_features)
        The kernel's standard deviation h of each feature per class. A class
        that saw no value of a feature (all missing) takes the density of all
        classes together, and its bandwidth.
    bin_width_ : ndarray of shape (n_classes, n_features)
        The node spacing w of each feature per class (a power of two).
    grid_start_ : ndarray of shape (n_classes, n_features)
        The value of the first node of each feature per class; its last is
        ``grid_start_ + (n_bins - 1) * bin_width_``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when X has string column names.

    Notes
    -----
    **Grid.** Each class and feature has its own grid (classes far apart
    would otherwise share one coarse grid). Its nodes are the integer
    multiples of the spacing, which is a power of two (the smallest at which
    ``n_bins`` nodes cover the values fitted), and the nodes left over lie
    evenly below and above the values, so that the density's tails are
    computed there. When ``partial_fit`` meets a value outside the grid, the
    spacing doubles (adjacent nodes merge by the linear B-spline's rule: an
    even node keeps its weight, an odd one gives half to each neighbour)
    until every value fits. That is exactly the histogram binned at the
    wider spacing from the start, so ``fit``, any split into ``partial_fit``
    batches, and ``fastnb.merge`` (both histograms widened to the grid of
    their union) agree to rounding. A row of weight 0 is left out: it does
    not widen the grid. The spacing is at least 2**-480 (values of subnormal
    size share a node); values of size past about 1e146 make the densities
    overflow, and fit refuses them (ValueError, the model left as it was).

    **Approximation.** With node spacing w and bandwidth h, the binned
    density differs from the unbinned one (scikit-learn's
    ``KernelDensity(bandwidth=h)`` on the class's values) by a relative error
    of at most ``(w**2 / (8 h**2)) E[(1 + (|x - x_i| + w)**2 / h**2)
    exp(w (|x - x_i| + w) / h**2)]``, the expectation under the posterior
    weights ``w_i N(x; x_i, h**2)`` (linear binning interpolates each kernel
    linearly between nodes), and the linear interpolation between nodes adds
    at most ``(w**2 / 8) max |(log f)''|`` with ``(log f)'' = (V - h**2) / h**4``
    (V the posterior variance of the nodes): errors of order ``(w / h)**2``
    where the data are dense. tests/test_kde.py checks both bounds.

    **Predict's grid.** Predict reads the log densities from a grid per
    feature that the classes share: the spacing of the feature's finest
    class grid (every node of a coarser grid is one of its nodes), spanning
    every class's grid, each class's function on it the one its own grid
    gives (the log density at its nodes, the line between them, the
    Gaussian tail below past its ends, sampled at the nodes and interpolated
    between them there: at most ``w**2 / (8 h**2)`` below the tail). So a
    value's node is found once per feature, not once per class, and every
    class's term read at once. Where the shared grid would need more than
    ``4 * n_bins`` nodes (the classes' ranges too far apart for their
    spacings), the feature's classes keep their own grids; where most
    features do, predict goes class by class over blocks of rows instead
    (the same results, bit for bit). Every grid is widened to one node count
    (``n_bins`` to ``4 * n_bins``). This grid is derived, not saved: load
    computes it again.

    **Out of the grid, missing values.** Past the first or last node of its
    grid a class's log density continues as ``g(e) + g'(e) u - u**2 / (2 h**2)``
    (e the end node, u the distance past it): a Gaussian tail with the end's
    log density and slope, a lower bound of the binned density's own tail,
    clipped at -1e250 so that every score is finite. NaN is a missing value:
    it adds nothing to the histograms, and nothing to a row's score. A feature
    that no class has seen adds nothing either; a class that saw no value of
    a feature takes the density of all classes together (on the grid of all
    their values). Fit refuses infinity; at predict time an infinite value
    raises a ValueError too.

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import KernelDensityNB
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(-2, 1, (50, 2)), rng.normal(2, 1, (50, 2))])
    >>> y = np.repeat([0, 1], 50)
    >>> clf = KernelDensityNB().fit(X, y)
    >>> clf.predict([[-2.0, -1.5], [2.5, 1.0]])
    array([0, 1])
    >>> clf.bandwidth_.round(2)
    array([[0.42, 0.45],
           [0.46, 0.41]])
    """

    # (fastnb.inspection explains it, per-feature terms; fastnb.onnx exports
    # it from its KernelDensityTerms)
    _capabilities = Capabilities(
        reads="continuous", terms="kde", prior_param="priors",
        finalising_params=frozenset({"priors", "n_threads", "grow_classes",
                                     "bandwidth"}),
        sub_model=True)
    _MEANS = ("mean_x",)
    _HAS_SSD = True
    _SSD = "ssd_x"

    # The sufficient statistics. Load checks: class_count_ sums to a positive
    # finite total; feature_count within class_count_ of its class; |mean_x| at
    # most 1e150; ssd_x / feature_count (a variance) finite; value_seen 0 or 1,
    # value_low <= value_high where 1, both 0 where 0 (the class never saw a
    # value of the feature); histogram finite, non-negative, n_bins nodes,
    # zero where value_seen is 0, its mass within class_count_ of its class;
    # the derived densities finite.
    _STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "feature_count": (("k", "d"), ("finite", "nonneg")),
        "mean_x": (("k", "d"), ("finite",)),
        "ssd_x": (("k", "d"), ("finite", "nonneg")),
        "value_low": (("k", "d"), ("finite",)),
        "value_high": (("k", "d"), ("finite",)),
        "value_seen": (("k", "d"), ("finite", "nonneg")),
        "histogram": (("k", "d", "b"), ("finite", "nonneg")),
    }

    def __init__(self, *, priors=None, bandwidth="scott", n_bins=256,
                 n_threads=None, grow_classes=False, half_life=None):
        self.priors = priors
        self.bandwidth = bandwidth
        self.n_bins = n_bins
        self.n_threads = n_threads
        self.grow_classes = grow_classes
        self.half_life = half_life

    def _update_tags(self, tags):
        tags.input_tags.allow_nan = True

    def _validate_params(self):
        name = type(self).__name__
        bandwidth = self.bandwidth
        expected = f"one of {BANDWIDTH_RULES} or a positive finite float"
        if isinstance(bandwidth, str):
            if bandwidth not in BANDWIDTH_RULES:
                raise param_error(name, "bandwidth", expected, bandwidth)
        elif not _is_real(bandwidth):
            raise param_error(name, "bandwidth", expected, bandwidth, TypeError)
        elif not (np.isfinite(bandwidth) and bandwidth > 0):
            raise param_error(name, "bandwidth", expected, bandwidth)
        low, high = N_BINS_RANGE
        if not _is_int(self.n_bins):
            raise param_error(name, "n_bins", f"an int in [{low}, {high}]",
                              self.n_bins, TypeError)
        if not low <= self.n_bins <= high:
            raise param_error(name, "n_bins", f"an int in [{low}, {high}]", self.n_bins)
        check_prior_param(self.priors, "priors", name)
        check_n_threads(self.n_threads, name)
        check_bool_param(self.grow_classes, "grow_classes", name)
        check_half_life_param(self.half_life, name)

    # -- fitting ---------------------------------------------------------------------
    def _fit(self, X, y, classes, sample_weight, refit):
        """Validate, run the kernels, and only then update the model (atomically)."""
        first_call, feature_names, X, weights, fitted_classes, codes, priors = \
            self._begin_dense_fit(X, y, classes, sample_weight, refit)
        n_samples, n_features = X.shape
        if not first_call:
            self._check_feature_names_match(feature_names)
        n_classes = fitted_classes.shape[0]
        low, high, seen, n_infinite = kernels.feature_ranges(
            X, codes, weights, n_classes)
        if n_infinite:
            raise ValueError("Input X contains infinity or a value too large for "
                             f"{X.dtype!r}.")
        value_range = (low, high, seen)
        if not first_call:
            value_range = union_range(self._range, value_range)
        level, origin = grid_of(*value_range, self.n_bins)
        n_threads = threads_for(self.n_threads, n_samples * n_features, "gaussian_fit")
        n_chunks = _fit_chunk_count(n_samples, n_classes, n_features, self.n_bins)
        row_count, count, mean, ssd, hist = kernels.kde_fit(
            X, codes, weights, n_classes, np.ldexp(1.0, -level),
            origin.astype(np.float64), self.n_bins, n_chunks, n_threads)
        if first_call and row_count.sum() <= 0:
            raise ValueError("The sum of sample_weight is zero: nothing to fit.")
        stats = {"feature_count": count, "mean_x": mean, "ssd_x": ssd}
        if not first_call:
            # merged with what was learned before, scaled by the batch's decay
            # under forgetting, the old histogram widened to the new grid
            decay = decay_factor(self.half_life, n_samples)
            stats = self._merged_stats(self._decayed(self._moments, decay), stats)
            hist = hist + decay * widened(self._stat_histogram, self._range,
                                          value_range, self.n_bins)
            row_count = self.class_count_ * decay + row_count
        stats.update(zip(("value_low", "value_high", "value_seen"), value_range))
        stats["histogram"] = hist
        self._set_fitted_state(fitted_classes, priors, row_count, stats)
        if first_call:
            self._set_feature_names(feature_names)
            self.n_features_in_ = n_features
        return self

    @property
    def _range(self):
        return self._stat_value_low, self._stat_value_high, self._stat_value_seen

    _MOMENTS = ("feature_count", "mean_x", "ssd_x")

    @property
    def _moments(self):
        return {name: getattr(self, f"_stat_{name}") for name in self._MOMENTS}

    def _bandwidths(self, count, ssd, width):
        """h per (class, feature) from the moments (k, d) and node spacing (d,)."""
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if isinstance(self.bandwidth, str):
                n = np.where(count > 0, count, 1.0)
                sigma = np.sqrt(np.where(count > 0, ssd / n, 0.0))
                factor = 1.0 if self.bandwidth == "scott" else 0.75
                h = sigma * (factor * n) ** -0.2
            else:
                h = np.full(count.shape, float(self.bandwidth))
        return np.maximum(np.nan_to_num(h, nan=0.0), width)

    def _set_fitted_state(self, classes, priors, row_count, stats):
        prior = row_count / row_count.sum() if priors is None else priors
        with np.errstate(divide="ignore"):
            log_prior = np.ascontiguousarray(np.log(prior), dtype=np.float64)
        hist = stats["histogram"]
        n_bins = hist.shape[2]
        value_range = (stats["value_low"], stats["value_high"], stats["value_seen"])
        level, origin = grid_of(*value_range, n_bins)
        count = stats["feature_count"]
        own = (count > 0) & (hist.sum(axis=2) > 0)
        h = self._bandwidths(count, stats["ssd_x"], np.ldexp(1.0, level))
        rows = hist
        borrow = ~own
        if borrow.any():
            # a class without values of a feature: the density of all classes,
            # on the grid of all their values
            pooled = self._pooled({name: stats[name] for name in self._MOMENTS})
            pooled_range = tuple(value[:1] for value in value_range)
            for c in range(1, hist.shape[0]):
                pooled_range = union_range(pooled_range,
                                           tuple(value[c:c + 1] for value in value_range))
            pooled_hist = widened(hist, value_range, tuple(
                np.broadcast_to(value, hist.shape[:2]) for value in pooled_range),
                n_bins).sum(axis=0, keepdims=True)
            pooled_level, pooled_origin = grid_of(*pooled_range, n_bins)
            pooled_h = self._bandwidths(pooled["feature_count"], pooled["ssd_x"],
                                        np.ldexp(1.0, pooled_level))
            borrow &= (pooled["feature_count"] > 0) & (pooled_hist.sum(axis=2) > 0)
            level = np.where(borrow, pooled_level, level)
            origin = np.where(borrow, pooled_origin, origin)
            h = np.where(borrow, pooled_h, h)
            rows = np.where(borrow[..., None], pooled_hist, rows)
        width = np.ldexp(1.0, level)
        todo = own | borrow
        # The log-density grid is derived state, computed on first use
        # (_LazyDensity): partial_fit pays for its batch, not for the
        # k * d * n_bins * (kernel window) exponentials. Whether the grid will be finite is
        # decided here from its coefficients: with h >= w (so w**2 / (2 h**2)
        # <= 1/2) finite coefficients give a finite grid and finite slopes.
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            curvature = np.where(todo, 0.5 / (h * h), 0.0)
            coefficients = (width * width / (2.0 * h * h), width / (h * h),
                            np.log(rows.sum(axis=2) * h))
        if not (np.all(np.isfinite(curvature))
                and all(np.all(np.isfinite(v[todo])) for v in coefficients)):
            raise ValueError(
                f"{type(self).__name__}'s densities are not finite on this data "
                "(values too large or too small for float64); the model is left "
                "as it was.")
        density = _LazyDensity(np.ascontiguousarray(rows[todo]), level, origin, h, todo,
                               self.n_threads)
        # All validation is done: commit the new state.
        self.classes_ = classes
        self.class_count_ = row_count
        self.class_prior_ = prior
        self.bandwidth_ = h
        self.bin_width_ = width
        self.grid_start_ = origin * width
        for name, value in stats.items():
            setattr(self, f"_stat_{name}", np.ascontiguousarray(value, dtype=np.float64))
        # (plain array attributes, each its own: a model's state compares and
        # copies member by member)
        self._density = density
        self._curvature = curvature
        self._log_prior = log_prior

    # -- persistence and merging ---------------------------------------------------
    @classmethod
    def _check_state_invariants(cls, classes, arrays, n_features):
        """Raise a ValueError naming the member and the rule where the saved
        state breaks what the kernels rely on (see _STATE_SPEC's comment)."""
        row_count = arrays["class_count_"]
        rules.positive_total("class_count_", row_count)
        count = arrays["feature_count"]
        rules.counts_within("feature_count", count, row_count[:, None],
                            "class_count_ of its class")
        rules.check(np.all(np.abs(arrays["mean_x"]) <= MEAN_LIMIT), "mean_x",
                    f"|mean_x| must be at most {MEAN_LIMIT:g}")
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            var = np.where(count > 0, arrays["ssd_x"] / np.where(count > 0, count, 1), 0)
        rules.check(np.all(np.isfinite(var)), "ssd_x",
                    "ssd_x / feature_count (a variance) overflows float64")
        low, high, seen = (arrays[name] for name in ("value_low", "value_high",
                                                      "value_seen"))
        rules.check(np.all((seen == 0) | (seen == 1)), "value_seen",
                    "it must be 0 or 1")
        never = seen == 0
        rules.check(np.all(np.where(never, (low == 0) & (high == 0), low <= high)),
                    "value_low", "value_low <= value_high where value_seen is 1, "
                    "both 0 where it is 0")
        rules.check(np.all(np.abs(np.concatenate([low, high])) <= np.finfo(np.float64).max),
                    "value_low", "the values must be finite")
        hist = arrays["histogram"]
        rules.check(N_BINS_RANGE[0] <= hist.shape[2] <= N_BINS_RANGE[1], "histogram",
                    f"it must have between {N_BINS_RANGE[0]} and {N_BINS_RANGE[1]} "
                    "nodes per feature")
        rules.check(not np.any(hist[never]), "histogram",
                    "a class's feature never seen (value_seen 0) must have no weight")
        mass = hist.sum(axis=2)
        rules.check(np.all(np.isfinite(mass)), "histogram", "its sums overflow float64")
        rules.counts_within("histogram", mass, row_count[:, None] * (1 + 1e-9),
                            "class_count_ of its class")

    def _restore(self, classes, arrays, n_features, feature_names):
        # (the node count is a parameter: a histogram of another one is refused
        # before the shared restore reads it)
        n_bins = np.asarray(arrays["histogram"]).shape[2]
        if n_bins != self.n_bins:
            self._validate_params()
            raise ValueError(f"The histogram has {n_bins} nodes per feature, but "
                             f"n_bins={self.n_bins}.")
        super()._restore(classes, arrays, n_features, feature_names)

    def _check_derived_state(self):
        """The densities finite; each class's log prior finite or -inf."""
        rules.derived_finite("histogram", self._curvature)
        rules.derived_finite("class_count_", self._log_prior, allow=("-inf",))

    def _merged_with(self, other):
        classes, where_a, where_b = union_classes(self.classes_, other.classes_)
        k, d = classes.shape[0], self.n_features_in_
        def ranges(model, where):
            out = []
            for value in model._range:
                full = np.zeros((k, d))
                full[where] = value
                out.append(full)
            return tuple(out)

        range_a, range_b = ranges(self, where_a), ranges(other, where_b)
        value_range = union_range(range_a, range_b)

        def expand(model, where, model_range):
            stats = {name: np.zeros((k, d)) for name in self._MOMENTS}
            for name, value in model._moments.items():
                stats[name][where] = value
            hist = np.zeros((k, d, self.n_bins))
            hist[where] = model._stat_histogram
            hist = widened(hist, model_range, value_range, self.n_bins)
            rows = np.zeros(k)
            rows[where] = model.class_count_
            return rows, stats, hist

        rows_a, stats_a, hist_a = expand(self, where_a, range_a)
        rows_b, stats_b, hist_b = expand(other, where_b, range_b)
        merged = type(self)(**self.get_params())
        priors = resolve_priors(merged.priors, k, name="priors", sum_to_one=True)
        stats = merged._merged_stats(stats_a, stats_b)
        stats.update(zip(("value_low", "value_high", "value_seen"), value_range))
        stats["histogram"] = hist_a + hist_b
        merged._set_fitted_state(classes, priors, rows_a + rows_b, stats)
        merged._finish_restore(self.n_features_in_,
                               getattr(self, "feature_names_in_", None))
        return merged

    # -- prediction ------------------------------------------------------------------
    @property
    def _grid(self):
        """(k, d, n_nodes) log densities at predict's nodes (computed on first use)."""
        return self._density.arrays().grid

    def _jll_terms(self):
        """The model's ``KernelDensityTerms`` (fastnb/_jll_terms.py)."""
        self._check_fitted()
        g = self._density.arrays()
        return KernelDensityTerms(
            log_prior=self._log_prior, inv_width=g.inv_width, origin=g.origin,
            start=g.start, stop=g.stop, grid=g.grid, slope_low=g.slope_low,
            slope_high=g.slope_high, curvature=self._curvature,
            floor=float(kernels.LOG_DENSITY_FLOOR))

    def _dense_terms(self, X, out, n_threads):
        """Each feature's term of each class ((n, k, d) ``out``), as predict
        sums them (fastnb.inspection)."""
        g = self._density.arrays()
        kernels.kde_dense_terms(
            X, g.inv_width, g.origin, g.start, g.stop, g.grid, g.slope_low,
            g.slope_high, self._curvature, out, n_threads)

    def _run_predict_kernel(self, X, mode, labels_out, out):
        n_threads = self._predict_threads(X.shape[0],
                                          self._log_prior.size * X.shape[1])
        g = self._density.arrays()
        n_infinite = kernels.kde_predict(
            X, g.fast, g.table, g.class_inv_width, g.class_origin, g.class_base,
            g.inv_width, g.origin, g.start, g.stop, g.grid,
            g.slope_low, g.slope_high, self._curvature, g.pairs, g.by_class,
            self._log_prior, mode,
            labels_out, out, n_threads)
        if n_infinite:
            raise ValueError(f"Input X contains infinity or a value too large for "
                             f"{X.dtype!r}.")
