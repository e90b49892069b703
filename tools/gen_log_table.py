"""The table of src_cython/_log_simd.h (fastnb's vectorised natural log).

``python tools/gen_log_table.py`` prints the two ln 2 constants and the 256 table
rows as they appear in the header (tests/test_log.py checks that they do).

x = 2**k * z, and z falls in one of 256 subintervals whose centres c are the
doubles 0x3fe6000000000000 + i * 2**44 (9 significant bits; c = 1 for i = 160).
Each row holds 1/c as a 9-bit head plus the rest (d * head is exact for
d = z - c, which has at most 44 significant bits) and log c as a double-double.
ln 2 is split as a 42-bit head (k * head is exact for |k| < 2048) and the rest.
Everything is computed with the decimal module at 60 digits, then rounded once.
"""

import math
import struct
from decimal import Decimal, getcontext

getcontext().prec = 60


def as_double(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def round_to_bits(value, bits):
    """``value`` (a Decimal > 0) rounded to ``bits`` significant bits."""
    exponent = math.frexp(float(value))[1]
    scale = Decimal(2) ** (bits - exponent)
    return float((value * scale).to_integral_value() / scale)


def table_lines():
    ln2 = Decimal(2).ln()
    ln2_hi = round_to_bits(ln2, 42)
    lines = [f"#define FASTNB_LN2_HI {ln2_hi.hex()}",
             f"#define FASTNB_LN2_LO {float(ln2 - Decimal(ln2_hi)).hex()}"]
    for i in range(256):
        c = Decimal(as_double(0x3FE6000000000000 + (i << 44)))
        inverse = 1 / c
        head = round_to_bits(inverse, 9)
        log_c = c.ln()
        log_hi = float(log_c)
        row = (head, float(inverse - Decimal(head)), log_hi,
               float(log_c - Decimal(log_hi)))
        lines.append("    {%s}," % ", ".join(v.hex() for v in row))
    return lines


if __name__ == "__main__":
    print("\n".join(table_lines()))
