# The sparse count table's feature slots (see _sparse_predict.pyx, "large
# batches"): what a non-zero of feature j needs in one 64-byte line. Written by
# _sparse_predict.fill_slots / patch_slots; read by its slot predictor and by
# _inspection_kernels (top contributions over a large batch).

from libc.stdint cimport int32_t

cdef enum:
    SLOT_ENTRIES = 4

ctypedef struct FeatureSlot:
    int32_t n                        # entries inline, or -(row + 1): a dense row
    int32_t entry_class[SLOT_ENTRIES]
    int32_t unused
    double base                      # the feature's base term
    double entry_weight[SLOT_ENTRIES]
