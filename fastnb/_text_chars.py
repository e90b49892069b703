"""Per-code-point tables for the text kernels, derived from this Python itself.

The kernels must tokenise exactly as scikit-learn's ``re`` and ``str`` calls do on
the running interpreter (whose Unicode version may differ from another's), so
every table is computed here, once per process, from CPython's own functions:

- ``info``: ``(lowercase << 8) | flags`` for each of the 0x110000 code points.
  The word and space flags come from ``Py_UNICODE_ISALNUM`` / ``Py_UNICODE_ISSPACE``
  (what ``re`` uses for ``\\w`` and ``\\s``), for the code point and for its
  lowercase; the lowercase from ``str.lower()`` over all code points at once
  (about 50 ms). Code points whose ``str.lower()`` is
  several characters (U+0130) are flagged special and listed in ``expand``; so is
  the capital sigma, whose lowercase depends on its neighbours.
- ``sigma``: the Case_Ignorable and Cased properties that CPython's final-sigma
  rule reads. Python does not expose them, so they are read off ``str.lower()``
  applied to "A x Σ", "\\0 x Σ" and "A Σ x" for every x (about 0.3 s): built the
  first time a document with a capital sigma is lowercased.
- ``combining``: ``unicodedata.combining(c) != 0``, for ``strip_accents="unicode"``.
"""

import threading
import unicodedata

import numpy as np

from . import _text_kernels

__all__ = ["built_sigma_table", "combining_table", "info_table", "sigma_table"]

N_CODE_POINTS = 0x110000
CAPITAL_SIGMA = 0x3A3
_lock = threading.RLock()
_cache = {}


def _as_str(code_points):
    return np.asarray(code_points, dtype="<u4").tobytes().decode(
        "utf-32-le", "surrogatepass")


def _as_code_points(text):
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def _lowercase():
    """Each code point's str.lower() when it is one character; the others apart."""
    all_chars = _as_str(np.arange(N_CODE_POINTS, dtype=np.uint32))
    lower = np.arange(N_CODE_POINTS, dtype=np.uint32)
    several = {}

    def walk(lo, hi):
        lowered = all_chars[lo:hi].lower()
        if len(lowered) == hi - lo:
            lower[lo:hi] = _as_code_points(lowered)
        elif hi - lo == 1:
            several[lo] = lowered
        else:
            mid = (lo + hi) // 2
            walk(lo, mid)
            walk(mid, hi)

    walk(0, N_CODE_POINTS)
    return lower, several


def _build_info():
    lower, several = _lowercase()
    classes = _text_kernels.char_classes()
    flags = classes.astype(np.uint32) | np.where(
        classes[lower] & _text_kernels.FLAG_WORD, _text_kernels.FLAG_LOWER_WORD, 0
    ).astype(np.uint32)
    special = np.zeros(N_CODE_POINTS, dtype=bool)
    special[CAPITAL_SIGMA] = True
    records = []
    for code_point, lowered in sorted(several.items()):
        if len(lowered) > 3:  # pragma: no cover - no such character in Unicode 15
            raise RuntimeError(f"str.lower() of U+{code_point:04X} is {len(lowered)} "
                               "characters; fastnb handles at most 3")
        special[code_point] = True
        chars = [ord(c) for c in lowered] + [0] * (3 - len(lowered))
        records.append([code_point, len(lowered), *chars])
    info = (lower << 8) | flags | np.where(special, _text_kernels.FLAG_SPECIAL, 0)
    expand = np.asarray(records, dtype=np.uint32).reshape(-1)
    return info.astype(np.uint32), expand


def info_table():
    """``(info, expand)``: the per-code-point table and the multi-character
    lowercase records (``[code point, count, c1, c2, c3]`` each), built once."""
    with _lock:
        if "info" not in _cache:
            _cache["info"] = _build_info()
        return _cache["info"]


def _build_sigma():
    # Case_Ignorable(x) and Cased(x) from where str.lower() puts a final sigma:
    # "AxΣ" ends in ς iff x is ignorable or cased; "\0xΣ" iff x is cased and not
    # ignorable; "AΣx" has ς iff x is ignorable or not cased. Characters whose
    # lowercase is several characters would shift the positions: they are tested
    # one by one.
    sigma = np.zeros(N_CODE_POINTS, dtype=np.uint8)
    final = ord("ς")
    _, expand = info_table()
    multi = set(expand.reshape(-1, 5)[:, 0].tolist())
    chunk = 1 << 16
    for start in range(0, N_CODE_POINTS, chunk):
        xs = np.arange(start, min(start + chunk, N_CODE_POINTS), dtype=np.uint32)
        xs = xs[~np.isin(xs, list(multi))]
        blocks = np.zeros((3, len(xs), 4), dtype=np.uint32)
        blocks[0, :, 0] = ord("A")
        blocks[0, :, 1] = xs
        blocks[0, :, 2] = CAPITAL_SIGMA
        blocks[1, :, 1] = xs
        blocks[1, :, 2] = CAPITAL_SIGMA
        blocks[2, :, 0] = ord("A")
        blocks[2, :, 1] = CAPITAL_SIGMA
        blocks[2, :, 2] = xs
        out = _as_code_points(_as_str(blocks.reshape(-1)).lower()).reshape(3, -1, 4)
        t1 = out[0, :, 2] == final
        t2 = out[1, :, 2] == final
        t3 = out[2, :, 1] == final
        ignorable = t1 & t3
        sigma[xs] = np.where(ignorable, _text_kernels.SIGMA_IGNORABLE, 0) | np.where(
            t2, _text_kernels.SIGMA_CASED, 0)
    for x in multi:
        t1 = ("A" + chr(x) + "Σ").lower()[-1] == "ς"
        t2 = ("\0" + chr(x) + "Σ").lower()[-1] == "ς"
        t3 = ("AΣ" + chr(x)).lower()[1] == "ς"
        sigma[x] = (_text_kernels.SIGMA_IGNORABLE if t1 and t3 else 0) | (
            _text_kernels.SIGMA_CASED if t2 else 0)
    return sigma


def sigma_table():
    """uint8 per code point: SIGMA_IGNORABLE, SIGMA_CASED (built once)."""
    with _lock:
        if "sigma" not in _cache:
            _cache["sigma"] = _build_sigma()
        return _cache["sigma"]


def built_sigma_table():
    """The sigma table if this process has built it, else None."""
    return _cache.get("sigma")


def combining_table():
    """uint8 per code point: 1 where ``unicodedata.combining(c) != 0`` (built once)."""
    with _lock:
        if "combining" not in _cache:
            combining = unicodedata.combining
            _cache["combining"] = np.fromiter(
                (combining(chr(c)) != 0 for c in range(N_CODE_POINTS)),
                dtype=np.uint8, count=N_CODE_POINTS)
        return _cache["combining"]
