"""The pyspark.ml Estimators and Models, generated from fastnb's estimators.

Each Spark estimator carries its fastnb class (``fastnb_class``) and has one Spark
``Param`` per parameter of that class, made from the class's own parameter names
and defaults, and checked by the class's own validators when ``fit`` starts; the
column parameters are Spark's shared ones.
"""

import collections
import functools
import hashlib
import inspect
import io
import json
import zlib

import numpy as np
from pyspark.ml import Estimator, Model
from pyspark.ml.param import Param, Params
from pyspark.ml.param.shared import (
    HasFeaturesCol,
    HasInputCol,
    HasInputCols,
    HasLabelCol,
    HasPredictionCol,
    HasProbabilityCol,
    HasRawPredictionCol,
    HasWeightCol,
)
from pyspark.ml.util import MLReadable, MLWritable

from .. import _distributed, _persist
# (importing fastnb.spark has imported fastnb, which registers every model)
from .._capabilities import registered_models
from .._forgetting import forgets
from . import _columns, _ordered
from ._docs import estimator_doc, model_doc
from ._columns import LABEL, WEIGHT

# The stage's parameters that do not change the statistics (with the fastnb
# model's declared finalising parameters): fitMultiple over a grid of these
# counts once.
_OUTPUT_PARAMS = frozenset({"predictionCol", "probabilityCol", "rawPredictionCol",
                            "predictedLabelCol"})
# Rows of Arrow data a task gathers before one fit (and one merge): merging per
# 10,000-row Arrow batch would cost a k x d merge each time (a count model over
# 2**18 hashed features).
_BUFFER_BYTES = 64 << 20
# Dense rows (a dense vector or array column: a model of k x width statistics)
# are fitted batch by batch, merged as they come: joining a task's batches copied
# every value (K1b, 125,000 x 50 a task: the copy and the conversion cost ~0.2x
# the whole transfer, against ~0.4 ms a merge of a GaussianNB's 10 x 50 moments);
# batches of fewer rows than this are joined first.
_DIRECT_MIN_ROWS = 2048
# The models a Python worker has read from the bytes shipped with a transform, by
# the digest of those bytes: Spark reuses its Python workers from task to task, so
# each worker reads a model once, not once per task (reading a 2**18 x 10 count
# model, 42 MB, takes ~0.1 s: more than predicting a 2,500-document partition).
# A few are kept, the last used, so that a worker does not hold every model it
# ever saw.
_WORKER_MODELS = collections.OrderedDict()
_WORKER_MODELS_KEPT = 2
_SHIP_LEVEL = 1


class _FastnbParams(HasFeaturesCol, HasInputCols, HasInputCol, HasLabelCol, HasWeightCol,
                    HasPredictionCol, HasProbabilityCol, HasRawPredictionCol):
    """The column parameters, the vectorizer, and the fastnb class's parameters."""

    vectorizer = Param(
        Params._dummy(), "vectorizer",
        "a fastnb.text vectorizer (HashingVectorizer, or CountVectorizer with a fixed "
        "vocabulary) that turns inputCol's documents into counts inside each task")
    orderCol = Param(
        Params._dummy(), "orderCol",
        "the column that orders the rows, oldest first: a model that forgets "
        "(half_life) weights each row by its age in that order")
    predictedLabelCol = Param(
        Params._dummy(), "predictedLabelCol",
        "the predicted label, in the label column's own type ('' leaves it out)")
    fastnb_class = None
    takes_counts = False
    takes_raw_columns = False

    def _fastnb_params(self):
        return {name: self.getOrDefault(name)
                for name in self.fastnb_class._get_param_names()}

    def _fastnb_estimator(self):
        """An unfitted fastnb estimator with this stage's parameters, validated."""
        estimator = self.fastnb_class(**self._fastnb_params())
        estimator._validate_params()
        vectorizer = self.getOrDefault("vectorizer")
        if vectorizer is not None and not hasattr(vectorizer, "transform"):
            raise TypeError(f"vectorizer must be a fastnb.text vectorizer, got "
                            f"{type(vectorizer).__name__}.")
        return estimator


def _setter(name):
    def set_param(self, value):
        return self._set(**{name: value})

    set_param.__name__ = f"set{name[0].upper()}{name[1:]}"
    set_param.__doc__ = f"""Set ``{name}``.

    Parameters
    ----------
    value : the new value

    Returns
    -------
    self
    """
    return set_param


