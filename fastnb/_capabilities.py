"""What each fastnb model reads and promises, declared once on its class.

Every public model class sets ``_capabilities`` to a ``Capabilities`` record; the
base class refuses to define a model without one, and registers it here. The rest
of the library (fastnb.spark, fastnb.dask, fastnb.onnx, fastnb.inspection,
ColumnwiseNB, error messages) reads the record instead of testing classes, so a
new model joins every integration by its registration alone: an integration that
has no code for the record's ``terms`` kind refuses the model by name, at the
call, before any work.

The test suite's common checks (tests/test_common_checks.py) take every
registered model through every feature and integration the record declares, and
check each combination it does not declare is refused with a clear error.
"""

from dataclasses import dataclass, field

__all__ = ["Capabilities", "TERM_KINDS", "capabilities_of", "registered_models"]

# The kinds of X a model reads.
INPUT_KINDS = {
    "continuous": "real numbers, NaN for a missing value",
    "counts": "non-negative counts or presence flags, dense or SciPy CSR",
    "categories": "categories of any type (integer codes, strings, numbers)",
    "mixed": "a table of columns of different kinds (numbers, strings, flags)",
    "positive": "non-negative (PoissonNB, ExponentialNB) or positive (GammaNB, "
                "LogNormalNB) numbers, NaN for a missing value",
}

# The joint-log-likelihood terms of a model: what fastnb.onnx and
# fastnb.inspection write or explain for it. Each kind is one formula for the
# term of feature j in class c; a missing value (NaN) adds nothing.
TERM_KINDS = {
    "gaussian": "log N(x_j; theta_cj, var_cj)",
    "multinomial": "x_j log p_cj",
    "bernoulli": "log p_cj if x_j > binarize else log(1 - p_cj)",
    "complement": "x_j w_cj (ComplementNB's weights)",
    "categorical": "log P(x_j = v | c), looked up by category",
    "composite": "each column's sub-model's term (ColumnwiseNB)",
    "poisson": "x_j log lambda_cj - lambda_cj - log(x_j!)",
    "exponential": "-log scale_cj - x_j / scale_cj",
    "gamma": "(a_cj - 1) log x_j - x_j / s_cj - a_cj log s_cj - log Gamma(a_cj)",
    "lognormal": "log N(log x_j; mu_cj, sigma_cj**2) - log x_j",
    "kde": "log sum_b W_cjb N(x_j; node_jb, h_cj**2) / W_cj, interpolated "
           "between nodes",
}

# ColumnwiseNB's "auto" kinds of column, and the model each is given.
COLUMN_KINDS = ("gaussian", "bernoulli", "categorical")

_REGISTERED = {}

# What a model class must define itself (the base class's contract, see
# fastnb/_base.py): fitting, validation, prediction, and the sufficient state
# that saving, merging and the distributed fits move around.
REQUIRED_HOOKS = (
    "fit", "partial_fit", "_validate_params", "_check_predict_X",
    "_run_predict_kernel", "_sufficient_state", "_check_state_invariants",
    "_restore", "_merged_with",
)


