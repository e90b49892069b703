"""ColumnwiseNB's prediction, block by block (see the package notes)."""

import copy

import numpy as np

from .._base import MODE_ARGMAX, MODE_JLL
from .._dispatch import load_kernels
from .._jll_terms import CompositeTerms
from .._threads import threads_for
from ._columns import combined_bias
from ._table import _Table, _arrow_string_codes

_kernels = load_kernels("_columnwise_kernels")

# Rows per predict block: each predicting thread's scratch is two (rows, k)
# float64 buffers plus each sub-model's input for the block, fixed whatever n is;
# 65,536 rows keep the per-block Python and pandas overhead to a few percent.
_PREDICT_BLOCK_ROWS = 1 << 16


class _Prediction:
    """ColumnwiseNB's predict machinery (a mixin of the estimator class)."""

    def _jll_terms(self):
        """The model's ``CompositeTerms`` (fastnb/_jll_terms.py): its combined
        bias and each sub-model's terms over its columns."""
        self._check_fitted()
        return CompositeTerms(bias=self._bias, parts=tuple(
            (tuple(int(j) for j in positions), sub_model._jll_terms())
            for (_, sub_model, _), positions in zip(self.estimators_, self._positions)))

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

        A CategoricalNB whose columns are all Arrow strings, or a BernoulliNB
        whose columns are all NumPy bools, is *tabled*: in each block its
        columns' values are coded (strings factorised by ``string_codes``, bools
        as 0 and 1), the sub-model predicts each distinct value alone (the other
        columns missing), and ``add_table_rows`` adds each row's terms from that
        small table; see _value_terms. Which sub-models are tabled depends only
        on the columns' dtypes, so every block (and any block size) sums alike.
        """
        n, k = table.n_samples, self.classes_.shape[0]
        rows = min(n, _PREDICT_BLOCK_ROWS)
        starts = list(range(0, n, rows))
        n_workers = 1
        if len(starts) > 1:
            n_workers = min(len(starts), threads_for(
                self.n_threads, n * k * len(self.estimators_), "predict"))
        # Shallow copies: the kernels' thread count is set without touching the
        # fitted sub-models (which other threads may be using). Kernel-run
        # sub-models first (the first writes the block's total), tabled ones last.
        runners, tabled = [], []
        for (sub_name, model, _), positions in zip(self.estimators_, self._positions):
            runner = copy.copy(model)
            runner.n_threads = self.n_threads if n_workers == 1 else 1
            categorical = model._capabilities.reads == "categories"
            coded = _coded_columns(table, model, positions)
            if coded is not None:
                tabled.append((sub_name, runner, positions, categorical, coded))
            else:
                runners.append((sub_name, runner, positions, categorical, None))
        runners += tabled
        bias = self._bias if not tabled else combined_bias(
            self.class_log_prior_, [runner for _, runner, _, _, _ in runners],
            [coded is not None for _, _, _, _, coded in runners])
        n_coded = max([len(entry[4]) for entry in tabled], default=0)

        def run_blocks(worker):
            scratch = (np.empty((rows, k), dtype=np.float64),
                       np.empty((rows, k), dtype=np.float64) if out is None else None,
                       np.empty((n_coded, rows), dtype=np.int32), {})
            for start in starts[worker::n_workers]:
                stop = min(n, start + rows)
                self._predict_block(table, runners, bias, start, stop, mode,
                                    labels_out, out, scratch, n_workers)

        if n_workers == 1:
            run_blocks(0)
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(n_workers) as pool:
            for done in [pool.submit(run_blocks, w) for w in range(n_workers)]:
                done.result()

    def _predict_block(self, table, runners, bias, start, stop, mode, labels_out, out,
                       scratch, n_workers):
        """Rows start:stop: the sum of the sub-models' jll, finished per ``mode``
        (the first sub-model writes into the total, the bias comes with the first
        addition; see the kernel's notes)."""
        jll, total, codes, blocks = scratch
        block_total = total[:stop - start] if out is None else out[start:stop]
        block_jll = jll[:stop - start]
        labels = labels_out[start:stop] if mode == MODE_ARGMAX else None
        n_threads = 1 if n_workers > 1 else threads_for(
            self.n_threads, (stop - start) * block_jll.shape[1], "predict")
        last = len(runners) - 1
        for i, (sub_name, runner, positions, categorical, strings) in enumerate(runners):
            try:
                if strings is not None:
                    terms, first_row = self._value_terms(runner, strings, start, stop,
                                                         codes)
                    _kernels.add_table_rows(block_total, terms, codes[:len(strings)],
                                            first_row, i == 0, bias, i == last, mode,
                                            labels, n_threads)
                    bias = self._zeros
                    continue
                part = runner._check_predict_X(table.block(
                    positions, start, stop, categorical, blocks, n_threads))
                runner._run_predict_kernel(part, MODE_JLL, None,
                                           block_total if i == 0 else block_jll)
            except (TypeError, ValueError) as error:
                raise self._sub_model_error(error, sub_name, table, positions) from error
            if i == 0 and last > 0:
                continue
            _kernels.add_block(block_total, None if i == 0 else block_jll, bias,
                               i == last, mode, labels, n_threads)
            bias = self._zeros

    def _value_terms(self, runner, columns, start, stop, codes):
        """A tabled sub-model's terms for rows start:stop: each column's values
        coded into ``codes[j]``, and the (m, k) table whose row 0 is zeros (a
        missing value) and whose rows ``first_row[j] + code`` hold
        ``jll(the value alone) - jll(nothing)``: the value's log-likelihood
        term, exactly as the sub-model computes it (unseen values included).
        Naive Bayes sums such terms over columns, so adding the rows' terms gives
        the sub-model's jll without its prior."""
        rows = stop - start
        values = []
        for j, (kind, column) in enumerate(columns):
            if kind == "strings":
                values.append(_arrow_string_codes(column, start, stop, codes[j, :rows]))
            else:  # bools: False is code 0, True code 1
                codes[j, :rows] = column[start:stop]
                values.append(_BOOL_VALUES)
        sizes = [v.shape[0] for v in values]
        first_row = np.cumsum([1] + sizes[:-1]).astype(np.intp)
        # Every value alone in its row, the other columns missing (NaN for
        # BernoulliNB's numbers, None for CategoricalNB's objects).
        alone = np.full((1 + sum(sizes), len(columns)), np.nan) if (
            runner._capabilities.terms == "bernoulli") else np.full((1 + sum(sizes), len(columns)), None,
                                              dtype=object)
        for j, v in enumerate(values):
            alone[first_row[j]:first_row[j] + sizes[j], j] = v
        terms = np.empty((alone.shape[0], self.classes_.shape[0]), dtype=np.float64)
        runner._run_predict_kernel(runner._check_predict_X(alone), MODE_JLL, None,
                                   terms)
        nothing = terms[0].copy()
        with np.errstate(invalid="ignore"):
            terms -= nothing
        # A class the sub-model has no data of: the bias already holds its -inf.
        terms[:, ~np.isfinite(nothing)] = 0.0
        return terms, first_row


_BOOL_VALUES = np.array([0.0, 1.0])


def _coded_columns(table, model, positions):
    """[(kind, column)] for a sub-model predicted from a table of its values'
    terms: a CategoricalNB of Arrow string columns ("strings", each a pyarrow
    ChunkedArray) or a BernoulliNB of NumPy bool columns ("bools", each a 1d bool
    array); None for any other sub-model, which runs its own kernel."""
    if table.columns is None:
        return None
    terms = model._capabilities.terms
    if terms == "categorical":
        strings = [table.arrow_strings(j) for j in positions]
        if all(column is not None for column in strings):
            return [("strings", column) for column in strings]
    elif terms == "bernoulli":
        parts = [table.columns[j] for j in positions]
        if all(isinstance(p, np.ndarray) and p.dtype == np.bool_ for p in parts):
            return [("bools", p) for p in parts]
    return None