for _name in ("featuresCol", "inputCols", "inputCol", "vectorizer", "labelCol", "weightCol",
              "orderCol", "predictionCol", "predictedLabelCol", "probabilityCol",
              "rawPredictionCol"):
    _set = _setter(_name)
    setattr(_FastnbParams, _set.__name__, _set)
del _name, _set


def _init_params(stage, kwargs):
    stage._setDefault(vectorizer=None, predictedLabelCol="predictedLabel",
                      **stage._fastnb_defaults)
    unknown = sorted(set(kwargs) - {p.name for p in stage.params})
    if unknown:
        raise TypeError(f"{type(stage).__name__} got unexpected parameters {unknown}; "
                        f"its parameters are {sorted(p.name for p in stage.params)}.")
    stage._set(**kwargs)


class _Persistable(MLWritable, MLReadable):
    """Spark's save and load for estimators and models (fastnb.spark._persistence)."""

    def write(self):
        """A writer that saves this stage (``.write().save(path)``): its parameters,
        and a model's fastnb model file.

        Returns
        -------
        MLWriter
        """
        from ._persistence import StageWriter

        return StageWriter(self)

    @classmethod
    def read(cls):
        """A reader of saved stages of this class (``Stage.load(path)``).

        Returns
        -------
        MLReader
        """
        from ._persistence import StageReader

        return StageReader(cls)


class _SparkEstimator(Estimator, _FastnbParams, _Persistable):
    def __init__(self, **kwargs):
        super().__init__()
        _init_params(self, kwargs)

    def setParams(self, **kwargs):
        """Set parameters by name (fastnb's and the column parameters).

        Returns
        -------
        self
        """
        _init_params(self, kwargs)
        return self

    # -- fitting ----------------------------------------------------------------------
    def _fit(self, dataset):
        return self._finalised(self._statistics(dataset), self, own=True)

    def _statistics(self, dataset):
        """One pass over ``dataset``: the merged model of every partition's data,
        fitted with one kernel thread per task."""
        order = self.getOrDefault("orderCol") if self.isSet("orderCol") else None
        template = _distributed.plan(
            self._fastnb_estimator(), "fastnb.spark", ordered=bool(order),
            remedy="give it the column that orders the rows (orderCol)")
        kind, columns = _columns.input_spec(self, dataset.schema, with_label=True)
        label_type = dataset.schema[self.getLabelCol()].dataType
        exprs = _columns.feature_exprs(kind, columns)
        exprs.append(dataset[self.getLabelCol()].alias(LABEL))
        if self.isSet("weightCol") and self.getWeightCol():
            exprs.append(dataset[self.getWeightCol()].cast("double").alias(WEIGHT))
        ordered = forgets(template.get_params(deep=False).get("half_life")) and order
        if ordered:
            _ordered.check_order_column(dataset.schema, order)
            exprs.append(dataset[order].alias(_ordered.ORDER))
        frame = dataset.select(*exprs)
        if ordered:
            frame = _ordered.sorted_frame(frame)
        try:
            return self._fitted_partitions(frame, template, kind, columns, label_type,
                                           order if ordered else None)
        finally:
            if ordered:
                frame.unpersist()

    def _fitted_partitions(self, frame, template, kind, columns, label_type, order):
        template.set_params(n_threads=1)
        if hasattr(template, "_with_fixed_plan"):
            # estimators="auto" picks sub-models from the data: pick once, from the
            # first rows, so that every task fits the same ones and they merge
            template = template._with_fixed_plan(
                frame.select(*columns).limit(1000).toArrow().to_pandas())
        task = functools.partial(
            _fit_task, template=template, kind=kind, columns=columns,
            vectorizer=self.getOrDefault("vectorizer"),
            nonnegative=self.fastnb_class._capabilities.nonnegative,
            takes_raw=self.takes_raw_columns, label=self.getLabelCol(),
            weight=self.getWeightCol() if self.isSet("weightCol") else None,
            stream=None if order is None else (
                template.half_life, _ordered.positions(frame, order)))
        rows = frame.mapInArrow(task, "model binary, error string").collect()
        _raise_task_error([row.error for row in rows if row.error is not None])
        blobs = [row.model for row in rows]
        if not blobs:
            raise ValueError("The DataFrame has no rows: nothing to fit.")
        return _merged_partitions(blobs, template), \
            kind, columns, label_type, template

    def _finalised(self, statistics, stage, own=False):
        """The Spark model of ``statistics`` with ``stage``'s finalising parameters
        (``fastnb._distributed.finalised``). ``own``: the statistics were made by
        ``stage`` for this model alone, so the merged model may become the model
        itself where its parameters are the stage's already."""
        merged, kind, columns, label_type, template = statistics
        local = _distributed.finalised(merged, stage.fastnb_class(**stage._fastnb_params()),
                                       copy=not own)
        model = self.model_class(_fastnb_model=local, _label_type=label_type)
        stage._copyValues(model)
        if type(local)._capabilities.composite:
            model._set(estimators=local.estimators)  # the sub-models it fitted
        return model

    def fitMultiple(self, dataset, paramMaps):
        """Fit one model per parameter map, counting once per distinct statistics.

        Parameter maps that differ only in how statistics become a model
        (``alpha``, ``force_alpha``, ``fit_prior``, ``class_prior``, ``priors``,
        ``var_smoothing``, ``norm``, the output columns) share one pass over the
        data; each map's model is then made from the merged statistics, as a
        separate fit would make it.

        Parameters
        ----------
        dataset : pyspark.sql.DataFrame
        paramMaps : sequence of dict
            Parameter maps (``{estimator.alpha: 0.5, ...}``).

        Returns
        -------
        iterator of (index, model)
            As ``pyspark.ml.Estimator.fitMultiple``: thread-safe, one model per map.
        """
        stages = [self.copy(param_map) for param_map in paramMaps]
        passes = {}
        models = []
        for stage in stages:
            key = json.dumps(
                {p.name: repr(v) for p, v in stage.extractParamMap().items()
                 if p.name not in _OUTPUT_PARAMS
                 and p.name not in self.fastnb_class._capabilities.finalising_params},
                sort_keys=True)
            if key not in passes:
                passes[key] = stage._statistics(dataset)
            models.append(stage._finalised(passes[key], stage))
        return iter(list(enumerate(models)))


