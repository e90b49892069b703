"""ColumnwiseNB's prediction, block by block (see the package notes)."""

import copy

import numpy as np

from .._base import MODE_ARGMAX, MODE_JLL
from .._categorical import CategoricalNB
from .._dispatch import load_kernels
from .._threads import threads_for
from ._table import _Table

_kernels = load_kernels("_columnwise_kernels")

# Rows per predict block: each predicting thread's scratch is two (rows, k)
# float64 buffers plus each sub-model's input for the block, fixed whatever n is;
# 65,536 rows keep the per-block Python and pandas overhead to a few percent.
_PREDICT_BLOCK_ROWS = 1 << 16


class _Prediction:
    """ColumnwiseNB's predict machinery (a mixin of the estimator class)."""

    def _check_predict_X(self, X):
        self._check_fitted()
        name = type(self).__name__
        table = _Table(X, name)
        if hasattr(self, "feature_names_in_") or not isinstance(X, np.ndarray):
            self._check_feature_names(X, reset=False)
        if table.n_columns != self.n_features_in_:
            self._check_n_features(table, reset=False)
        return table

    def _run_predict_kernel(self, table, mode, labels_out, out):
        """Block by block: every sub-model's jll into a scratch buffer, added up
        without its prior, then the arg-max or the normalisation in place.

        Blocks are independent, so with several threads they are shared out to
        Python threads (every kernel releases the GIL), each with its own
        scratch, and the sub-models' kernels run on one thread each; a lone
        block runs here, with the sub-models' kernels on ``n_threads``. Either
        way every row is summed in the same order: the same bits.
        """
        n, k = table.n_samples, self.classes_.shape[0]
        rows = min(n, _PREDICT_BLOCK_ROWS)
        starts = list(range(0, n, rows))
        n_workers = 1
        if len(starts) > 1:
            n_workers = min(len(starts), threads_for(
                self.n_threads, n * k * len(self.estimators_), "predict"))
        # Shallow copies: the kernels' thread count is set without touching the
        # fitted sub-models (which other threads may be using).
        runners = []
        for (sub_name, model, _), positions in zip(self.estimators_, self._positions):
            runner = copy.copy(model)
            runner.n_threads = self.n_threads if n_workers == 1 else 1
            runners.append((sub_name, runner, positions, isinstance(model, CategoricalNB)))

        def run_blocks(worker):
            jll = np.empty((rows, k), dtype=np.float64)
            total = np.empty((rows, k), dtype=np.float64) if out is None else None
            for start in starts[worker::n_workers]:
                stop = min(n, start + rows)
                self._predict_block(table, runners, start, stop, mode,
                                    labels_out, out, jll, total, n_workers)

        if n_workers == 1:
            run_blocks(0)
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(n_workers) as pool:
            for done in [pool.submit(run_blocks, w) for w in range(n_workers)]:
                done.result()

    def _predict_block(self, table, runners, start, stop, mode, labels_out, out, jll,
                       total, n_workers):
        """Rows start:stop: the sum of the sub-models' jll, finished per ``mode``
        (the first sub-model writes into the total; see the kernel's notes)."""
        block_total = total[:stop - start] if out is None else out[start:stop]
        block_jll = jll[:stop - start]
        n_threads = 1 if n_workers > 1 else threads_for(
            self.n_threads, (stop - start) * block_jll.shape[1], "predict")
        last = len(runners) - 1
        for i, (sub_name, runner, positions, categorical) in enumerate(runners):
            try:
                part = runner._check_predict_X(table.block(positions, start, stop,
                                                           categorical))
                runner._run_predict_kernel(part, MODE_JLL, None,
                                           block_total if i == 0 else block_jll)
            except (TypeError, ValueError) as error:
                raise self._sub_model_error(error, sub_name, table, positions) from error
            if i == 0 and last > 0:
                continue
            _kernels.add_block(block_total, None if i == 0 else block_jll,
                               self._bias if i == 1 or last == 0 else self._zeros,
                               i == last, mode,
                               labels_out[start:stop] if mode == MODE_ARGMAX else None,
                               n_threads)
