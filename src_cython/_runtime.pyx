"""Runtime facts of the compiled kernels: OpenMP probes and the predict modes.

Design: this is the only module that calls the OpenMP API directly. Every call
goes through the small C shim below, which compiles to serial stubs when the
compiler did not define ``_OPENMP``; no ``omp_*`` symbol is then referenced.
"""

from _common cimport MODE_ARGMAX, MODE_JLL, MODE_LOG_PROBA, MODE_PROBA

# The PredictMode values, exported so that the Python layer never restates them.
PREDICT_MODES = {
    "argmax": MODE_ARGMAX,
    "jll": MODE_JLL,
    "log_proba": MODE_LOG_PROBA,
    "proba": MODE_PROBA,
}

cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    static int fastnb_openmp_enabled(void) { return 1; }
    static int fastnb_omp_max_threads(void) { return omp_get_max_threads(); }
    #else
    static int fastnb_openmp_enabled(void) { return 0; }
    static int fastnb_omp_max_threads(void) { return 1; }
    #endif
    """
    int fastnb_openmp_enabled() noexcept nogil
    int fastnb_omp_max_threads() noexcept nogil


cdef extern from *:
    """
    #if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(_M_X64))
    static int fastnb_cpu_has_avx2_fma(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    #elif defined(_MSC_VER) && defined(_M_X64)
    #include <windows.h>
    static int fastnb_cpu_has_avx2_fma(void) {
        /* PF_AVX2_INSTRUCTIONS_AVAILABLE (Windows 10+); every AVX2 CPU has FMA3. */
        return IsProcessorFeaturePresent(40) != 0;
    }
    #else
    static int fastnb_cpu_has_avx2_fma(void) { return 0; }
    #endif
    """
    int fastnb_cpu_has_avx2_fma() noexcept nogil


def openmp_enabled():
    """Whether this build of fastnb was compiled with OpenMP."""
    return bool(fastnb_openmp_enabled())


def cpu_has_avx2_fma():
    """Whether this CPU (and OS) can run the AVX2+FMA builds of the kernels."""
    return bool(fastnb_cpu_has_avx2_fma())


def omp_max_threads():
    """The OpenMP runtime's current thread limit (OMP_NUM_THREADS, threadpoolctl)."""
    return fastnb_omp_max_threads()
