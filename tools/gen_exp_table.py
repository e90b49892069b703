"""The table of src_cython/_exp_simd.h (fastnb's vectorised exp).

``python tools/gen_exp_table.py`` prints the reduction's constants and the 128
table rows as they appear in the header (tests/test_exp.py checks that they do).

exp x = 2**(k / 128) exp r, k = round(x 128 / ln 2), r = x - k ln 2 / 128.
Row j holds 2**(j / 128) rounded to a double H and the rest relative to it,
(2**(j / 128) - H) / H, so that 2**(j / 128) = H (1 + tail) to ~2**-106.
ln 2 / 128 is split as a 35-bit head (k * head is exact for |k| < 2**18, and
|k| <= 137760 for x in [-746, 709.79]) and the rest. Everything is computed
with the decimal module at 60 digits, then rounded once.
"""

import math
from decimal import Decimal, getcontext

getcontext().prec = 60
N = 128


def round_to_bits(value, bits):
    """``value`` (a Decimal > 0) rounded to ``bits`` significant bits."""
    exponent = math.frexp(float(value))[1]
    scale = Decimal(2) ** (bits - exponent)
    return float((value * scale).to_integral_value() / scale)


def table_lines():
    ln2 = Decimal(2).ln()
    ln2_n = ln2 / N
    ln2_n_hi = round_to_bits(ln2_n, 35)
    lines = [f"#define FASTNB_EXP_N_LN2 {float(N / ln2).hex()}",
             f"#define FASTNB_EXP_LN2_N_HI {ln2_n_hi.hex()}",
             f"#define FASTNB_EXP_LN2_N_LO {float(ln2_n - Decimal(ln2_n_hi)).hex()}"]
    for j in range(N):
        power = (Decimal(j) / N * ln2).exp()
        head = float(power)
        tail = float((power - Decimal(head)) / Decimal(head))
        lines.append("    {%s, %s}," % (head.hex(), tail.hex()))
    return lines


if __name__ == "__main__":
    print("\n".join(table_lines()))
