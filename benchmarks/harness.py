"""Side-by-side timing: fastnb against a baseline, pair by pair in one process.

Every case runs its fastnb call and its baseline call alternately, after one
warm-up each; the speedup is the median of the per-pair ratios, so that a noisy
moment on this (2-core, shared) machine hits both sides of a pair alike. The
lowest and highest pair ratios are kept too: on this machine they span 2-5x in
one run (the baseline's own time moves with the cost of fresh memory), and a
median near a target is read with them.
"""

import time
import tracemalloc
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

__all__ = ["Case", "MemoryCase", "run_case", "run_memory_case", "streamer"]


@dataclass
class Case:
    """One timed comparison.

    ``target`` is the minimum speedup (baseline time / fastnb time) the project
    promises; ``max_seconds`` an absolute bound on fastnb's median time.
    """

    workload: str
    operation: str
    fastnb: Callable[[], object]
    sklearn: Optional[Callable[[], object]] = None
    target: Optional[float] = None
    baseline: str = "scikit-learn"
    max_seconds: Optional[float] = None
    inner_loops: int = 1  # calls per timing, for microsecond-scale operations


@dataclass
class MemoryCase:
    """Peak extra memory of one fastnb call, against the size of what it returns."""

    workload: str
    operation: str
    fastnb: Callable[[], object]
    allowance_bytes: int = 0  # the O(k*d) model-sized slack allowed on top
    notes: list = field(default_factory=list)


def streamer(model, batches, classes):
    """A callable that feeds the next of ``batches`` ((X, y) pairs) to
    ``model.partial_fit`` each call, cycling through them: a stream, timed with
    ``inner_loops`` consecutive batches."""
    state = {"i": 0}

    def step():
        Xb, yb = batches[state["i"] % len(batches)]
        state["i"] += 1
        model.partial_fit(Xb, yb, classes=classes)

    return step


def _time(function, inner_loops):
    start = time.perf_counter()
    for _ in range(inner_loops):
        function()
    return (time.perf_counter() - start) / inner_loops


def run_case(case, repeats):
    """Return a dict of median times, the median pairwise speedup and a verdict."""
    case.fastnb()
    if case.sklearn is not None:
        case.sklearn()
    ours, theirs, ratios = [], [], []
    for _ in range(repeats):
        t_ours = _time(case.fastnb, case.inner_loops)
        ours.append(t_ours)
        if case.sklearn is not None:
            t_theirs = _time(case.sklearn, case.inner_loops)
            theirs.append(t_theirs)
            ratios.append(t_theirs / t_ours)
    result = {
        "workload": case.workload,
        "operation": case.operation,
        "baseline": case.baseline,
        "fastnb_s": float(np.median(ours)),
        "baseline_s": float(np.median(theirs)) if theirs else None,
        "speedup": float(np.median(ratios)) if ratios else None,
        "pair_ratios": [float(r) for r in ratios],
        "fastnb_min_s": float(min(ours)),
        "baseline_min_s": float(min(theirs)) if theirs else None,
        "fastnb_times_s": [float(t) for t in ours],
        "baseline_times_s": [float(t) for t in theirs],
        "target": case.target,
        "max_seconds": case.max_seconds,
    }
    ok = True
    if case.target is not None and result["speedup"] is not None:
        ok = ok and result["speedup"] >= case.target
    if case.max_seconds is not None:
        ok = ok and result["fastnb_s"] <= case.max_seconds
    result["ok"] = ok if (case.target is not None or case.max_seconds is not None) else None
    return result


def run_memory_case(case):
    """Peak bytes traced during one call, and the bytes of the array it returns."""
    case.fastnb()
    tracemalloc.start()
    try:
        output = case.fastnb()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    output_bytes = int(getattr(output, "nbytes", 0))
    return {
        "workload": case.workload,
        "operation": case.operation,
        "peak_bytes": int(peak),
        "output_bytes": output_bytes,
        "allowance_bytes": case.allowance_bytes,
        "ok": peak <= output_bytes + case.allowance_bytes,
    }
