"""ColumnwiseNB's file format (``save``/``fastnb.load``) and ``fastnb.merge``."""

import json
import math

import numpy as np

from .. import _invariants as rules
from .._forgetting import check_half_life_param
from .._params import check_n_threads, check_prior_param
from .._persist import (_json_param, _param_from_json, check_state, merge,
                        parse_json_bytes, union_classes, with_later_params)
from ._columns import sub_model_classes


class _FileFormat:
    """ColumnwiseNB's persistence and merging (a mixin of the estimator class)."""

    def _params_for_file(self):
        """The parameters as the file header keeps them: the sub-models are in the
        ``layout`` member (``estimators`` None there), unless "auto"."""
        params = self.get_params(deep=False)
        if not isinstance(self.estimators, str):
            params["estimators"] = None
        return params

    def _validate_file_params(self):
        """A file keeps ``estimators`` as "auto", or as None with the sub-models in
        its ``layout`` member: anything else in the header is refused."""
        if self.estimators is None:
            self.estimators = "auto"
            try:
                self._validate_params()
            finally:
                self.estimators = None
            return
        if not (isinstance(self.estimators, str) and self.estimators == "auto"):
            if not isinstance(self.estimators, list):
                raise ValueError("estimators must be 'auto' or null in a file, not "
                                 f"{self.estimators!r}")
        self._validate_params()

    def _sufficient_state(self):
        pools = {"float": [], "int": [], "byte": []}
        sizes = dict.fromkeys(pools, 0)
        entries = []
        for (name, model, _), positions in zip(self.estimators_, self._positions):
            where = {}
            for key, value in model._sufficient_state().items():
                value = np.asarray(value)
                pool = {"f": "float", "i": "int", "u": "byte"}[value.dtype.kind]
                where[key] = [pool, sizes[pool], list(value.shape)]
                pools[pool].append(value.ravel())
                sizes[pool] += value.size
            params = {key: _json_param(key, value)
                      for key, value in model.get_params(deep=False).items()}
            entries.append({"name": name, "estimator": type(model).__name__,
                            "params": params, "columns": positions.tolist(),
                            "arrays": where})
        layout = {"estimators": entries}
        selection = getattr(self, "selection_", None)
        if selection is not None:
            # numeric="select": the choice is the sub-models above; its scores
            # per column (by position) for summary()
            layout["selection"] = [[j, family, score, gaussian] for j, (
                _, family, score, gaussian) in zip(self._selected_positions(),
                                                   selection)]
        layout = json.dumps(layout).encode("utf-8")

        def pooled(kind, dtype):
            parts = pools[kind]
            return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

        return {
            "class_count_": np.asarray(self.class_count_, dtype=np.float64),
            "layout": np.frombuffer(layout, dtype=np.uint8).copy(),
            "float_pool": pooled("float", np.float64),
            "int_pool": pooled("int", np.int64),
            "byte_pool": pooled("byte", np.uint8),
        }

    def _restore(self, classes, arrays, n_features, feature_names):
        """Rebuild the sub-models from the layout and pools, each validated."""
        check_n_threads(self.n_threads, type(self).__name__)
        check_half_life_param(self.half_life, type(self).__name__)
        check_prior_param(self.priors, "priors", type(self).__name__)
        layout = parse_json_bytes(arrays["layout"].tobytes(), "member 'layout'")
        entries = layout.get("estimators") if isinstance(layout, dict) else None
        if not isinstance(entries, list) or not entries:
            raise ValueError("the layout lists no sub-estimators")
        pools = {"float": arrays["float_pool"], "int": arrays["int_pool"],
                 "byte": arrays["byte_pool"]}
        plan, taken, listed = [], set(), []
        for entry in entries:
            model, positions = self._restore_sub_model(entry, pools, classes,
                                                       n_features)
            if taken & set(positions.tolist()) or entry["name"] in {p[0] for p in plan}:
                raise ValueError("two sub-estimators share a column or a name")
            taken |= set(positions.tolist())
            if not np.allclose(model.class_count_, arrays["class_count_"],
                               rtol=1e-9, atol=0):
                raise ValueError(f"sub-estimator {entry['name']!r} has other class "
                                 "counts than the model")
            plan.append((entry["name"], model, positions))
            listed.append((entry["name"], type(model)(**model.get_params(deep=False)),
                           positions.tolist()))
        # (taken holds distinct positions in [0, n_features): counting them
        # suffices, where a set of range(n_features) cost memory in the declared
        # n_features_in, not in the file: 2 GiB for a crafted header)
        if self.remainder == "error" and len(taken) != n_features:
            raise ValueError(f"the sub-estimators do not model all {n_features} "
                             "columns, and remainder is 'error'")
        if not isinstance(self.estimators, str):
            self.estimators = listed
        self._commit(plan, classes, np.array(arrays["class_count_"]), n_features,
                     feature_names, self._restored_selection(layout, plan,
                                                             feature_names))

    def _selected_positions(self):
        """The positions of the columns of ``selection_``, in its order: those
        of the sub-models of its families, ascending (as the selection visits
        them)."""
        families = {family for _, family, _, _ in self.selection_}
        return sorted(j for (name, _, _), positions in zip(self.estimators_,
                                                            self._positions)
                      if name in families for j in positions.tolist())

    def _restored_selection(self, layout, plan, feature_names):
        """The ``selection_`` rows a file keeps, checked against its sub-models:
        each column's family is the name of the sub-model that models it."""
        rows = layout.get("selection")
        if rows is None:
            return None
        if self.numeric != "select" or not isinstance(rows, list):
            raise ValueError("the layout's selection belongs to numeric='select'")
        owner = {j: name for name, _, positions in plan for j in positions.tolist()}
        out = []
        for row in rows:
            ok = (isinstance(row, list) and len(row) == 4 and isinstance(row[0], int)
                  and not isinstance(row[0], bool) and owner.get(row[0]) == row[1]
                  and all(v is None or (isinstance(v, float) and math.isfinite(v))
                          for v in row[2:]))
            if not ok:
                raise ValueError(f"the layout's selection row {row!r} does not match "
                                 "the sub-estimators")
            column = row[0] if feature_names is None else str(feature_names[row[0]])
            out.append((column, row[1], row[2], row[3]))
        return out

    def _restore_sub_model(self, entry, pools, classes, n_features):
        if not isinstance(entry, dict) or set(entry) != {
                "name", "estimator", "params", "columns", "arrays"}:
            raise ValueError("a sub-estimator entry of the layout is malformed")
        cls = sub_model_classes().get(entry["estimator"])
        if cls is None or not isinstance(entry["name"], str):
            raise ValueError(f"unknown sub-estimator {entry['estimator']!r}")
        params = with_later_params(entry["params"], cls)
        if not isinstance(params, dict) or set(params) != set(cls._get_param_names()):
            raise ValueError(f"the parameters of {entry['name']!r} do not match "
                             f"{cls.__name__}'s")
        model = cls(**{key: _param_from_json(key, value)
                       for key, value in params.items()})
        model.n_threads = self.n_threads
        if model.half_life != self.half_life:
            raise ValueError(f"the half_life of {entry['name']!r} is not the model's")
        self._check_sub_estimator(entry["name"], model)
        columns = entry["columns"]
        if (not isinstance(columns, list) or not columns or not all(
                isinstance(j, int) and not isinstance(j, bool) and 0 <= j < n_features
                for j in columns) or len(set(columns)) != len(columns)):
            raise ValueError(f"the columns of {entry['name']!r} are not distinct "
                             "positions of X")
        sub_arrays = _sub_model_arrays(entry, cls, pools, classes, len(columns))
        # (its _restore applies its _check_state_invariants to its arrays)
        model._restore(classes, sub_arrays, len(columns), None)
        return model, np.array(columns, dtype=np.intp)

    @classmethod
    def _check_state_invariants(cls, classes, arrays, n_features):
        """Raise a ValueError naming the member and the rule where the saved state
        breaks what the kernels rely on: class_count_ sums to a positive finite
        total, and each sub-model's arrays, as its layout entry places them in
        the pools, meet that sub-model's own ``_check_state_invariants``."""
        rules.positive_total("class_count_", arrays["class_count_"])
        layout = parse_json_bytes(arrays["layout"].tobytes(), "member 'layout'")
        entries = layout.get("estimators") if isinstance(layout, dict) else None
        rules.check(isinstance(entries, list) and entries, "layout",
                    "must list the sub-estimators")
        pools = {"float": arrays["float_pool"], "int": arrays["int_pool"],
                 "byte": arrays["byte_pool"]}
        for entry in entries:
            sub_cls = sub_model_classes().get(entry.get("estimator")) if isinstance(
                entry, dict) else None
            columns = entry.get("columns") if sub_cls is not None else None
            rules.check(isinstance(columns, list) and columns, "layout",
                        "a sub-estimator entry is malformed")
            sub_arrays = _sub_model_arrays(entry, sub_cls, pools, classes, len(columns))
            sub_cls._check_state_invariants(classes, sub_arrays, len(columns))

    def _merged_with(self, other):
        """Sub-model by sub-model: equal to the fit on both models' data."""
        selections = [getattr(model, "selection_", None) for model in (self, other)]
        if selections[0] is not None or selections[1] is not None:
            choices = [None if s is None else [(c, f) for c, f, _, _ in s]
                       for s in selections]
            if choices[0] != choices[1]:
                differ = [(a, b) for a, b in zip(*choices) if a != b] if all(
                    choices) else choices
                raise ValueError(
                    "Cannot merge ColumnwiseNB models whose numeric='select' chose "
                    f"different families: {differ} (column, family) differ. Fit the "
                    "parts with the same sub-models: pass one model's choice as "
                    "estimators to the others.")
        mine = [(n, type(m), p.tolist()) for (n, m, _), p in zip(self.estimators_,
                                                                 self._positions)]
        theirs = [(n, type(m), p.tolist()) for (n, m, _), p in zip(other.estimators_,
                                                                   other._positions)]
        if mine != theirs:
            raise ValueError(
                "Cannot merge ColumnwiseNB models with different sub-estimators or "
                f"columns: {mine} and {theirs}."
            )
        plan = [(name, merge(a, b), positions) for (name, a, _), (_, b, _), positions
                in zip(self.estimators_, other.estimators_, self._positions)]
        classes, where_a, where_b = union_classes(self.classes_, other.classes_)
        class_count = np.zeros(classes.shape[0])
        class_count[where_a] += self.class_count_
        class_count[where_b] += other.class_count_
        merged = type(self)(**self.get_params(deep=False))
        for _, model, _ in plan:
            model.n_threads = merged.n_threads
        selection = getattr(self, "selection_", None)
        merged._commit(plan, classes, class_count, self.n_features_in_,
                       getattr(self, "feature_names_in_", None),
                       None if selection is None else [
                           (column, family, None, None)
                           for column, family, _, _ in selection])
        return merged