class _SparkModel(Model, _FastnbParams, _Persistable):
    def __init__(self, _fastnb_model=None, _label_type=None, **kwargs):
        super().__init__()
        _init_params(self, kwargs)
        self._local = _fastnb_model
        self._label_type = _label_type

    @property
    def fastnb_model(self):
        """The fitted fastnb model, for local use (an ordinary fastnb estimator)."""
        return self._local

    @property
    def classes_(self):
        """The class labels, sorted (``fastnb_model.classes_``)."""
        return self._local.classes_

    def _transform(self, dataset):
        from pyspark.ml.linalg import VectorUDT
        from pyspark.sql import functions as F
        from pyspark.sql.functions import arrow_udf
        from pyspark.sql.pandas.types import to_arrow_type
        from pyspark.sql.types import DoubleType, StructField, StructType

        kind, columns = _columns.input_spec(self, dataset.schema, with_label=False)
        out_type = StructType([
            StructField("prediction", DoubleType(), False),
            StructField("predictedLabel", self._label_type),
            StructField("probability", VectorUDT(), False),
            StructField("rawPrediction", VectorUDT(), False),
        ])
        blob = _shipped(self._local)
        digest = hashlib.blake2b(blob, digest_size=16).digest()
        task = functools.partial(
            _predict_task, blob=blob, digest=digest, kind=kind,
            columns=columns, vectorizer=self.getOrDefault("vectorizer"),
            takes_raw=self.takes_raw_columns,
            label_type=to_arrow_type(self._label_type))
        names = _columns.feature_names(kind, columns)
        predict = arrow_udf(_typed_udf(task, names), out_type)
        exprs = [e for e in _columns.feature_exprs(kind, columns)]
        scratch = "__fastnb_out"
        out = dataset.withColumn(scratch, predict(*exprs))
        for param, field in ((self.rawPredictionCol, "rawPrediction"),
                             (self.probabilityCol, "probability"),
                             (self.predictionCol, "prediction"),
                             (self.predictedLabelCol, "predictedLabel")):
            name = self.getOrDefault(param)
            if name:
                out = out.withColumn(name, F.col(f"{scratch}.{field}"))
        return out.drop(scratch)


