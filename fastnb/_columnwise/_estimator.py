"""The ColumnwiseNB class: parameters, the plan (which sub-model models which
columns), fitting and the fitted state. Prediction is in _predict, the file format
and merging in _file_format."""

import copy

import numpy as np

from .._base import _BaseNB
from .._capabilities import Capabilities, is_fastnb_model
from .._forgetting import check_half_life_param
from .._params import (check_bool_param, check_n_threads, check_prior_param, param_error,
                       resolve_priors)
from .._threads import threads_for
from .._validation import check_sample_weight, check_y, feature_names_of, plain
from ._columns import (
    AUTO_CODES,
    auto_estimators,
    _OWN_PRIOR_PARAMS,
    sub_model_classes,
    _auto_kind,
    _column_positions,
    combined_bias,
)
from ._file_format import _FileFormat
from ._predict import _Prediction
from ._select import family_model, select_families
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

        The categories of a categorical column are its values (years 2007, 2008,
        2009 are three categories, and an unseen year later gets the smoothed
        probability of a zero count), except an integer column whose values are
        all in 0..31, which is read as integer codes, as scikit-learn's
        CategoricalNB reads them.

        One sub-model per kind is made (named ``"gaussian"``, ``"bernoulli"``,
        ``"categorical"``), over every column of that kind; ``estimators_`` and
        :meth:`summary` show the choice.

        A list gives the sub-models as scikit-learn's ``ColumnTransformer`` does:
        ``name`` a unique string, ``estimator`` an unfitted GaussianNB,
        BernoulliNB, MultinomialNB, CategoricalNB, PoissonNB, ExponentialNB,
        GammaNB or LogNormalNB (cloned at fit; without priors
        of its own: ``priors``/``class_prior`` unset, ``fit_prior=True``) or
        ``"drop"``, and ``columns`` an int, a str name, a list of either, a slice
        (of names: inclusive), a boolean mask or a callable such as
        ``sklearn.compose.make_column_selector`` that returns one of these.
        A column may be given to one sub-model only.
    numeric : {"gaussian", "select"}, default="gaussian"
        The likelihood of the columns ``"auto"`` models as numbers (floats, and
        integers with many distinct values). ``"gaussian"``: one
        :class:`GaussianNB` over all of them. ``"select"``: each column's family
        is chosen on the training data among those its values allow: Gaussian
        always; :class:`LogNormalNB` and :class:`GammaNB` when all values are
        > 0; :class:`ExponentialNB` when all are >= 0; :class:`PoissonNB` when
        all are non-negative integers (and any other registered family, see
        ``fastnb._columnwise._select``). The criterion judges the classifier,
        not the column's fit alone: the held-out log loss of the whole naive
        Bayes model over 5 inner folds (row i in fold ``i % 5``, no seed), each
        family's fold statistics fitted once and merged exactly, with a greedy
        choice column by column, the other columns at their current choice. The
        sub-models are then named after their family (``"poisson"``,
        ``"gamma"``, ...); ``selection_`` and :meth:`summary` show each column's
        choice and score. ``partial_fit`` keeps the choice of its first call,
        ``fastnb.merge`` needs equal choices, and ``save``/``fastnb.load`` keep
        it. Needs ``estimators="auto"``; fastnb.dask and fastnb.spark refuse it
        (choose on a sample, then pass the chosen sub-models as a list).
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
    selection_ : list of (column, family, log_loss, gaussian_log_loss) tuples
        Only with ``numeric="select"``: per numeric column, the family chosen,
        the held-out log loss of the classifier with it, and with a Gaussian for
        that column instead (the other columns at their choice). The scores are
        None where the selection had too few rows (all Gaussian) or after a
        merge (each part scored its own rows).

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

    A likelihood chosen per numeric column:

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 1000)
    >>> X = pd.DataFrame({"visits": rng.poisson(1 + 3 * y).astype(float),
    ...                   "spend": rng.lognormal(y, 1.0),
    ...                   "height": rng.normal(y, 1.0)})
    >>> model = ColumnwiseNB(numeric="select").fit(X, y)
    >>> [(column, family) for column, family, _, _ in model.selection_]
    [('visits', 'poisson'), ('spend', 'lognormal'), ('height', 'gaussian')]
    """

    # Sub-models of any kinds and number, in fixed members: "layout" (UTF-8 JSON:
    # each sub-model's class, parameters, columns and where its arrays lie) and
    # three pools holding every sub-model's ``_sufficient_state`` arrays by dtype.
    _capabilities = Capabilities(
        reads="mixed", terms="composite", prior_param="priors",
        finalising_params={"priors", "n_threads", "grow_classes"}, composite=True)
    _STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "layout": (("t",), ("uint8",)),
        "float_pool": (("f",), ()),
        "int_pool": (("i",), ()),
        "byte_pool": (("b",), ("uint8",)),
    }

    # (``with_params``: and each sub-model's own, as ``name__parameter``)

    def __init__(self, estimators="auto", *, numeric="gaussian", priors=None,
                 remainder="error", n_threads=None, grow_classes=False,
                 half_life=None):
        self.estimators = estimators
        self.numeric = numeric
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
        if not (isinstance(self.numeric, str) and self.numeric in ("gaussian",
                                                                   "select")):
            raise param_error(owner, "numeric", "a str among {'gaussian', 'select'}",
                              self.numeric)
        if isinstance(self.estimators, str) and self.estimators == "auto":
            return
        if self.numeric == "select":
            raise ValueError(
                "ColumnwiseNB(numeric='select') chooses the numeric columns' "
                "sub-models itself: it needs estimators='auto', not a list.")
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
        sub_models = sub_model_classes()
        if not (is_fastnb_model(estimator) and type(estimator).__name__ in sub_models):
            why = ""
            if is_fastnb_model(estimator):
                why = (f" ({type(estimator).__name__}'s scores are not log-likelihoods, "
                       "so they do not add up with other models')")
            raise TypeError(
                f"Sub-estimator {name!r} is {estimator!r}{why}; ColumnwiseNB takes "
                f"fastnb's {', '.join(sorted(sub_models))} or 'drop'."
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
    def _plan(self, table, X, y=None, sample_weight=None):
        """[(name, unfitted clone, positions)] for this X, checked (and, under
        numeric="select", the ``selection_`` rows; else None)."""
        if isinstance(self.estimators, str):
            groups, by_value = {}, []
            for j in range(table.n_columns):
                kind = _auto_kind(table.column(j), self._label(table, j))
                if kind in ("categorical", AUTO_CODES):
                    by_value.append(kind != AUTO_CODES)
                    kind = "categorical"
                groups.setdefault(kind, []).append(j)
            plan = [(name, cls(n_threads=self.n_threads, half_life=self.half_life),
                     np.array(groups[name], dtype=np.intp))
                    for name, cls in auto_estimators() if name in groups]
            for name, model, _ in plan:
                if name == "categorical":
                    model._by_value = np.array(by_value, dtype=bool)
            if self.numeric == "select" and "gaussian" in groups:
                return self._selected_plan(table, plan, y, sample_weight)
            return plan, None
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
            if hasattr(estimator, "_by_value"):  # an "auto" plan, fixed (dask)
                model._by_value = estimator._by_value
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
        return plan, None

    def _selected_plan(self, table, plan, y, sample_weight):
        """numeric="select": the "auto" plan with its Gaussian's columns shared
        out to the family chosen for each (see fastnb/_columnwise/_select.py)."""
        numeric = plan[0][2]  # "auto"'s first sub-model is its Gaussian
        families, selection = select_families(
            table, numeric.tolist(), [(model, p) for _, model, p in plan[1:]], y,
            sample_weight, self.n_threads, self.half_life,
            lambda j: self._label(table, j))
        groups = {}
        for j in numeric.tolist():
            family, cls = families[j]
            groups.setdefault(family, (cls, []))[1].append(j)
        chosen = [(family, family_model(cls, self.n_threads, self.half_life),
                   np.array(columns, dtype=np.intp))
                  for family, (cls, columns) in groups.items()]
        return chosen + plan[1:], selection

    def _with_fixed_plan(self, X):
        """This model's parameters, with "auto" resolved on X into an explicit list
        (fastnb.dask.fit: every partition is then fitted with the same sub-models,
        chosen from the first one)."""
        if not isinstance(self.estimators, str):
            return self
        self._validate_params()
        if self.numeric == "select":
            raise ValueError(
                "ColumnwiseNB(numeric='select') chooses from the labels of all the "
                "rows, which a distributed fit does not have in one place: fit it "
                "on a sample, then pass the chosen sub-models as estimators "
                "([(name, type(m)(**m.get_params()), columns) for name, m, columns "
                "in model.estimators_]).")
        plan, _ = self._plan(_Table(X, type(self).__name__), X)
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
        selection = getattr(self, "selection_", None)
        if first_call:
            if self.numeric == "select" and sample_weight is not None:
                sample_weight = check_sample_weight(sample_weight, table.n_samples)
            plan, selection = self._plan(table, X, y, sample_weight)
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
                                    model._capabilities.reads == "categories",
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
        for _, model, _ in plan:
            # The first call fixed each feature's layout: the choice is spent.
            vars(model).pop("_by_value", None)
        models = [model for _, model, _ in plan]
        self._commit(plan, models[0].classes_, models[0].class_count_.copy(),
                     table.n_columns, names if first_call else getattr(
                         self, "feature_names_in_", None), selection)
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
                      getattr(self, "feature_names_in_", None),
                      getattr(self, "selection_", None))
        return grown

    def _commit(self, plan, classes, class_count, n_features, names, selection=None):
        """Derive the priors and set the fitted state (validation all done);
        ``selection``: the ``selection_`` rows of numeric="select"."""
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
        if selection is not None:
            self.selection_ = list(selection)
        else:
            vars(self).pop("selection_", None)

    # -- other parameters on the same statistics -------------------------------------
    def _is_finalising(self, name):
        """Whether ``name`` leaves the statistics unchanged: one of ColumnwiseNB's
        own (``priors``, ``n_threads``) or ``name__parameter`` of a sub-model of
        the ``estimators`` list that is one of that sub-model's."""
        if name in self._capabilities.finalising_params:
            return True
        sub_name, _, sub_key = name.partition("__")
        if not sub_key or isinstance(self.estimators, str):
            return False
        for entry in self.estimators:
            if entry[0] == sub_name and hasattr(entry[1], "_is_finalising"):
                return entry[1]._is_finalising(sub_key)
        return False

    def with_params(self, **params):
        """A new fitted model: these statistics, under other parameter values.

        As the other models' ``with_params``, for ColumnwiseNB's ``priors`` and
        ``n_threads`` and for each sub-model's own parameters that leave its
        statistics unchanged, named ``name__parameter`` (``estimators`` given as a
        list): each sub-model is derived by its own ``with_params``.

        Parameters
        ----------
        **params : dict
            New parameter values.

        Returns
        -------
        model : ColumnwiseNB
            A new fitted model, equal to ``clone(model).set_params(**params)``
            fitted on the same data.

        Examples
        --------
        >>> import numpy as np
        >>> from fastnb import ColumnwiseNB, GaussianNB, CategoricalNB
        >>> X = np.array([[0.5, 1], [1.5, 2], [2.5, 1], [3.5, 2]])
        >>> model = ColumnwiseNB([("g", GaussianNB(), [0]),
        ...                       ("c", CategoricalNB(), [1])]).fit(X, [0, 0, 1, 1])
        >>> model.with_params(c__alpha=0.5).named_estimators_["c"].alpha
        0.5
        """
        self._check_with_params(params)
        new = type(self)(**copy.deepcopy(self.get_params(deep=False)))
        new.set_params(**copy.deepcopy(params))
        new._validate_params()
        plan = []
        for (sub_name, model, _), positions in zip(self.estimators_, self._positions):
            own = {key.partition("__")[2]: value for key, value in params.items()
                   if key.partition("__")[0] == sub_name and "__" in key}
            plan.append((sub_name, model.with_params(n_threads=new.n_threads, **own),
                         positions))
        new._commit(plan, self.classes_, self.class_count_.copy(), self.n_features_in_,
                    getattr(self, "feature_names_in_", None),
                    getattr(self, "selection_", None))
        return new

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
        text = "\n".join(f"{a:<{widths[0]}}{b:<{widths[1]}}{c}" for a, b, c in rows)
        selection = getattr(self, "selection_", None)
        if selection is None:
            return text
        rows = [("column", "family", "log loss", "gaussian")] + [
            (str(column), family, *("-" if v is None else f"{v:.4f}"
                                    for v in (score, gaussian)))
            for column, family, score, gaussian in selection]
        widths = [max(len(row[i]) for row in rows) + 2 for i in range(3)]
        return text + "\n\nnumeric='select' (held-out log loss):\n" + "\n".join(
            f"{a:<{widths[0]}}{b:<{widths[1]}}{c:<{widths[2]}}{d}".rstrip()
            for a, b, c, d in rows)
