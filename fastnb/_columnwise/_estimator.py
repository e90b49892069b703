"""The ColumnwiseNB class: parameters, the plan (which sub-model models which
columns), fitting and the fitted state. Prediction is in _predict, the file format
and merging in _file_format."""

import copy

import numpy as np

from .._base import _BaseNB
from .._categorical import CategoricalNB
from .._discrete import ComplementNB
from .._forgetting import check_half_life_param
from .._params import (check_bool_param, check_n_threads, check_prior_param, param_error,
                       resolve_priors)
from .._threads import threads_for
from .._validation import check_y, feature_names_of, plain
from ._columns import (
    _AUTO_ESTIMATORS,
    _OWN_PRIOR_PARAMS,
    _SUB_MODELS,
    _auto_kind,
    _column_positions,
    combined_bias,
)
from ._file_format import _FileFormat
from ._predict import _Prediction
from ._table import _Table

__all__ = ["ColumnwiseNB"]


class ColumnwiseNB(_Prediction, _FileFormat, _BaseNB):
    """Naive Bayes over a table of mixed columns: one model, a sub-model per kind.

    Numeric, binary, count and categorical columns each get the Naive Bayes model
    that fits them, and the sub-models' log-likelihoods add up, as Naive Bayes'
    independence assumption says they do::

        jll(x)[c] = log P(c) + sum_m (jll_m(x_m)[c] - log P_m(c))

    Each column block reaches its compiled kernel as it is (floats as floats,
    strings to CategoricalNB's hashed counts, bools as bytes): the table is never
    converted to one float64 or object matrix. Prediction sums the sub-models'
    joint log-likelihoods block by block into one scratch buffer and takes the
    arg-max or normalises in place, so its extra memory is its output plus a
    fixed block, whatever the number of rows.

    Parameters
    ----------
    estimators : "auto" or list of (name, estimator, columns) tuples, default="auto"
        ``"auto"`` chooses per column, from its dtype and values:

        - bool (NumPy or pandas ``boolean``) -> :class:`BernoulliNB`;
        - float -> :class:`GaussianNB`;
        - str, object, pandas ``category`` or ``string``, or an integer column with
          at most ``AUTO_MAX_INTEGER_CATEGORIES`` (32) distinct values ->
          :class:`CategoricalNB`; integers with more distinct values ->
          :class:`GaussianNB`. An object column whose values are all numbers
          (None allowed) is treated as those numbers, all bools as bools.

        One sub-model per kind is made (named ``"gaussian"``, ``"bernoulli"``,
        ``"categorical"``), over every column of that kind; ``estimators_`` and
        :meth:`summary` show the choice.

        A list gives the sub-models as scikit-learn's ``ColumnTransformer`` does:
        ``name`` a unique string, ``estimator`` an unfitted GaussianNB,
        BernoulliNB, MultinomialNB or CategoricalNB (cloned at fit; without priors
        of its own: ``priors``/``class_prior`` unset, ``fit_prior=True``) or
        ``"drop"``, and ``columns`` an int, a str name, a list of either, a slice
        (of names: inclusive), a boolean mask or a callable such as
        ``sklearn.compose.make_column_selector`` that returns one of these.
        A column may be given to one sub-model only.
    priors : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes (summing to 1). If None, the class
        frequencies of the training data.
    remainder : {"error", "drop"}, default="error"
        What to do with columns that no sub-model names: ``"error"`` raises a
        ValueError that lists them; ``"drop"`` leaves them out of the model.
    n_threads : int, default=None
        Threads for the kernels, of ColumnwiseNB and of every sub-model (it
        replaces their own ``n_threads``): None or -1 means all usable cores, -2
        all but one, and so on. Prediction shares blocks of rows out to the
        threads. Results are the same bits whatever the number.
    grow_classes : bool, default=False
        Whether ``partial_fit`` may meet classes it was not told of: the first
        call may then omit ``classes``, and a later batch may bring new labels
        (see :class:`~fastnb.MultinomialNB`).
    half_life : float, default=None
        Exponential forgetting, in rows, of ColumnwiseNB and of every sub-model
        (it replaces their own ``half_life``): each row counts with weight
        ``sample_weight * 2**(-age / half_life)``, ``age`` being the number of
        rows seen after it (see the sub-models). None (or ``inf``) forgets
        nothing.

    Attributes
    ----------
    estimators_ : list of (name, fitted estimator, columns) tuples
        The fitted sub-models, with the columns each models (names for a
        DataFrame, else positions).
    named_estimators_ : dict
        The fitted sub-models by name.
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training samples of each class.
    class_prior_ : ndarray of shape (n_classes,)
        Probability of each class: ``priors``, or the class frequencies.
    class_log_prior_ : ndarray of shape (n_classes,)
        Its logarithm.
    n_features_in_ : int
        Number of columns seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the columns seen during fit, when X has string column names.

    Notes
    -----
    Missing values (NaN, None, ``pd.NA``) in any column are left out of that
    column's likelihood (marginalised), as each sub-model does; a category never
    seen in training gets the smoothed probability of a zero count. A class that
    has no training samples yet (``partial_fit``'s ``classes``) has the joint
    log-likelihood ``-inf`` until it has some, whatever ``priors`` says.

    ``save``/``fastnb.load`` keep the fitted sub-models and their columns by
    position (a callable selection is not saved: the loaded model's
    ``estimators`` lists the positions it chose). ``fastnb.merge`` merges models
    with the same sub-models on the same columns, sub-model by sub-model.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from fastnb import ColumnwiseNB
    >>> X = pd.DataFrame({
    ...     "height": [1.52, 1.61, 1.85, 1.79, 1.58, 1.90],
    ...     "colour": ["red", "red", "blue", "blue", "red", "blue"],
    ...     "member": [True, False, True, True, False, True],
    ... })
    >>> y = ["a", "a", "b", "b", "a", "b"]
    >>> model = ColumnwiseNB().fit(X, y)
    >>> print(model.summary())
    gaussian     GaussianNB()     height
    bernoulli    BernoulliNB()    member
    categorical  CategoricalNB()  colour
    >>> model.predict(pd.DataFrame({"height": [1.6], "colour": ["red"],
    ...                             "member": [False]}))
    array(['a'], dtype='<U1')

    Explicit sub-models, as in ``ColumnTransformer``:

    >>> from fastnb import CategoricalNB, GaussianNB
    >>> model = ColumnwiseNB([("size", GaussianNB(), ["height"]),
    ...                       ("tags", CategoricalNB(), ["colour", "member"])])
    >>> model.fit(X, y).predict_proba(X.iloc[:1]).round(3)
    array([[1., 0.]])
    """

    _is_composite = True  # made of sub-models (fastnb._distributed remakes it whole)
    # Sub-models of any kinds and number, in fixed members: "layout" (UTF-8 JSON:
    # each sub-model's class, parameters, columns and where its arrays lie) and
    # three pools holding every sub-model's ``_sufficient_state`` arrays by dtype.
    _STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "layout": (("t",), ("uint8",)),
        "float_pool": (("f",), ()),
        "int_pool": (("i",), ()),
        "byte_pool": (("b",), ("uint8",)),
    }

    def __init__(self, estimators="auto", *, priors=None, remainder="error",
                 n_threads=None, grow_classes=False,
                 half_life=None):
        self.estimators = estimators
        self.priors = priors
        self.remainder = remainder
        self.n_threads = n_threads
        self.grow_classes = grow_classes
        self.half_life = half_life

    # -- parameters -----------------------------------------------------------------
    def get_params(self, deep=True):
        """Get the parameters of this estimator.

        Parameters
        ----------
        deep : bool, default=True
            If True, also the sub-estimators of an ``estimators`` list, by name,
            and their parameters as ``name__parameter`` (scikit-learn's
            convention for composite estimators).

        Returns
        -------
        params : dict
            Parameter names mapped to their values.
        """
        params = {name: getattr(self, name) for name in self._get_param_names()}
        if deep and isinstance(self.estimators, (list, tuple)):
            for entry in self.estimators:
                if not (isinstance(entry, tuple) and len(entry) == 3):
                    continue
                name, estimator = entry[0], entry[1]
                params[name] = estimator
                if hasattr(estimator, "get_params"):
                    for key, value in estimator.get_params(deep=True).items():
                        params[f"{name}__{key}"] = value
        return params

    def set_params(self, **params):
        """Set the parameters of this estimator.

        Parameters
        ----------
        **params : dict
            Estimator parameters; a sub-estimator of ``estimators`` by its name,
            and its parameters as ``name__parameter``.

        Returns
        -------
        self : estimator instance
        """
        own = self._get_param_names()
        if "estimators" in params:
            self.estimators = params.pop("estimators")
        for key, value in params.items():
            if key in own:
                setattr(self, key, value)
                continue
            name, _, sub_key = key.partition("__")
            entries = list(self.estimators) if isinstance(
                self.estimators, (list, tuple)) else []
            where = [i for i, entry in enumerate(entries) if entry[0] == name]
            if not where:
                raise ValueError(
                    f"Invalid parameter {key!r} for estimator ColumnwiseNB. Valid "
                    f"parameters are: {sorted(self.get_params(deep=True))!r}."
                )
            i = where[0]
            if sub_key:
                entries[i][1].set_params(**{sub_key: value})
            else:
                entries[i] = (name, value, entries[i][2])
                self.estimators = entries
        return self

    def _validate_params(self):
        owner = type(self).__name__
        check_n_threads(self.n_threads, owner)
        check_half_life_param(self.half_life, owner)
        check_prior_param(self.priors, "priors", owner)
        check_bool_param(self.grow_classes, "grow_classes", owner)
        if self.remainder not in ("error", "drop"):
            raise param_error(owner, "remainder", "a str among {'error', 'drop'}",
                              self.remainder)
        if isinstance(self.estimators, str) and self.estimators == "auto":
            return
        if not isinstance(self.estimators, (list, tuple)) or not self.estimators:
            raise param_error(
                owner, "estimators",
                "'auto' or a non-empty list of (name, estimator, columns) tuples",
                self.estimators, TypeError)
        seen = set()
        for entry in self.estimators:
            if not (isinstance(entry, tuple) and len(entry) == 3):
                raise TypeError(
                    "Each entry of ColumnwiseNB's estimators must be a (name, "
                    f"estimator, columns) tuple, got {entry!r}."
                )
            name, estimator, _ = entry
            if not isinstance(name, str) or not name or "__" in name:
                raise ValueError(
                    f"Sub-estimator names must be non-empty str without '__', got "
                    f"{name!r}."
                )
            if name in seen or name in self._get_param_names():
                raise ValueError(f"Sub-estimator name {name!r} is used twice or "
                                 "clashes with a parameter of ColumnwiseNB.")
            seen.add(name)
            self._check_sub_estimator(name, estimator)

    @staticmethod
    def _check_sub_estimator(name, estimator):
        if isinstance(estimator, str) and estimator == "drop":
            return
        if type(estimator).__name__ not in _SUB_MODELS or not isinstance(
                estimator, tuple(_SUB_MODELS.values())):
            why = ""
            if isinstance(estimator, ComplementNB):
                why = " (ComplementNB's scores are not log-likelihoods, so they do " \
                      "not add up with other models')"
            raise TypeError(
                f"Sub-estimator {name!r} is {estimator!r}{why}; ColumnwiseNB takes "
                f"fastnb's {', '.join(sorted(_SUB_MODELS))} or 'drop'."
            )
        params = estimator.get_params(deep=False)
        for key, default in _OWN_PRIOR_PARAMS.items():
            if key in params and not (params[key] is default):
                raise ValueError(
                    f"Sub-estimator {name!r} has its own class prior ({key}="
                    f"{params[key]!r}): the priors belong to ColumnwiseNB; set "
                    f"ColumnwiseNB(priors=...) and leave {key} at {default!r}."
                )

    # -- the plan: which sub-model models which columns --------------------------------
    def _plan(self, table, X):
        """[(name, unfitted clone, positions)] for this X, checked."""
        if isinstance(self.estimators, str):
            groups = {}
            for j in range(table.n_columns):
                label = self._label(table, j)
                groups.setdefault(_auto_kind(table.column(j), label), []).append(j)
            return [(name, cls(n_threads=self.n_threads, half_life=self.half_life),
                     np.array(groups[name], dtype=np.intp))
                    for name, cls in _AUTO_ESTIMATORS if name in groups]
        plan, owner_of = [], {}
        for name, estimator, spec in self.estimators:
            owner = f"sub-estimator {name!r}"
            positions = _column_positions(spec, table, X, owner)
            for j in positions.tolist():
                if j in owner_of:
                    others = owner_of[j]
                    raise ValueError(
                        f"Column {self._label(table, j)!r} is chosen by {others} and "
                        f"by {owner}: give each column to one sub-estimator."
                    )
                owner_of[j] = owner
            if isinstance(estimator, str) or positions.size == 0:
                continue  # "drop", or an empty selection: nothing to model
            model = type(estimator)(**estimator.get_params(deep=False))
            model.n_threads = self.n_threads
            model.half_life = self.half_life
            plan.append((name, model, positions))
        rest = [j for j in range(table.n_columns) if j not in owner_of]
        if rest and self.remainder == "error":
            raise ValueError(
                f"Columns {[self._label(table, j) for j in rest]!r} are not given to "
                "any sub-estimator: name them in estimators, or set "
                "remainder='drop'."
            )
        if not plan:
            raise ValueError("ColumnwiseNB has no columns to model: every column is "
                             "dropped.")
        return plan

    def _with_fixed_plan(self, X):
        """This model's parameters, with "auto" resolved on X into an explicit list
        (fastnb.dask.fit: every partition is then fitted with the same sub-models,
        chosen from the first one)."""
        if not isinstance(self.estimators, str):
            return self
        self._validate_params()
        plan = self._plan(_Table(X, type(self).__name__), X)
        return type(self)([(name, model, positions.tolist())
                           for name, model, positions in plan],
                          priors=self.priors, remainder=self.remainder,
                          n_threads=self.n_threads, half_life=self.half_life)

    @staticmethod
    def _label(table, j):
        return plain(table.labels[j] if table.labels is not None else j)

    # -- fitting --------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit every sub-model on its columns, and the class priors.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data: a DataFrame (pandas, polars, a pyarrow Table) with
            columns of any dtypes, a NumPy array, or a list of rows.
        y : array-like of shape (n_samples,)
            Target values: any labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights applied to individual samples.

        Returns
        -------
        self : object
            Returns the instance itself.
        """
        return self._fit(X, y, None, sample_weight, refit=True)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Incremental fit on a batch of samples.

        Every sub-model is updated on its columns; a call that raises leaves the
        model exactly as it was. With ``estimators="auto"`` the first call
        chooses the sub-models.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Target values.
        classes : array-like of shape (n_classes,), default=None
            All the classes that can appear in y. Required on the first call; on
            later calls it must be the same classes, or None.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights applied to individual samples.

        Returns
        -------
        self : object
            Returns the instance itself.
        """
        if self.grow_classes:
            return self._partial_fit_growing(X, y, classes, sample_weight)
        return self._partial_fit(X, y, classes, sample_weight)

    def _update_tags(self, tags):
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = False

    def _fit(self, X, y, classes, sample_weight, refit):
        """Fit copies of the sub-models; commit only when all have succeeded."""
        first_call = self._begin_fit(classes, refit)
        name = type(self).__name__
        table = _Table(X, name)
        y = check_y(y, table.n_samples, name)
        names = feature_names_of(X)
        if first_call:
            plan = self._plan(table, X)
        else:
            self._check_n_features(table, reset=False)
            self._check_feature_names(X, reset=False)
            plan = [(sub_name, copy.deepcopy(model), positions) for (
                sub_name, model, _), positions in zip(self.estimators_, self._positions)]
            for _, model, _ in plan:
                model.n_threads = self.n_threads
                model.half_life = self.half_life
        for sub_name, model, positions in plan:
            try:
                block = table.block(positions, 0, table.n_samples,
                                    isinstance(model, CategoricalNB),
                                    n_threads=threads_for(
                                        self.n_threads, table.n_samples
                                        * positions.shape[0], "gaussian_fit"))
                if refit:
                    model.fit(block, y, sample_weight)
                else:
                    model.partial_fit(block, y, classes if first_call else None,
                                      sample_weight)
            except (TypeError, ValueError) as error:
                raise self._sub_model_error(error, sub_name, table, positions) from error
        models = [model for _, model, _ in plan]
        self._commit(plan, models[0].classes_, models[0].class_count_.copy(),
                     table.n_columns, names if first_call else getattr(
                         self, "feature_names_in_", None))
        return self

    def _sub_model_error(self, error, sub_name, table, positions):
        """The error of a sub-model (or of reading its columns), saying which."""
        columns = [self._label(table, j) for j in positions.tolist()]
        return type(error)(f"{type(self).__name__} sub-estimator {sub_name!r} (columns "
                           f"{columns}): {error}")

    def _grown_to(self, classes):
        """grow_classes: each sub-model grown to ``classes`` (its own
        ``_grown_to``), recombined with zero counts for the new classes."""
        at = np.searchsorted(classes, self.classes_)
        plan = [(sub_name, model._grown_to(classes), positions)
                for (sub_name, model, _), positions in zip(self.estimators_,
                                                            self._positions)]
        class_count = np.zeros(classes.shape[0])
        class_count[at] = self.class_count_
        grown = type(self)(**self.get_params(deep=False))
        grown._commit(plan, classes, class_count, self.n_features_in_,
                      getattr(self, "feature_names_in_", None))
        return grown

    def _commit(self, plan, classes, class_count, n_features, names):
        """Derive the priors and set the fitted state (validation all done)."""
        k = classes.shape[0]
        priors = resolve_priors(self.priors, k, name="priors", sum_to_one=True)
        prior = class_count / class_count.sum() if priors is None else priors
        with np.errstate(divide="ignore"):
            log_prior = np.log(prior)
        bias = combined_bias(log_prior, [model for _, model, _ in plan])
        labels = [names[p].tolist() if names is not None else p.tolist()
                  for _, _, p in plan]
        # All validation is done: commit the new state.
        self.estimators_ = [(sub_name, model, columns)
                            for (sub_name, model, _), columns in zip(plan, labels)]
        self.named_estimators_ = {sub_name: model for sub_name, model, _ in plan}
        self._positions = [positions for _, _, positions in plan]
        self._bias = np.ascontiguousarray(bias, dtype=np.float64)
        self._zeros = np.zeros(k)
        self.classes_ = classes
        self.class_count_ = class_count
        self.class_prior_ = prior
        self.class_log_prior_ = log_prior
        self.n_features_in_ = n_features
        self._set_feature_names(names)

    def summary(self):
        """One line per fitted sub-model: its name, estimator and columns.

        Returns
        -------
        text : str

        Examples
        --------
        >>> import numpy as np
        >>> from fastnb import ColumnwiseNB
        >>> X = np.array([[0.5, 1], [1.5, 2], [2.5, 1], [3.5, 2]], dtype=object)
        >>> print(ColumnwiseNB().fit(X, [0, 0, 1, 1]).summary())
        gaussian     GaussianNB()     0
        categorical  CategoricalNB()  1
        """
        self._check_fitted()
        rows = [(name, repr(model), ", ".join(str(c) for c in columns))
                for name, model, columns in self.estimators_]
        widths = [max(len(row[i]) for row in rows) + 2 for i in range(2)]
        return "\n".join(f"{a:<{widths[0]}}{b:<{widths[1]}}{c}" for a, b, c in rows)