def _typed_udf(task, names):
    """The arrow UDF's function, with the type hints from which pyspark takes its
    kind (an iterator of column tuples to an iterator of arrays); given the kind
    as ``functionType`` instead, pyspark warns at each transform."""
    from typing import Iterator, Tuple

    import pyarrow as pa

    def predict(arrays: Iterator[Tuple[pa.Array, ...]]) -> Iterator[pa.Array]:
        return _predict_batches(arrays, task=task, names=names)

    return predict


# The dense layout of a count model's sufficient statistics (``_STATE_SPEC``).
_DENSE_COUNTS = frozenset({"class_count_", "feature_count_", "missing_count"})


def _sums_counts(model):
    """Whether partitions of ``model``'s kind reach the driver as their non-zero
    counts (``_count_entries``) and merge by summing them (``_summed``): the
    count models, unless they forget (their counts carry their age)."""
    cls = type(model)
    return (hasattr(cls, "_TABLE_STATE_SPEC") and set(cls._STATE_SPEC) == _DENSE_COUNTS
            and getattr(model, "half_life", None) is None)


def _count_entries(model):
    """A count model's statistics as npz bytes of its non-zero counts: its
    classes, class counts, and (class, feature, count) of every non-zero
    feature and missing count. A 2**18 x 10 partition model is 42 MB as a model
    file and ~0.1 s to read back (its log probabilities derived, to be thrown
    away by the merge); its entries are a few MB."""
    state = model._sufficient_state()
    classes, kind = _persist._classes_for_file(model.classes_)
    record = {"classes": classes, "classes_are_objects": np.array(kind == "object-str"),
              "n_features": np.array(int(model.n_features_in_)),
              "class_count": state["class_count_"]}
    for prefix, dense, table in (("count", "feature_count_", "table"),
                                 ("missing", "missing_count", "missing")):
        if "table_count" in state:  # a table holds each (feature, class) pair once
            record[f"{prefix}_class"] = state[f"{table}_class"]
            record[f"{prefix}_feature"] = state[f"{table}_feature"]
            record[f"{prefix}_value"] = state[f"{table}_count"]
        else:
            rows, features = np.nonzero(state[dense])
            record[f"{prefix}_class"], record[f"{prefix}_feature"] = rows, features
            record[f"{prefix}_value"] = state[dense][rows, features]
    handle = io.BytesIO()
    np.savez(handle, **record)
    return handle.getvalue()


def _summed(records, template):
    """The model of the partitions' ``_count_entries``: their counts summed into
    one set of k x d arrays, from which the model is made (and checked, as a
    loaded one is) once; ``fastnb.merge`` pairwise would derive a dense model,
    log probabilities and predict weights, at each of the n - 1 merges."""
    parts = [np.load(io.BytesIO(record), allow_pickle=False) for record in records]
    classes = [part["classes"].astype(object) if part["classes_are_objects"]
               else part["classes"] for part in parts]
    union = functools.reduce(np.union1d, classes)
    k, d = union.shape[0], int(parts[0]["n_features"])
    counts = {"class_count_": np.zeros(k), "feature_count_": np.zeros((k, d)),
              "missing_count": np.zeros((k, d))}
    for part, part_classes in zip(parts, classes):
        rows = np.searchsorted(union, part_classes)
        counts["class_count_"][rows] += part["class_count"]
        for prefix, name in (("count", "feature_count_"), ("missing", "missing_count")):
            # each (class, feature) pair once a partition: += adds every entry
            counts[name][rows[part[f"{prefix}_class"]], part[f"{prefix}_feature"]] += \
                part[f"{prefix}_value"]
    model = type(template)(**template.get_params(deep=False))
    model._restore(union, counts, d, None)
    return model


def _partition_bytes(model):
    """What a fit's task sends the driver for its partition's model, deflated."""
    blob = _count_entries(model) if _sums_counts(model) else _persist.to_bytes(model)
    return zlib.compress(blob, _SHIP_LEVEL)


def _merged_partitions(blobs, template):
    """The merge of the partitions' ``_partition_bytes``."""
    blobs = [zlib.decompress(blob) for blob in blobs]
    if _sums_counts(template):
        return _summed(blobs, template)
    return _distributed.tree_merge([_persist.from_bytes(blob) for blob in blobs])


