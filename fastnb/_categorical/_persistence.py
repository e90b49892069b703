"""CategoricalNB's fitted state as data: pickling (the count table's views left
out and rebuilt), restoring from the arrays of a saved file (see _file_format)
and merging two fitted models. A mixin of ``CategoricalNB`` (_estimator.py),
whose ``_commit`` every path ends with."""

import numpy as np

from .. import _invariants as rules
from .._persist import union_classes
from ._counting import BucketBatch, CodeBatch, ValueBatch
from ._features import _at, applied, merge_feature
from ._file_format import (
    check_state_invariants,
    features_from_state,
    state_arrays,
    state_of_fastnb_0_1,
)

# The attributes that are views of the count table: pickles leave them out and
# rebuild them, so that they stay views.
_VIEW_ATTRIBUTES = ("category_count_", "feature_log_prob_")


class _PersistenceMixin:
    """Pickling, restore and merge of ``CategoricalNB`` (not public)."""

    # -- persistence and merging -------------------------------------------------------
    def __getstate__(self):
        state = super().__getstate__()
        for name in _VIEW_ATTRIBUTES:
            state.pop(name, None)
        return state

    def __setstate__(self, state):
        if "_lp" in state:  # a pickle of fastnb 0.1
            state = state_of_fastnb_0_1(state)
        super().__setstate__(state)
        if hasattr(self, "_count_table"):
            self._set_views()

    def _sufficient_state(self):
        """The model as plain arrays (see fastnb/_categorical/_file_format.py)."""
        kinds = [self._predict_tables.kind(j) for j in range(self.n_features_in_)]
        return state_arrays(kinds, self.categories_, self.category_count_,
                            self.class_count_)

    @classmethod
    def _check_state_invariants(cls, classes, arrays, n_features):
        """Raise a ValueError naming the member and the rule where the saved state
        breaks what the kernels rely on (``_file_format.check_state_invariants``:
        category counts and their offsets, in exact arithmetic)."""
        check_state_invariants(arrays, n_features)

    def _restore(self, classes, arrays, n_features, feature_names):
        """Rebuild the fitted model from ``_sufficient_state`` arrays, validated
        (``features_from_state`` applies ``_check_state_invariants`` first)."""
        self._validate_params()
        class_count, features = features_from_state(
            arrays, n_features, hash_buckets=self.hash_buckets,
            min_categories=self._min_categories(n_features))
        self._commit(None, classes, class_count, features, self._alpha(),
                     self._class_prior(classes.shape[0]), reset=True)
        self._finish_restore(n_features, feature_names)
        self._check_derived_state()

    def _check_derived_state(self):
        """After a restore: the log probabilities the predict kernel reads are
        finite (a class's log prior may be -inf: a class never seen)."""
        rules.derived_finite("class_count_", self.class_log_prior_, allow=("-inf",))
        rules.derived_finite("category_count", self._predict_tables.log_prob)

    def _merged_with(self, other):
        """The model fitted on both models' data: categories unioned, counts added."""
        classes, where_a, where_b = union_classes(self.classes_, other.classes_)
        k = classes.shape[0]
        n_features = self.n_features_in_
        names = getattr(self, "feature_names_in_", None)
        min_categories = self._min_categories(n_features)

        def realigned(counts, where):
            out = np.zeros((k, counts.shape[1]))
            out[where] = counts
            return out

        features = []
        for j in range(n_features):
            ours, theirs = self._feature(j), other._feature(j)
            ours.counts = realigned(ours.counts, where_a)
            counts = realigned(theirs.counts, where_b)
            if theirs.kind == "bucket":
                batch = BucketBatch(counts)
            elif theirs.kind == "code":
                batch = CodeBatch(counts)
            else:
                values = np.empty(theirs.categories.size, dtype=object)
                values[:] = theirs.categories.tolist()
                batch = ValueBatch(theirs.tags, theirs.keys, values, counts,
                                   values_only=True)
            update = merge_feature(ours, batch, k, _at(min_categories, j), j, names)
            features.append(applied(ours, update))
        class_count = np.zeros(k)
        class_count[where_a] += self.class_count_
        class_count[where_b] += other.class_count_
        merged = type(self)(**self.get_params())
        merged._commit(None, classes, class_count, features, merged._alpha(),
                       merged._class_prior(k), reset=True)
        merged._finish_restore(n_features, names)
        return merged
