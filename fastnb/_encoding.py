"""Mapping class labels to contiguous indices 0..k-1 for the kernels.

Integer labels (including bools, and floats that are all whole numbers) in a span
that is small next to n are encoded in three linear passes by the compiled
``_labels`` module; anything else (strings, objects, other floats, sparse huge
integers) goes through a sort with ``np.unique``.
"""

import numpy as np

from . import _labels

# A lookup table over the label span is used when the span is below this, or
# below 4 * n: the table then costs no more than the labels themselves.
_LUT_MIN_SPAN = 1 << 16
# Labels in [0, this) are found in a single pass.
_SMALL_LABELS = 1 << 12
# Up to this many labels are mapped to known classes by binary search (a
# partial_fit batch of 100: no lookup table to allocate, ~3 us less).
_SEARCH_MAX_LABELS = 512


def _as_kernel_ints(y):
    """y as int32/int64 for the compiled encoder, or None when it cannot be."""
    if y.dtype == np.int64 or y.dtype == np.int32:
        return np.ascontiguousarray(y)
    if y.dtype.kind == "b" or (y.dtype.kind in "iu" and y.dtype.itemsize < 8):
        return y.astype(np.int64)
    if y.dtype == np.uint64:
        if y.size and y.max() > np.iinfo(np.int64).max:
            return None
        return y.astype(np.int64)
    return None


def _integral_floats(y):
    """Float labels that are all whole numbers within int64 (MLlib's 0.0, 1.0,
    ..., pandas' float columns), as int64 for the compiled encoder, or None.
    A few linear passes, against np.unique's sort (125,000 labels: 1.5 vs 4.2 ms)."""
    if not y.size:
        return None
    with np.errstate(invalid="ignore"):
        # NaN, infinity and values past int64 cast to something that differs
        ints = y.astype(np.int64)
    return ints if np.array_equal(ints, y) else None


def _label_ints(y):
    """y as int32/int64 for the compiled encoder (integers, bools, and floats that
    are all whole numbers), or None."""
    if y.dtype.kind in "biu":
        return _as_kernel_ints(y)
    return _integral_floats(y) if y.dtype.kind == "f" else None


def encode_labels(y):
    """Sorted unique labels of y and the index of each label among them.

    Returns
    -------
    classes : ndarray of shape (k,), y's dtype
    codes : ndarray of shape (n,), intp
    """
    ints = _label_ints(y)
    if ints is not None and ints.size:
        small = np.zeros(_SMALL_LABELS, dtype=np.uint8)
        if _labels.scan_small_labels(ints, small) == 0:
            # Every label is in [0, _SMALL_LABELS): one pass found the classes.
            offsets = np.flatnonzero(small)
            k = offsets.size
            if ints is y and y.dtype == np.intp and offsets[-1] == k - 1:
                # Labels already 0..k-1: they are the codes; no copy.
                return offsets.astype(y.dtype), y
            lut = np.full(int(offsets[-1]) + 1, -1, dtype=np.intp)
            lut[offsets] = np.arange(k, dtype=np.intp)
            codes = np.empty(ints.size, dtype=np.intp)
            _labels.map_labels(ints, 0, lut, codes)
            return offsets.astype(y.dtype), codes
        lo, hi = _labels.int_label_span(ints)
        span = hi - lo + 1
        if span <= max(_LUT_MIN_SPAN, 4 * ints.size):
            present = np.zeros(span, dtype=np.uint8)
            _labels.mark_present_labels(ints, lo, present)
            offsets = np.flatnonzero(present)
            lut = np.full(span, -1, dtype=np.intp)
            lut[offsets] = np.arange(offsets.size, dtype=np.intp)
            codes = np.empty(ints.size, dtype=np.intp)
            _labels.map_labels(ints, lo, lut, codes)
            classes = (offsets + lo).astype(y.dtype)
            return classes, codes
    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError as error:
        raise ValueError(
            f"Mix of label input types (string and number) in y: {error}"
        ) from error
    return classes, codes.astype(np.intp, copy=False).ravel()


def _raise_unknown_labels(y, codes, classes):
    unknown = np.unique(y[codes < 0])
    raise ValueError(
        f"The target label(s) {unknown} in y do not exist in the initial "
        f"classes {classes}"
    )


def encode_with_classes(y, classes):
    """Index of each label of y in the sorted array ``classes``.

    Raises ValueError naming the labels of y that are not in ``classes``.
    """
    codes = None
    class_ints = (
        _as_kernel_ints(classes) if classes.dtype.kind in "biu" else None
    )
    # (y's integer form only where the classes have one: float classes take
    # np.searchsorted, and a whole-number check of y would be a wasted pass)
    ints = _label_ints(y) if class_ints is not None else None
    if ints is not None and class_ints is not None and class_ints.size:
        if ints.size <= _SEARCH_MAX_LABELS:
            # a small batch: a binary search each, no lookup table to build
            codes = np.empty(ints.size, dtype=np.intp)
            if _labels.search_labels(ints, class_ints, codes) == 0:
                return codes
            _raise_unknown_labels(y, codes, classes)
        lo, hi = int(class_ints[0]), int(class_ints[-1])
        span = hi - lo + 1
        if span <= max(_LUT_MIN_SPAN, 4 * ints.size):
            lut = np.full(span, -1, dtype=np.intp)
            lut[class_ints - lo] = np.arange(class_ints.size, dtype=np.intp)
            codes = np.empty(ints.size, dtype=np.intp)
            if _labels.map_labels(ints, lo, lut, codes) == 0:
                return codes
            _raise_unknown_labels(y, codes, classes)
    try:
        positions = np.searchsorted(classes, y)
    except TypeError as error:
        raise ValueError(
            f"Labels of y cannot be compared with the classes {classes}: {error}"
        ) from error
    positions = np.minimum(positions, classes.size - 1)
    known = classes[positions] == y
    if not np.all(known):
        unknown = np.unique(y[~known])
        raise ValueError(
            f"The target label(s) {unknown} in y do not exist in the initial "
            f"classes {classes}"
        )
    return positions.astype(np.intp, copy=False)
