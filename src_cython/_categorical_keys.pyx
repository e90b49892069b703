"""CategoricalNB keys: Python objects to stable 64-bit keys (with the GIL).

Design
------
Every category value is reduced to a (tag, 64-bit key) pair that is the same in
every process, platform and Python version (Python's salted ``hash()`` is never
used):

* integers in the int64 range: tag INT, key = the value itself (bijective, so
  integer keys are exact); integers in [2**63, 2**64): tag UINT, key = value;
  bools and integral floats are the equal integer (True == 1 == 1.0, as in Python);
* other floats: tag FLOAT, key = the IEEE-754 bits; NaN is a missing value;
* str: tag STR, key = a fixed-seed FNV-1a hash of the code points, finalised by
  murmur3's fmix64 (the same for any internal width of the string);
* bytes: tag BYTES, the same hash over the bytes; ints beyond 64 bits: tag BIGINT,
  the hash of their decimal text; any other hashable: tag OTHER, the hash of
  ``module.qualname:repr(value)``.

Numeric arrays are keyed without the GIL by the same point functions
(_categorical_point.pxd). Object columns are read here, row by row (the order their
objects were usually created in, which is kind to the caches), and each distinct
value of a column is keyed once: a per-column dict from value to id tells values
apart by Python equality, so 1, 1.0 and True are one value. For str, bytes and
other keys, which are hashes, lookups in a fitted feature compare the value itself
with the stored category, so a 64-bit collision can never misplace a value.

Every function takes a 2-D object array and the columns to read; a single column
is passed as an (n, 1) view. An unhashable value raises TypeError whose ``args[1]``
is the position of its column.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

from _common cimport intp_t
from _categorical_point cimport (
    TAG_EMPTY, TAG_INT, TAG_UINT, TAG_FLOAT, TAG_STR, TAG_BYTES, TAG_BIGINT, TAG_OTHER,
    LOOKUP_CODE, LOOKUP_HASH, LOOKUP_RESOLVED, LOOKUP_BUCKET,
    hash_units, double_key, bucket_of, table_find,
)

import numpy as np

# The enums of _categorical_point.pxd, for the Python layer.
TAGS = {
    "empty": TAG_EMPTY, "int": TAG_INT, "uint": TAG_UINT, "float": TAG_FLOAT,
    "str": TAG_STR, "bytes": TAG_BYTES, "bigint": TAG_BIGINT, "other": TAG_OTHER,
}
LOOKUPS = {"code": LOOKUP_CODE, "hash": LOOKUP_HASH, "resolved": LOOKUP_RESOLVED,
           "bucket": LOOKUP_BUCKET}

cdef extern from "Python.h":
    Py_ssize_t PyUnicode_GET_LENGTH(object)
    int PyUnicode_KIND(object)
    void* PyUnicode_DATA(object)
    char* PyBytes_AS_STRING(object)
    Py_ssize_t PyBytes_GET_SIZE(object)
    long long PyLong_AsLongLongAndOverflow(object, int*) except? -1
    unsigned long long PyLong_AsUnsignedLongLong(object) except? -1


cdef inline uint64_t str_key(object s):
    return hash_units(PyUnicode_DATA(s), PyUnicode_KIND(s), PyUnicode_GET_LENGTH(s))


cdef inline uint64_t bytes_key(object b):
    return hash_units(PyBytes_AS_STRING(b), 1, PyBytes_GET_SIZE(b))


cdef int int_key(object value, uint8_t* tag, uint64_t* key) except -1:
    cdef int overflow = 0
    cdef long long as_ll = PyLong_AsLongLongAndOverflow(value, &overflow)
    if overflow == 0:
        tag[0] = TAG_INT
        key[0] = <uint64_t>as_ll
    elif overflow > 0 and value < 18446744073709551616:
        tag[0] = TAG_UINT
        key[0] = PyLong_AsUnsignedLongLong(value)
    else:
        tag[0] = TAG_BIGINT
        key[0] = str_key(str(value))
    return 0


cdef bint is_missing_object(object value):
    name = type(value).__name__
    return name == "NAType" or name == "NaTType"


cdef int object_key(object value, uint8_t* tag, uint64_t* key) except -1:
    """The key of a Python value; 1 when it is missing (None, NaN, pd.NA, NaT)."""
    cdef type t = type(value)
    if t is str:
        tag[0] = TAG_STR
        key[0] = str_key(value)
        return 0
    if t is int or t is bool:
        return int_key(value, tag, key)
    if t is float:
        return double_key(<double>value, tag, key)
    if value is None:
        return 1
    if t is bytes:
        tag[0] = TAG_BYTES
        key[0] = bytes_key(value)
        return 0
    if isinstance(value, str):
        tag[0] = TAG_STR
        key[0] = str_key(str(value))
        return 0
    if isinstance(value, bytes):
        tag[0] = TAG_BYTES
        key[0] = bytes_key(bytes(value))
        return 0
    if isinstance(value, (np.integer, np.bool_, int)):
        return int_key(int(value), tag, key)
    if isinstance(value, (np.floating, float)):
        return double_key(<double>float(value), tag, key)
    if is_missing_object(value):
        return 1
    hash(value)  # raises TypeError for unhashable values
    tag[0] = TAG_OTHER
    key[0] = str_key(f"{t.__module__}.{t.__qualname__}:{value!r}")
    return 0


def value_key(value):
    """(tag, key) of one value, or None when it is a missing value."""
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    if object_key(value, &tag, &key):
        return None
    return int(tag), int(key)


def encode_object_rows(object[:, :] X, const intp_t[::1] cols, int32_t[:, ::1] ids_out):
    """Key each distinct value of the columns ``cols`` of X once.

    Writes the id of each row's value into ``ids_out`` (len(cols), n) (its position
    among the column's distinct values; -1 for a missing value) and returns one
    ``(values, tags, keys)`` per column: the distinct values in first-seen order.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t m = cols.shape[0]
    cdef Py_ssize_t i, jj
    cdef list caches = [{} for _ in range(m)]
    cdef list values = [[] for _ in range(m)]
    cdef list tags = [[] for _ in range(m)]
    cdef list keys = [[] for _ in range(m)]
    cdef list column_values
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    cdef dict cache
    cdef object value, found
    cdef int32_t id
    for i in range(n):
        for jj in range(m):
            value = X[i, cols[jj]]
            cache = <dict>caches[jj]
            try:
                found = cache.get(value)
            except TypeError as error:
                raise TypeError(str(error), jj) from None
            if found is None:
                if object_key(value, &tag, &key):
                    id = -1
                else:
                    column_values = <list>values[jj]
                    id = len(column_values)
                    column_values.append(value)
                    (<list>tags[jj]).append(tag)
                    (<list>keys[jj]).append(key)
                cache[value] = id
                ids_out[jj, i] = id
            else:
                ids_out[jj, i] = <int32_t>found
    return [(values[jj], np.array(tags[jj], dtype=np.uint8),
             np.array(keys[jj], dtype=np.uint64)) for jj in range(m)]


