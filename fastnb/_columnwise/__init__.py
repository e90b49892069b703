"""ColumnwiseNB: one Naive Bayes model over a table of mixed columns.

The mathematics
---------------
Naive Bayes assumes the features independent given the class, so the joint
log-likelihood of a row splits over any partition of its columns::

    jll(x)[c] = log P(c) + sum over sub-models m of (jll_m(x_m)[c] - log P_m(c))

where ``jll_m`` is the joint log-likelihood of sub-model m on its own columns
``x_m`` and ``log P_m`` the log prior it includes. The priors (``priors``, or the
class frequencies) belong to ColumnwiseNB alone; every sub-model is fitted on the
same ``y`` and ``sample_weight`` and so shares ``classes_``.

How the data moves
------------------
X is never converted as a whole. ``_Table`` keeps the columns where they live (the
columns of a NumPy array; for a DataFrame each column as its NumPy array, a view
where pandas allows, or as its pandas extension array), and hands each sub-model
its own columns in the kind its kernel reads: numbers as numbers, bools as bools
(several DataFrame columns put side by side by ``stack_columns``, one compiled
pass), strings and objects as they are to CategoricalNB's hashed counts. A pandas
string column is factorised first, so its strings are keyed once per distinct
value instead of once per row; when Arrow stores it (pandas' ``str``), a kernel
(``string_codes``) hashes the Arrow bytes in place, without a Python object per
row.

Prediction runs in blocks of ``_PREDICT_BLOCK_ROWS`` rows: the first sub-model's
ordinary kernel writes its joint log-likelihood for the block into the block's
total, each other one into a scratch buffer that ``add_block`` adds (with every
prior term in one per-class bias), and the last addition also takes the arg-max
or normalises in place. A CategoricalNB whose columns are all Arrow strings is
*tabled* instead: its block's strings are factorised, the sub-model predicts each
distinct value alone (every other column missing, so marginalised), and
``add_table_rows`` adds each row's per-value terms from that small table, the
value's log-likelihood exactly as the sub-model computes it (see
``_Prediction._value_terms``). The extra memory of a predict call is therefore
its output plus a fixed block of scratch per thread, whatever n is.

The interface ColumnwiseNB uses of a sub-model
----------------------------------------------
Only these, which every fastnb estimator it accepts provides (keep them when
refactoring the estimators):

- ``fit(X, y, sample_weight)`` and ``partial_fit(X, y, classes, sample_weight)``
  (a later call with ``classes=None``), atomic on failure;
- ``classes_``, ``class_count_`` and the log prior its joint log-likelihood
  includes: ``class_log_prior_``, or ``log(class_prior_)`` for GaussianNB;
- ``_check_predict_X(X)``, returning what its kernel reads, with ``.shape``;
- ``_run_predict_kernel(X, MODE_JLL, None, out)``, writing the (rows, k) joint
  log-likelihood into the C-contiguous float64 ``out``;
- ``get_params(deep=False)``, ``n_threads``, ``_STATE_SPEC``,
  ``_sufficient_state()``, ``_restore(classes, arrays, n_features, None)`` and
  ``fastnb.merge`` for persistence and merging;
- ``with_params(**params)`` and ``_is_finalising(name)`` for ColumnwiseNB's
  own ``with_params`` (a sub-model's statistics-free parameters).

Modules
-------
_table (X as columns, and the blocks each sub-model reads), _columns
(the "auto" choice per column, and the columns an estimators list selects),
_estimator (the ColumnwiseNB class: parameters, plan, fitting), _select
(numeric="select": a likelihood family per numeric column), _predict (the
block-by-block prediction), _file_format (save, load and merge).
"""

from ._estimator import ColumnwiseNB
from ._predict import _PREDICT_BLOCK_ROWS  # noqa: F401 (the tests' memory bound)

# Pickles name the class by this module (as before the split), not by the module
# it is written in: a stable path however the package is laid out inside.
ColumnwiseNB.__module__ = __name__

__all__ = ["ColumnwiseNB"]
