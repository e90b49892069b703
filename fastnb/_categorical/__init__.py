"""CategoricalNB: scikit-learn's categorical Naive Bayes on hashed category counts.

Vocabulary (one meaning per word, here and in the kernels):

- a *value* is what X holds in one cell: any hashable (None, NaN, pd.NA and NaT
  are missing values);
- its *key* is the stable (tag, 64-bit key) pair it reduces to
  (src_cython/_categorical_keys.pyx);
- a *category* of feature j is a value it was fitted with (positive weight), and
  its *category index* is its position in ``categories_[j]``: the column of
  ``category_count_[j]`` and ``feature_log_prob_[j]``;
- a *class index* is a label's position in ``classes_`` (y, encoded);
- an *integer-code feature* ("code" feature) is one whose values are all integers
  in [0, 65536): a *code* is such a value, and is its own category index
  (scikit-learn's layout); a *value feature* is any other feature, whose
  categories are its sorted distinct values, found through a frozen hash table of
  their keys; a *bucket feature* (``hash_buckets``) has the key's bucket as its
  category index;
- a *table row* is the row of a feature's log-probability block that a value
  reads at predict time: its category index, n_categories (unseen) or -1
  (missing, left out);
- a *pandas position* is the index of a value among a pandas Categorical's
  categories (what pandas calls its codes);
- a *batch* is what one fit or partial_fit call counted for a feature.

Modules: _columns (X split into blocks), _counting (a batch per feature),
_features (per-feature state and merging), _tables (counts, log probabilities and
the predict tables), _file_format (save and load, and pickles of fastnb 0.1),
_estimator (the CategoricalNB class), _kernels (the compiled modules).
"""

from ._estimator import CategoricalNB

# Pickles name the class by this module (as fastnb 0.1's did), not by the module
# it is written in: a stable path however the package is laid out inside.
CategoricalNB.__module__ = __name__

__all__ = ["CategoricalNB"]