def bucket_object_rows(object[:, :] X, const intp_t[::1] cols, intp_t n_buckets,
                       int32_t[:, ::1] ids_out):
    """Feature hashing of object columns: ``ids_out[jj, i]`` is the bucket of
    ``X[i, cols[jj]]`` (-1 when missing). Keeps no per-value state."""
    cdef Py_ssize_t i, jj
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    cdef int missing
    for i in range(X.shape[0]):
        for jj in range(cols.shape[0]):
            try:
                missing = object_key(X[i, cols[jj]], &tag, &key)
            except TypeError as error:
                raise TypeError(str(error), jj) from None
            ids_out[jj, i] = -1 if missing else <int32_t>bucket_of(tag, key, n_buckets)


cdef int32_t object_row(
    object value, int lookup, intp_t n_categories,
    const uint64_t[::1] hash_keys, const uint8_t[::1] hash_tags,
    const int64_t[::1] hash_rows, intp_t hash_start, intp_t hash_mask,
    object categories,
) except? -3:
    """The table row of one object value (see table_row in _categorical_point.pxd)."""
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    cdef int64_t found
    if object_key(value, &tag, &key):
        return -1
    if lookup == LOOKUP_CODE:
        return <int32_t>key if (tag == TAG_INT and key < <uint64_t>n_categories) else (
            <int32_t>n_categories)
    if lookup == LOOKUP_BUCKET:
        return <int32_t>bucket_of(tag, key, n_categories)
    found = table_find(&hash_keys[hash_start], &hash_tags[hash_start],
                       &hash_rows[hash_start], hash_mask, tag, key)
    if found < 0 or (tag >= TAG_STR and not bool(categories[found] == value)):
        return <int32_t>n_categories
    return <int32_t>found


def resolve_object_rows(
    object[:, :] X,                    # IN: (n, m) values
    const intp_t[::1] features,        # IN: (m,) the feature of each column
    const int32_t[::1] lookup, const intp_t[::1] n_categories,
    const uint64_t[::1] hash_keys, const uint8_t[::1] hash_tags,
    const int64_t[::1] hash_rows, const intp_t[::1] hash_start,
    const intp_t[::1] hash_mask,
    list categories,                   # IN: each feature's category values
    int32_t[:, ::1] out,               # OUT: (n, m) table rows
):
    """The table row of every value of X, keying each distinct value of a column once.

    Integer-code features take non-negative integers below n_categories as their
    own row; value features look the key up and, for str/bytes/other keys, compare
    the value with the stored category.
    """
    cdef Py_ssize_t m = features.shape[0]
    cdef Py_ssize_t i, jj
    cdef intp_t f
    cdef list caches = [{} for _ in range(m)]
    cdef object value, hit
    cdef int32_t row
    cdef dict cache
    for i in range(X.shape[0]):
        for jj in range(m):
            value = X[i, jj]
            cache = <dict>caches[jj]
            try:
                hit = cache.get(value)
            except TypeError as error:
                raise TypeError(str(error), jj) from None
            if hit is None:
                f = features[jj]
                row = object_row(value, lookup[f], n_categories[f], hash_keys, hash_tags,
                                 hash_rows, hash_start[f], hash_mask[f], categories[f])
                cache[value] = row
            else:
                row = <int32_t>hit
            out[i, jj] = row
