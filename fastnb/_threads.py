"""Thread-count resolution for the OpenMP kernels.

The meaning is scikit-learn's ``n_threads``: ``None`` or ``-1`` uses every core the
process may run on, limited by the OpenMP runtime's own setting (``OMP_NUM_THREADS``,
or a ``threadpoolctl.threadpool_limits`` block); ``-2`` leaves one core free, and so
on; a positive number is used as given, up to the number of usable cores: a larger
one (from a constructor, ``set_params`` or a model file) is capped to them, since
more threads than cores only add waiting, and the OpenMP runtime cannot even create
some counts (10**5 threads crash the process, ~700 make libgomp exit).
"""

import os

from . import _runtime
from ._params import check_n_threads
from ._version import __version__

__all__ = ["PARALLEL_MIN_WORK", "openmp_enabled", "effective_n_threads", "show_config",
           "threads_for"]

# Below these amounts of work a kernel call runs on one thread and never enters an
# OpenMP region: waking a thread team (and, on a busy 2-core machine, waiting for a
# descheduled thread) costs more than the work. One table for every kernel, so that
# tests can force the parallel paths on small data by setting the entries to 0.
PARALLEL_MIN_WORK = {
    "gaussian_fit": 1 << 20,         # values of X read
    # values of X read by a fit that takes a log of each (GammaNB, LogNormalNB),
    # ~5x a Gaussian fit's cost a value (~2.9 vs ~0.6 ns with _log_simd.h's
    # AVX2 log): 2 threads pay off on fewer values
    "log_fit": 1 << 18,
    "count_fit": 1 << 20,            # values (dense) or non-zeros (CSR) read
    "categorical_fit": 1 << 21,      # values of X read
    "predict": 1 << 21,              # multiply-adds: n_samples * n_features * n_classes
    # the same for a predict that takes a log of each value (GammaNB, LogNormalNB):
    # ~2.5x GaussianNB's cost a multiply-add at k=5 (~1.1 vs ~0.45 ns)
    "log_predict": 1 << 20,
    "categorical_predict": 1 << 23,  # table lookups: n_samples * n_features * n_classes
    # A dense count fit gives each thread a block of columns at least this many
    # bytes wide: narrower strided reads defeat the prefetchers (2 threads were 2x
    # slower than 1 on 1.6 kB rows).
    "count_fit_block_bytes": 4096,
}

# GNU libgomp's thread pool does not survive fork(): a child process that enters a
# parallel region can hang forever. A forked child therefore runs every kernel
# serially (and serial kernels never enter an OpenMP region).
_IN_FORKED_CHILD = False


def _mark_forked_child():
    global _IN_FORKED_CHILD
    _IN_FORKED_CHILD = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_mark_forked_child)


def _usable_cpu_count():
    if hasattr(os, "process_cpu_count"):  # Python >= 3.13
        count = os.process_cpu_count()
    elif hasattr(os, "sched_getaffinity"):
        count = len(os.sched_getaffinity(0))
    else:
        count = os.cpu_count()
    return max(1, count or 1)


def openmp_enabled():
    """Whether fastnb was compiled with OpenMP support.

    Returns
    -------
    enabled : bool
        ``True`` when the kernels can run on several threads.

    Examples
    --------
    >>> import fastnb
    >>> isinstance(fastnb.openmp_enabled(), bool)
    True
    """
    return _runtime.openmp_enabled()


def effective_n_threads(n_threads=None):
    """The number of threads a kernel will use for a given ``n_threads`` setting.

    Parameters
    ----------
    n_threads : int or None, default=None
        ``None`` or ``-1``: all usable cores, capped by the OpenMP runtime's limit
        (``OMP_NUM_THREADS`` or threadpoolctl). ``-k`` (k >= 2): all usable cores but
        ``k - 1``. A positive int: that many, capped to the usable cores.

    Returns
    -------
    n : int
        At least 1; always 1 without OpenMP or in a forked child process.

    Examples
    --------
    >>> import fastnb
    >>> fastnb.effective_n_threads(1)
    1
    >>> fastnb.effective_n_threads() >= 1
    True
    """
    check_n_threads(n_threads)
    if not _runtime.openmp_enabled() or _IN_FORKED_CHILD:
        return 1
    if n_threads is None or n_threads < 0:
        cores = _usable_cpu_count()
        if n_threads is None or n_threads == -1:
            wanted = cores
        else:
            wanted = max(1, cores + 1 + int(n_threads))
        return max(1, min(wanted, _runtime.omp_max_threads()))
    return min(int(n_threads), _usable_cpu_count())


def threads_for(n_threads, work, kind):
    """Threads for a kernel call of ``work`` units of the given ``kind``: 1 below
    ``PARALLEL_MIN_WORK[kind]``, else ``effective_n_threads(n_threads)``."""
    if work < PARALLEL_MIN_WORK[kind]:
        return 1
    return effective_n_threads(n_threads)


def show_config():
    """Describe how fastnb was built and how many threads it will use.

    Returns
    -------
    config : dict
        ``openmp`` (bool), ``simd`` (which kernel build runs: 'avx2' or
        'baseline'), ``threads`` (the default thread count) and ``cpus``.

    Examples
    --------
    >>> import fastnb
    >>> sorted(fastnb.show_config())
    ['cpus', 'openmp', 'simd', 'threads', 'version']
    """
    from ._dispatch import simd_level

    return {
        "version": __version__,
        "simd": simd_level(),
        "openmp": openmp_enabled(),
        "threads": effective_n_threads(None),
        "cpus": _usable_cpu_count(),
    }
