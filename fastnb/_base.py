"""The estimator machinery every fastnb model shares.

``_BaseNB`` gives scikit-learn's estimator protocol (get_params, set_params, repr,
tags, pickling) without importing scikit-learn, and the predict methods. A model
subclass supplies only ``_check_predict_X`` (validation of its input kind) and
``_run_predict_kernel(X, mode, labels_out, out)``, which calls its compiled kernel.
"""

import copy
import inspect
import warnings
import weakref

import numpy as np

from . import _capabilities, _persist, _runtime
from ._threads import threads_for
from ._version import __version__
from ._encoding import encode_labels, encode_with_classes
from ._forgetting import row_weights
from ._params import resolve_priors
from ._validation import (
    check_dense_X,
    check_feature_names,
    check_sample_weight,
    check_y,
    feature_names_of,
    not_fitted_error,
)

__all__ = ["_BaseNB"]


def _batch_labels(y, classes):
    """The sorted labels of a batch, with the ``classes`` given (grow_classes)."""
    try:
        labels = np.unique(np.asarray(y).ravel())
        if classes is not None:
            labels = np.union1d(labels, np.asarray(classes).ravel())
        return labels
    except TypeError as error:
        raise TypeError(f"the labels of y (and classes) do not compare with each "
                        f"other: {error}") from error

def _no_check(*args, **kwargs):
    """A state check skipped (``_BaseNB.with_params``)."""


MODE_ARGMAX = _runtime.PREDICT_MODES["argmax"]
MODE_JLL = _runtime.PREDICT_MODES["jll"]
MODE_LOG_PROBA = _runtime.PREDICT_MODES["log_proba"]
MODE_PROBA = _runtime.PREDICT_MODES["proba"]

# predict() turns the class indices of up to this many rows into labels by plain
# indexing (a new array, 0.1 us); a larger batch overwrites its indices in place
# (no second n-sized array, but 0.3 us of call overhead)
_SMALL_BATCH = 64


# each class's (__init__, sorted parameter names): a search reads them hundreds of times
_PARAM_NAMES = {}
# parameter values that compare by value, for ``_BaseNB._params_key``
_PLAIN_PARAM_TYPES = frozenset((type(None), bool, int, float, str))
# the key of each estimator's parameters when they last passed validation: kept
# outside the estimator, whose state (a failed call leaves it as it was, pickles
# and saved files hold it) it is not part of
_VALIDATED_PARAMS = weakref.WeakKeyDictionary()


def _param_names(cls):
    """``cls.__init__``'s sorted parameter names, read once per class and __init__."""
    init, cached = cls.__init__, _PARAM_NAMES.get(cls)
    if cached is None or cached[0] is not init:
        cached = _PARAM_NAMES[cls] = (init, tuple(sorted(
            name for name, p in inspect.signature(init).parameters.items()
            if name != "self" and p.kind != p.VAR_KEYWORD)))
    return cached[1]