@dataclass(frozen=True)
class Capabilities:
    """The declared capabilities of one fastnb model class.

    Attributes
    ----------
    reads : str
        The kind of X the model reads: a key of ``INPUT_KINDS``.
    terms : str
        The kind of its joint-log-likelihood terms: a key of ``TERM_KINDS``.
    prior_param : str
        The constructor parameter that sets fixed class priors.
    finalising_params : frozenset of str
        Parameters read only when the statistics are turned into the fitted
        model: two fits that differ only in these have equal statistics, and a
        distributed fit applies them once, after the merge.
    nonnegative : bool
        X must be non-negative (a negative value is refused at fit).
    statistics_add : bool
        The statistics of two fits on disjoint rows add up to those of one fit
        on their union: ``fastnb.merge``, fastnb.dask and fastnb.spark are exact.
    forgets : bool
        ``half_life`` is supported (exponential forgetting by row order).
    grows : bool
        ``grow_classes`` is supported.
    reads_text_counts : bool
        A text vectorizer can feed it (fastnb.spark's ``inputCol`` of text).
    generative : bool
        Its joint log likelihood is a log prior plus a sum of log P(x_j | c)
        over its features (ComplementNB's scores are not).
    column_kind : str or None
        The ColumnwiseNB "auto" kind of column this model is given (a member
        of ``COLUMN_KINDS``), or None.
    sub_model : bool
        ColumnwiseNB may combine it: its joint log likelihood is a log prior
        plus a sum of log P(x_j | c) over its features.
    composite : bool
        The model holds sub-models (ColumnwiseNB).
    """

    reads: str
    terms: str
    prior_param: str
    finalising_params: frozenset = field(default_factory=frozenset)
    nonnegative: bool = False
    statistics_add: bool = True
    forgets: bool = True
    grows: bool = True
    reads_text_counts: bool = False
    generative: bool = True
    column_kind: str = None
    sub_model: bool = False
    composite: bool = False

    def __post_init__(self):
        if self.reads not in INPUT_KINDS:
            raise ValueError(f"reads={self.reads!r} is not one of {sorted(INPUT_KINDS)}")
        if self.terms not in TERM_KINDS:
            raise ValueError(f"terms={self.terms!r} is not one of {sorted(TERM_KINDS)}")
        if self.column_kind is not None and self.column_kind not in COLUMN_KINDS:
            raise ValueError(f"column_kind={self.column_kind!r} is not one of "
                             f"{COLUMN_KINDS}")
        if self.sub_model and not self.generative:
            raise ValueError("a ColumnwiseNB sub-model must be generative")
        object.__setattr__(self, "finalising_params", frozenset(self.finalising_params))


def register(cls):
    """Register a public model class (done by ``_BaseNB.__init_subclass__``):
    it must declare its ``Capabilities``."""
    record = cls.__dict__.get("_capabilities")
    if not isinstance(record, Capabilities):
        raise TypeError(
            f"{cls.__name__} must declare its capabilities: set the class attribute "
            "_capabilities = fastnb._capabilities.Capabilities(...) (see that "
            "module), which every integration reads.")
    missing = [hook for hook in REQUIRED_HOOKS if _defined_by(cls, hook) in (None, "_BaseNB")]
    if missing:
        raise TypeError(f"{cls.__name__} must define {', '.join(missing)} (the "
                        "model contract of fastnb._base._BaseNB).")
    if record.prior_param not in cls._get_param_names():
        raise TypeError(f"{cls.__name__}'s prior_param {record.prior_param!r} is not "
                        "one of its parameters.")
    unknown = record.finalising_params - set(cls._get_param_names())
    if unknown:
        raise TypeError(f"{cls.__name__}'s finalising_params {sorted(unknown)} are not "
                        "its parameters.")
    _REGISTERED[cls.__name__] = cls
    return cls