def _sub_model_arrays(entry, cls, pools, classes, n_columns):
    """The arrays of the sub-model of a layout ``entry``, sliced from the pools
    (copies), with their dtypes and shapes checked against ``cls._STATE_SPEC``."""
    where = entry["arrays"]
    if not isinstance(where, dict) or set(where) != set(cls._STATE_SPEC):
        raise ValueError(f"the arrays of {entry['name']!r} do not match "
                         f"{cls.__name__}'s")
    sub_arrays = {}
    for key, spec in where.items():
        if not (isinstance(spec, list) and len(spec) == 3 and spec[0] in pools
                and isinstance(spec[1], int) and isinstance(spec[2], list)
                and all(isinstance(s, int) and s >= 0 for s in spec[2])):
            raise ValueError(f"array {key!r} of {entry['name']!r} is malformed")
        pool, offset, shape = pools[spec[0]], spec[1], spec[2]
        size = math.prod(shape)  # Python ints: a shape of 2**70 cannot wrap
        if offset < 0 or offset + size > pool.shape[0] or len(shape) > 8:
            raise ValueError(f"array {key!r} of {entry['name']!r} lies outside "
                             "its pool")
        sub_arrays[key] = pool[offset:offset + size].reshape(shape).copy()
    check_state(cls._STATE_SPEC, sub_arrays, n_classes=classes.shape[0],
                n_features=n_columns)
    return sub_arrays