class _BaseNB:
    """Base class of the fastnb estimators (not public).

    Persistence and merging: a subclass lists its sufficient statistics in
    ``_STATE_SPEC`` (``{name: (shape, checks)}``, see ``_persist.check_state``),
    returns them from ``_sufficient_state()``, rebuilds itself from them in
    ``_restore(classes, arrays, n_features, feature_names)`` and combines two fits
    in ``_merged_with(other)``.
    """

    _estimator_type = "classifier"
    _STATE_SPEC = {}
    # The parameters that only turn the statistics into a model: fit counts or
    # sums the same whatever their values, so ``with_params`` may change them
    # (a model class lists its own; ColumnwiseNB also its sub-models').
    # The PARALLEL_MIN_WORK entry (fastnb/_threads.py) that sizes predict calls.
    _PREDICT_WORK_KIND = "predict"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.__name__.startswith("_"):
            _capabilities.register(cls)
            _persist.register(cls)

    # -- the estimator protocol ---------------------------------------------------
    @classmethod
    def _get_param_names(cls):
        return list(_param_names(cls))

    def get_params(self, deep=True):
        """Get the parameters of this estimator.

        Parameters
        ----------
        deep : bool, default=True
            Accepted for scikit-learn compatibility; fastnb estimators hold no
            sub-estimators.

        Returns
        -------
        params : dict
            Parameter names mapped to their values.
        """
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params):
        """Set the parameters of this estimator.

        Parameters
        ----------
        **params : dict
            Estimator parameters.

        Returns
        -------
        self : estimator instance
        """
        valid = self._get_param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                    f"Valid parameters are: {valid!r}."
                )
            setattr(self, name, value)
        return self

    def __repr__(self):
        defaults = inspect.signature(type(self).__init__).parameters
        shown = []
        for name in self._get_param_names():
            value = getattr(self, name)
            default = defaults[name].default
            changed = True
            try:
                changed = not (value is default or bool(value == default))
            except (TypeError, ValueError):
                changed = True
            if changed:
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def __sklearn_tags__(self):
        # Only scikit-learn calls this, so importing it here costs fastnb users
        # nothing (`import fastnb` never imports sklearn).
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        tags = Tags(
            estimator_type="classifier",
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags(),
            input_tags=InputTags(),
        )
        self._update_tags(tags)
        return tags

    def _update_tags(self, tags):
        """Hook for subclasses to adjust their scikit-learn tags."""

    def __sklearn_is_fitted__(self):
        return hasattr(self, "classes_")

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_fastnb_version"] = __version__
        return state

    def __setstate__(self, state):
        version = state.pop("_fastnb_version", None)
        if version is not None and version != __version__:
            warnings.warn(
                f"Trying to unpickle {type(self).__name__} from fastnb {version} "
                f"with fastnb {__version__}: this might lead to breaking code or "
                "invalid results. Use at your own risk.",
                UserWarning,
                stacklevel=2,
            )
        # a pickle made before a parameter existed: the default (its behaviour then)
        for name, parameter in inspect.signature(type(self).__init__).parameters.items():
            if (name != "self" and name not in state
                    and parameter.default is not inspect.Parameter.empty):
                state[name] = parameter.default
        self.__dict__.update(state)

    # -- persistence and merging ---------------------------------------------------
    def save(self, path):
        """Save the fitted model to ``path`` as ``.npz``, without pickle.

        ``fastnb.load(path)`` gives back a model that predicts bit for bit the same,
        in any process. The file holds only arrays and a JSON header, so loading it
        never executes code; every field is validated on load.

        Parameters
        ----------
        path : str, path-like or binary file object
            Where to write; ``.npz`` is the conventional suffix. A binary file
            object (``io.BytesIO``, a file opened ``"wb"``, an object-store
            upload stream) is written from its current position and left open,
            so a model can be kept in a database without a temporary file.
        """
        _persist.save(self, path)

    @classmethod
    def _copy_of(cls, model):
        return copy.deepcopy(model)

    def _sufficient_state(self):
        raise NotImplementedError

    @classmethod
    def _state_spec_for(cls, names, format_version):
        """The layout of a saved model whose members are ``names`` (the header's
        list, "classes" first): ``_STATE_SPEC`` unless a subclass has others."""
        return cls._STATE_SPEC

    def _restore(self, classes, arrays, n_features, feature_names):
        raise NotImplementedError

    def _validate_file_params(self):
        """The parameters of a model read from, or written to, a file: the
        constructor's validators (a subclass whose file keeps some parameters
        elsewhere checks what the file holds instead)."""
        self._validate_params()

    @classmethod
    def _check_state_invariants(cls, classes, arrays, n_features):
        """Raise a ValueError naming the member and the rule where ``arrays`` (a
        ``_sufficient_state``, in one of the layouts of ``_state_spec_for``,
        dtypes and shapes already checked by ``_persist.check_state``) breaks an
        invariant that a kernel relies on. Called by ``_restore`` and, on the
        state about to be written, by ``save``, so that a model that load would
        refuse is not saved. The rules, per model: fastnb/_invariants.py and
        docs/user_guide/saving_and_loading.rst."""
        raise NotImplementedError

    def _merged_with(self, other):
        raise NotImplementedError

    def _included_log_prior(self):
        """The (k,) log prior this fitted model adds into its joint log
        likelihood (-inf for a class without data): what ColumnwiseNB takes out
        of each sub-model's sum to add its own prior once."""
        return self.class_log_prior_

    def _state_for(self, model):
        """The sufficient state that ``model`` (this one's class, other
        parameters) is restored from by ``with_params``."""
        return self._sufficient_state()

    # -- other parameters on the same statistics -------------------------------------
    @classmethod
    def _is_finalising(cls, name):
        """Whether parameter ``name`` leaves the statistics of a fit unchanged."""
        return name in cls._capabilities.finalising_params

    def _check_with_params(self, params):
        """Refuse, naming it, a parameter that is unknown or that would need the
        data again (a new value of one that changes the statistics)."""
        self._check_fitted()
        current = self.get_params(deep=True)
        for name, value in params.items():
            if name not in current:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                    f"Valid parameters are: {sorted(current)!r}.")
            if not self._is_finalising(name) and not _persist._same_value(
                    current[name], value):
                raise ValueError(
                    f"{type(self).__name__}.with_params cannot change {name!r}: it "
                    "changes the statistics that fit gathers from the data. Refit "
                    f"instead: clone(model).set_params({name}=...).fit(X, y). The "
                    "parameters it can change: "
                    f"{sorted(n for n in current if self._is_finalising(n))!r}.")

    def with_params(self, **params):
        """A new fitted model: these statistics, under other parameter values.

        Parameters such as ``alpha``, ``fit_prior``, ``class_prior``,
        ``priors``, ``var_smoothing`` or ComplementNB's ``norm`` only turn the
        fitted statistics (counts, means, variances) into a model: the new
        model is the one ``clone(model).set_params(**params).fit(X, y)`` would
        make, derived in O(statistics) without reading the data again. This
        model is left as it is.

        Parameters
        ----------
        **params : dict
            New values of parameters that do not change the statistics (the
            model's capabilities' ``finalising_params``). A parameter that would need the
            data (``binarize``, ``min_categories``, ``hash_buckets``,
            ``half_life``, ...) raises a ValueError unless its value is the
            model's own.

        Returns
        -------
        model : estimator instance
            A new fitted model of the same class.

        Examples
        --------
        >>> import numpy as np
        >>> from fastnb import MultinomialNB
        >>> X = np.array([[2, 0, 1], [0, 3, 1], [1, 0, 4], [0, 2, 2]])
        >>> y = np.array([0, 1, 0, 1])
        >>> model = MultinomialNB(alpha=1.0).fit(X, y)
        >>> smoother = model.with_params(alpha=0.1)
        >>> refit = MultinomialNB(alpha=0.1).fit(X, y)
        >>> bool(np.allclose(smoother.predict_proba(X), refit.predict_proba(X)))
        True
        """
        self._check_with_params(params)
        return self._from_statistics(copy.deepcopy(params), checked=False)

    def _from_statistics(self, params, *, checked):
        """A new model of this class restored from this fitted model's
        statistics (copied) under its parameters updated by ``params``: the one
        primitive behind ``with_params`` and the distributed fits' final model
        (``fastnb._distributed.finalised``), so both derive the fitted
        attributes, and a composite's sub-models, as a fit does.

        ``checked``: whether the state goes through the load checks of untrusted
        state. The distributed fits keep them (their merged statistics came from
        executors, and a ``priors`` of the wrong length is a driver-side
        ValueError); ``with_params`` skips them: its state is a fitted model's,
        the checks cost O(state) and refuse what a fit may make (-inf log
        probabilities under alpha=0).
        """
        new = type(self)(**{**self.get_params(deep=False), **params})
        new._validate_params()
        state = {name: np.array(value, copy=True)
                 for name, value in self._state_for(new).items()}
        if not checked:
            # shadowed on the instance for this restore only
            new.__dict__["_check_state_invariants"] = _no_check
            new.__dict__["_check_derived_state"] = _no_check
        try:
            new._restore(self.classes_, state, int(self.n_features_in_),
                         getattr(self, "feature_names_in_", None))
        finally:
            if not checked:
                del new.__dict__["_check_state_invariants"]
                del new.__dict__["_check_derived_state"]
        return new

    def _finish_restore(self, n_features, feature_names):
        self.n_features_in_ = n_features
        self._set_feature_names(feature_names)

    # -- helpers for subclasses -----------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "classes_"):
            raise not_fitted_error(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' "
                "with appropriate arguments before using this estimator."
            )

    def _params_key(self):
        """The parameters as a key equal to another only for the same values of the
        same plain types (None, bool, int, float, str), or None when one is of
        another type (an array, a list). A stream of partial_fit calls validates
        the parameters again only when the key changed (~4 us a call)."""
        names = _param_names(type(self))
        values = tuple([getattr(self, name) for name in names])
        types = tuple([type(value) for value in values])
        for kind in types:
            if kind not in _PLAIN_PARAM_TYPES:
                return None
        return types, values

    def _begin_fit(self, classes, refit):
        """The checks every fit and partial_fit starts with, before reading X.

        Returns whether the call starts a new model (``fit``, or a first
        ``partial_fit``), which then needs ``classes``; a later ``partial_fit`` may
        repeat them, exactly.
        """
        key = self._params_key()
        if key is None or key != _VALIDATED_PARAMS.get(self):
            self._validate_params()
            if key is not None:
                _VALIDATED_PARAMS[self] = key
        first_call = refit or not hasattr(self, "classes_")
        if not refit:
            if first_call and classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit "
                                 "(or set grow_classes=True: the first batch's labels "
                                 "are then the classes, and later batches may add some).")
            if not first_call:
                self._check_same_classes(classes)
        return first_call

    def _begin_dense_fit(self, X, y, classes, sample_weight, refit, check_X=None):
        """The start of a fit of a model of dense numbers (GaussianNB, the
        parametric models, KernelDensityNB): ``_begin_fit``, then X checked
        (``check_X(X, name)``, default ``check_dense_X``), y, the rows' weights
        (sample weights, decayed under ``half_life``), the classes and each row's
        class index, and the fixed priors resolved for those classes.

        Returns (first_call, feature_names, X, weights, fitted_classes, codes,
        priors).
        """
        first_call = self._begin_fit(classes, refit)
        name = type(self).__name__
        feature_names = feature_names_of(X)
        X = (check_X or check_dense_X)(X, name)
        n_samples, n_features = X.shape
        y = check_y(y, n_samples, name)
        weights = row_weights(self.half_life, check_sample_weight(sample_weight, n_samples),
                              n_samples)
        fitted_classes, codes = self._encode_targets(
            y, classes, refit=refit, first_call=first_call, n_features=n_features)
        priors = resolve_priors(self.priors, fitted_classes.shape[0], name="priors",
                                sum_to_one=True)
        return first_call, feature_names, X, weights, fitted_classes, codes, priors

    def _encode_targets(self, y, classes, *, refit, first_call, n_features):
        """The classes of a fit and the class index of each label of y.

        ``fit`` (refit) takes the sorted labels of y; a first ``partial_fit`` the
        given ``classes``; a later one the fitted ``classes_``, whose feature count
        X must keep.
        """
        if refit:
            return encode_labels(y)
        if first_call:
            fitted_classes = np.unique(np.asarray(classes))
            return fitted_classes, encode_with_classes(y, fitted_classes)
        if n_features != self.n_features_in_:
            name = type(self).__name__
            raise ValueError(
                f"Number of features {n_features} does not match previous data "
                f"{self.n_features_in_}. X has {n_features} features, but {name} "
                f"is expecting {self.n_features_in_} features as input."
            )
        return self.classes_, encode_with_classes(y, self.classes_)

    # -- classes that appear later (grow_classes=True) ------------------------------
    def _partial_fit(self, X, y, classes, sample_weight):
        """partial_fit with scikit-learn's contract on classes (a subclass may
        take a shorter path for some batches)."""
        return self._fit(X, y, classes, sample_weight, refit=False)

    def _partial_fit_growing(self, X, y, classes, sample_weight):
        """partial_fit under ``grow_classes=True``: the first call may omit
        ``classes`` (y's labels, and any given, are the classes), and a later
        batch or ``classes`` may bring new labels. A batch with a new class is
        fitted into a copy grown to the union (``_grown_to``, O(classes x
        features) once), committed only when the fit succeeded. A batch
        without ``classes`` first goes the plain way, which checks its labels
        anyway: one without a new class costs exactly what plain
        ``partial_fit`` costs, and only a refused batch looks for new labels."""
        if not hasattr(self, "classes_"):
            return self._partial_fit(X, y, _batch_labels(y, classes), sample_weight)
        if classes is None:
            try:
                return self._partial_fit(X, y, None, sample_weight)
            except ValueError:
                # (the plain call left the model as it was)
                union = self._classes_with(_batch_labels(y, None))
                if union is None:
                    raise       # refused for another reason than a new label
        else:
            union = self._classes_with(_batch_labels(y, classes))
            if union is None:
                return self._partial_fit(X, y, None, sample_weight)
        grown = self._grown_to(union)
        grown._partial_fit(X, y, None, sample_weight)
        # the fit succeeded: this model becomes the grown one
        self.__dict__.clear()
        self.__dict__.update(grown.__dict__)
        return self

    def _classes_with(self, labels):
        """The sorted union of classes_ and ``labels`` (sorted), or None when
        every label is a class (both sorted: a searchsorted, not setdiff1d's
        second sort)."""
        try:
            at = np.searchsorted(self.classes_, labels)
            known = at < self.classes_.shape[0]
            known[known] = self.classes_[at[known]] == labels[known]
            return None if known.all() else np.union1d(self.classes_, labels[~known])
        except TypeError as error:
            raise TypeError(
                f"the labels of this batch do not compare with the fitted classes_ "
                f"{self.classes_!r}: {error}") from error

    def _grown_to(self, classes):
        """A copy of this fitted model whose classes are ``classes`` (sorted, a
        superset of ``classes_``), the new classes with zero statistics: the
        sufficient state with a zero row inserted at each new class (and the
        sparse count table's entry classes renumbered), rebuilt by the model's
        own restore, the path a saved file takes."""
        at = np.searchsorted(classes, self.classes_)
        state = self._sufficient_state()
        spec = self._state_spec_for(["classes"] + sorted(state), _persist.FORMAT_VERSION)
        k = classes.shape[0]
        arrays = {}
        for name, value in state.items():
            value = np.asarray(value)
            axes = spec[name][0]
            if axes and axes[0] == "k":
                grown = np.zeros((k,) + value.shape[1:], dtype=value.dtype)
                grown[at] = value
            elif name.endswith("_class"):   # a class index per table entry
                grown = at[value].astype(value.dtype)
            else:
                grown = value
            arrays[name] = grown
        model = type(self)(**self.get_params(deep=False))
        model._restore(classes, arrays, self.n_features_in_,
                       getattr(self, "feature_names_in_", None))
        return model

    def _check_same_classes(self, classes):
        """A later partial_fit may repeat ``classes``, exactly: the fitted classes,
        in any order, each once (scikit-learn's message)."""
        if classes is None:
            return
        given = np.asarray(classes)
        fitted = self.classes_
        # the usual repeat: the fitted classes themselves, sorted and unique; for
        # numbers of the same dtype, equal bytes are equal values (classes_ holds
        # no NaN), ~2 us sooner than np.array_equal
        if (given.dtype == fitted.dtype and given.dtype.kind in "biuf"
                and given.shape == fitted.shape
                and given.tobytes() == fitted.tobytes()):
            return
        try:
            if given.ndim == 1 and np.array_equal(given, fitted):
                return
            unique = np.unique(given)
            same = (given.ndim == 1 and unique.shape[0] == given.shape[0]
                    and np.array_equal(unique, self.classes_))
        except TypeError:  # labels that do not compare with each other
            same = False
        if not same:
            raise ValueError(
                f"`classes={classes!r}` is not the same as on last call to "
                f"partial_fit, was: {self.classes_!r}"
            )

    def _check_n_features(self, X, *, reset):
        n_features = X.shape[1]
        if reset:
            self.n_features_in_ = n_features
        elif n_features != self.n_features_in_:
            raise ValueError(
                f"X has {n_features} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )

    def _check_feature_names(self, X, *, reset):
        check_feature_names(self, X, reset=reset)

    def _set_feature_names(self, names):
        """Record the feature names of a fit (None: X had none)."""
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def _predict_threads(self, n_samples, work_per_row):
        return threads_for(self.n_threads, n_samples * work_per_row,
                           self._PREDICT_WORK_KIND)

    def _one_document_labels(self, X):
        """``predict`` of one document by a shorter path than the general one, or
        None (the model has none, or X is not such a document): the same label."""
        return None

    def _predict_into(self, X, mode):
        """Validate X and run the model's kernel in one of the PredictModes."""
        X = self._check_predict_X(X)
        n_samples = X.shape[0]
        if mode == MODE_ARGMAX:
            labels = np.empty(n_samples, dtype=np.intp)
            self._run_predict_kernel(X, mode, labels, None)
            return labels
        out = np.empty((n_samples, self.classes_.shape[0]), dtype=np.float64)
        self._run_predict_kernel(X, mode, None, out)
        return out

    # -- the predict API ------------------------------------------------------------
    def predict(self, X):
        """Perform classification on an array of test vectors X.

        The arg-max is fused into the kernel: no (n_samples, n_classes) array is
        made, and for labels of 8-byte numeric dtypes (int64, uint64, float64) the
        class indices are turned into labels in place, so the returned array is the
        only n-sized allocation.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The input samples.

        Returns
        -------
        C : ndarray of shape (n_samples,)
            Predicted target values for X.
        """
        labels = self._one_document_labels(X)
        if labels is not None:
            return labels
        indices = self._predict_into(X, MODE_ARGMAX)
        classes = self.classes_
        if indices.shape[0] <= _SMALL_BATCH:
            return classes[indices]  # the cheapest call for a few rows
        if classes.dtype.kind in "iuf" and classes.dtype.itemsize == indices.itemsize:
            # out[i] depends on indices[i] only, and mode="clip" is not buffered
            # (every index is in range): the labels overwrite their indices.
            return classes.take(indices, out=indices.view(classes.dtype), mode="clip")
        return classes.take(indices)

    def predict_joint_log_proba(self, X):
        """Return the joint log probability estimates log P(c) + log P(x|c).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The input samples.

        Returns
        -------
        C : ndarray of shape (n_samples, n_classes)
            The joint log-probability of the samples for each class, in the order
            of ``classes_``.
        """
        return self._predict_into(X, MODE_JLL)

    def predict_log_proba(self, X):
        """Return log-probability estimates for the test vectors X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The input samples.

        Returns
        -------
        C : ndarray of shape (n_samples, n_classes)
            The log-probability of the samples for each class, in the order of
            ``classes_``.
        """
        return self._predict_into(X, MODE_LOG_PROBA)

    def predict_proba(self, X):
        """Return probability estimates for the test vectors X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The input samples.

        Returns
        -------
        C : ndarray of shape (n_samples, n_classes)
            The probability of the samples for each class, in the order of
            ``classes_``.
        """
        return self._predict_into(X, MODE_PROBA)

    def score(self, X, y, sample_weight=None):
        """Return the mean accuracy on the given test data and labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test samples.
        y : array-like of shape (n_samples,)
            True labels for X.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            Mean accuracy of ``self.predict(X)`` with respect to y.
        """
        correct = self.predict(X) == np.asarray(y).ravel()
        return float(np.average(correct, weights=sample_weight))