def _gathered(batches, direct=False):
    """The task's Arrow batches, joined into record batches of about
    ``_BUFFER_BYTES``, so that a task fits (and merges) a few times, not once per
    batch; with ``direct`` (dense rows), each batch of ``_DIRECT_MIN_ROWS`` or more
    as it came (no copy), smaller ones joined up to that many rows."""
    import pyarrow as pa

    pending, size, rows = [], 0, 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        if direct and not pending and batch.num_rows >= _DIRECT_MIN_ROWS:
            yield batch
            continue
        pending.append(batch)
        size += batch.nbytes
        rows += batch.num_rows
        if size >= _BUFFER_BYTES or (direct and rows >= _DIRECT_MIN_ROWS):
            yield pa.Table.from_batches(pending).combine_chunks().to_batches()[0]
            pending, size, rows = [], 0, 0
    if pending:
        yield pa.Table.from_batches(pending).combine_chunks().to_batches()[0]


# What a fit's tasks send back: a partition model, or the error that stopped it.
_TASK_ERRORS = {"ValueError": ValueError, "TypeError": TypeError}


def _raise_task_error(errors):
    """Raise, at the driver, the first error a task met in the data (a null label,
    a negative count): the estimator's own ValueError or TypeError, not an
    executor's stack trace."""
    if errors:
        kind, _, message = errors[0].partition(": ")
        raise _TASK_ERRORS[kind](message)


def _fit_task(batches, **options):
    """mapInArrow: one task's rows to one fastnb model, as the bytes of its file;
    or, where the rows cannot be fitted, the error (``_raise_task_error``)."""
    import pyarrow as pa

    schema = pa.schema([("model", pa.binary()), ("error", pa.string())])
    try:
        blob = _partition_fit(batches, **options)
    except tuple(_TASK_ERRORS.values()) as error:
        yield pa.RecordBatch.from_pydict(
            {"model": [None], "error": [f"{type(error).__name__}: {error}"]}, schema=schema)
        return
    if blob is not None:
        yield pa.RecordBatch.from_pydict({"model": [blob], "error": [None]}, schema=schema)


def _partition_fit(batches, *, template, kind, columns, vectorizer, nonnegative, takes_raw,
                   label, weight, stream):
    """One task's rows to one fastnb model's ``_partition_bytes``, or None;
    ``stream``: (half_life, ``_ordered.positions``) for a model that forgets."""
    model = None
    stream = _ordered.start(stream)
    remaining = None if stream is None else stream[1]
    name = type(template).__name__
    direct = kind in (_columns.VECTOR_DENSE, _columns.ARRAY)
    for batch in _gathered(batches, direct=direct):
        X = _columns.features(batch, kind, columns, takes_raw=takes_raw,
                              vectorizer=vectorizer)
        if nonnegative:
            _columns.check_counts(X, columns, kind, name)
        if takes_raw and kind == _columns.COLUMNS:
            X = X.to_pandas()
        sample_weight = _columns.weights(batch, weight)
        if stream is not None:  # aged by the rows after the batch
            remaining -= batch.num_rows
            sample_weight = _distributed.stream_weights(stream[0], sample_weight,
                                                        batch.num_rows, remaining)
        part = _distributed.fit_block(template, X, _columns.labels(batch, label),
                                      sample_weight=sample_weight)
        model = part if model is None else _persist.merge(model, part)
    _ordered.check_end(stream, remaining)
    return None if model is None else _partition_bytes(model)


def _predict_task(batch, model, *, kind, columns, vectorizer, takes_raw, label_type):
    import pyarrow as pa

    X = _columns.features(batch, kind, columns, takes_raw=takes_raw, vectorizer=vectorizer)
    if takes_raw and kind == _columns.COLUMNS:
        X = X.to_pandas()
    jll = model.predict_joint_log_proba(X)
    top = jll.max(axis=1, keepdims=True)
    proba = np.exp(jll - top)
    proba /= proba.sum(axis=1, keepdims=True)
    index = np.argmax(jll, axis=1)
    labels = model.classes_[index]
    return pa.StructArray.from_arrays(
        [pa.array(_prediction_values(labels, index)), pa.array(labels, type=label_type),
         _dense_vectors(proba), _dense_vectors(jll)],
        names=["prediction", "predictedLabel", "probability", "rawPrediction"])


def _prediction_values(labels, index):
    """The prediction column, a double as Spark's evaluators need it: numeric (and
    boolean) labels as their value, other labels (strings) as their class's
    place in ``classes_``, as MLlib predicts a StringIndexer's index."""
    if labels.dtype.kind in "biuf":
        return labels.astype(np.float64)
    return index.astype(np.float64)