def _defined_by(cls, name):
    """The name of the first class of ``cls``'s MRO that defines ``name``."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__name__
    return None


def registered_models():
    """{name: class} of every registered fastnb model, in registration order."""
    return dict(_REGISTERED)


def is_fastnb_model(obj):
    """``obj`` is an instance of a registered fastnb model class."""
    cls = type(obj)
    return _REGISTERED.get(cls.__name__) is cls


def capabilities_of(obj, *, what="this"):
    """The ``Capabilities`` of a fastnb model (instance or class); a TypeError
    naming the fastnb models for anything else (``what`` names the caller in the
    message, e.g. "fastnb.onnx exports")."""
    cls = obj if isinstance(obj, type) else type(obj)
    if _REGISTERED.get(cls.__name__) is not cls:
        module = getattr(cls, "__module__", "") or ""
        hint = (" (a scikit-learn model: fastnb's has the same name and parameters, "
                "from fastnb import " + cls.__name__ + ")"
                if module.startswith("sklearn") and cls.__name__ in _REGISTERED else "")
        raise TypeError(
            f"{what} takes fastnb models ({', '.join(sorted(_REGISTERED))}), got "
            f"{module + '.' if module else ''}{cls.__name__}{hint}.")
    return cls._capabilities


def models_where(**wanted):
    """The registered classes whose capabilities have the given values."""
    return [cls for cls in _REGISTERED.values()
            if all(getattr(cls._capabilities, key) == value
                   for key, value in wanted.items())]


# -- what every model does with every feature, on every path ---------------------------
#
# The common checks (tests/test_common_checks.py) and the docs' table
# (docs/user_guide/capabilities.rst, made by tools/render_capabilities.py) read
# ``decision``: every (model, feature, path) cell is decided here, from the
# model's record, as supported (the path's result equals the local fit's) or
# refused (a ValueError or TypeError at the driver or constructor, before any
# work, whose message matches ``match``).

FEATURES = {
    "plain": "fit and predict with the defaults",
    "sample_weight": "fit(X, y, sample_weight): a weight of 2 is the row twice",
    "priors": "fixed class priors (priors / class_prior)",
    "missing_values": "NaN in X, marginalised: it adds nothing to the likelihood",
    "half_life": "forgetting: each row's weight halves every half_life rows after it",
    "grow_classes": "partial_fit batches that bring new classes",
    "string_labels": "labels that are strings",
    "float_labels": "labels that are whole-number floats (as MLlib's 0.0, 1.0, ...)",
    "save_load": "save to a path or a binary file object and load it back",
    "merge": "fastnb.merge of fits on disjoint rows equals one fit on their union",
}

PATHS = {
    "local": "fit and predict in this process",
    "dask": "fastnb.dask.fit on Dask collections",
    "spark": "the fastnb.spark estimator on a Spark DataFrame",
    "onnx": "fastnb.onnx.to_onnx, run by onnxruntime",
    "inspection": "fastnb.inspection.contributions: base + terms = joint log likelihood",
}

# The kinds of terms fastnb.onnx converts (from the model's typed terms,
# fastnb/_jll_terms.py) and fastnb.inspection explains (fastnb/inspection/_terms.py
# holds one entry each).
ONNX_TERMS = frozenset({"gaussian", "bernoulli", "multinomial", "complement",
                        "categorical", "composite", "poisson", "exponential",
                        "gamma", "lognormal", "kde"})
INSPECTION_TERMS = ONNX_TERMS


@dataclass(frozen=True)
class Decision:
    """One cell of the matrix: ``supported`` (``why``: under what condition,
    if any), else the reason it is refused and a regular expression the
    refusal's message matches."""

    supported: bool
    why: str = ""
    match: str = ""


_YES = Decision(True)


def decision(cls, feature, path):
    """The ``Decision`` of one (model class, feature, path) cell; a KeyError for
    a feature or path nobody decided."""
    if feature not in FEATURES:
        raise KeyError(f"undecided feature {feature!r}")
    if path not in PATHS:
        raise KeyError(f"undecided path {path!r}")
    record = cls._capabilities
    if feature == "half_life" and not record.forgets:
        return Decision(False, f"{cls.__name__} does not forget", "half_life")
    if feature == "grow_classes" and not record.grows:
        return Decision(False, f"{cls.__name__} does not grow its classes",
                        "grow_classes")
    if feature == "merge" and not record.statistics_add:
        return Decision(False, f"{cls.__name__}'s statistics do not add", "merge")
    if path == "onnx" and record.terms not in ONNX_TERMS:
        return Decision(False, f"no ONNX converter for {record.terms!r} terms",
                        "fastnb.onnx")
    if path == "inspection" and record.terms not in INSPECTION_TERMS:
        return Decision(False, f"no explanation of {record.terms!r} terms",
                        "fastnb.inspection")
    if path in ("dask", "spark"):
        if not record.statistics_add:
            return Decision(False, f"{cls.__name__}'s statistics do not add, so "
                            "partitions cannot be fitted apart", "cannot fit")
        if feature == "half_life" and path == "spark":
            # A row's weight depends on how many rows come after it in the one
            # order of the stream: Spark's rows have no order but a column's
            # (Dask's blocks are in the collection's order).
            return Decision(True, "given orderCol, the column that orders the rows "
                            "(refused without it)")
    return _YES


def decisions(cls):
    """{(feature, path): Decision} for every cell of ``cls``."""
    return {(feature, path): decision(cls, feature, path)
            for feature in FEATURES for path in PATHS}