def _dense_vectors(rows):
    """The rows of a matrix as Spark's dense vectors, in VectorUDT's Arrow struct
    (type 1 = dense, no size or indices): Spark reads the struct as the vectors
    themselves, where an array column would need ``array_to_vector`` (a JVM
    object per row; 20% of a 50-feature GaussianNB transform)."""
    import pyarrow as pa

    n, k = rows.shape
    offsets = pa.array(np.arange(0, n * k + 1, k, dtype=np.int32))
    return pa.StructArray.from_arrays(
        [pa.array(np.ones(n, dtype=np.int8)), pa.nulls(n, pa.int32()),
         pa.nulls(n, pa.list_(pa.int32())),
         pa.ListArray.from_arrays(offsets, pa.array(rows.ravel()))],
        names=["type", "size", "indices", "values"])


def _shipped(model):
    """``model``'s file bytes as a transform ships them: deflated, fastest level.
    A count model's k x d arrays are mostly zeros at text scale (a 2**18 x 10
    model: 42 MB, 0.8 MB deflated in ~0.09 s), and a UDF under 1 MB travels with
    each task's plan instead of as a broadcast."""
    return zlib.compress(_persist.to_bytes(model), _SHIP_LEVEL)


def _worker_model(blob, digest):
    """The model of ``blob``, read once per Python worker (``_WORKER_MODELS``)."""
    model = _WORKER_MODELS.pop(digest, None)
    if model is None:
        model = _persist.from_bytes(zlib.decompress(blob))
        model.set_params(n_threads=1)  # Spark runs a task per core: a kernel thread each
        while len(_WORKER_MODELS) >= _WORKER_MODELS_KEPT:
            _WORKER_MODELS.popitem(last=False)
    _WORKER_MODELS[digest] = model
    return model


def _predict_batches(arrays, *, task, names):
    """The arrow UDF: the model of the bytes shipped with the function (read once
    per Python worker), predicting each batch."""
    import pyarrow as pa

    model = _worker_model(task.keywords["blob"], task.keywords["digest"])
    run = functools.partial(task.func, **{k: v for k, v in task.keywords.items()
                                          if k not in ("blob", "digest")})
    for arrays_of_batch in arrays:
        if not isinstance(arrays_of_batch, (tuple, list)):
            arrays_of_batch = (arrays_of_batch,)
        batch = pa.RecordBatch.from_arrays(list(arrays_of_batch), names=names)
        yield run(batch, model)


def _make(fastnb_class, *, takes_counts=False, takes_raw_columns=False):
    """The Estimator and Model classes for ``fastnb_class``."""
    signature = inspect.signature(fastnb_class.__init__).parameters
    names = fastnb_class._get_param_names()
    params = {name: Param(Params._dummy(), name,
                          f"fastnb.{fastnb_class.__name__}'s {name} parameter")
              for name in names}
    shared = dict(params, fastnb_class=fastnb_class, takes_counts=takes_counts,
                  takes_raw_columns=takes_raw_columns,
                  _fastnb_defaults={name: signature[name].default for name in names})
    name = fastnb_class.__name__
    model_class = type(f"{name}Model", (_SparkModel,), dict(
        shared, __module__="fastnb.spark", __qualname__=f"{name}Model",
        __doc__=model_doc(fastnb_class)))
    estimator = type(name, (_SparkEstimator,), dict(
        shared, model_class=model_class, __module__="fastnb.spark", __qualname__=name,
        __doc__=estimator_doc(fastnb_class, names)))
    return estimator, model_class


# An Estimator and a Model class for every registered fastnb model, from its
# declared capabilities: a model a text vectorizer can feed takes counts (sparse
# vectors, inputCol with a vectorizer); one that reads categories or a mixed
# table takes raw columns (inputCols).
__all__ = []
for _fastnb_class in registered_models().values():
    _record = _fastnb_class._capabilities
    _estimator, _model = _make(_fastnb_class, takes_counts=_record.reads_text_counts,
                               takes_raw_columns=_record.reads in ("categories", "mixed"))
    globals()[_estimator.__name__] = _estimator
    globals()[_model.__name__] = _model
    __all__ += [_estimator.__name__, _model.__name__]
__all__ = sorted(__all__)
