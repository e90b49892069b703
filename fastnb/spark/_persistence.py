"""MLWriter and MLReader for fastnb.spark stages, through DataFrames only.

A saved stage is Spark's usual ``metadata/`` (its class, uid and parameters, as
``DefaultParamsWriter`` writes them, so a ``Pipeline`` or ``PipelineModel`` holding
it saves and loads), and for a model ``data/``: a Parquet table of one row whose
one binary value is fastnb's own model file (``fastnb.load`` reads it, checked as
untrusted input). Both are written and read by the SparkSession's DataFrame API,
not the SparkContext, so this works under Spark Connect and on any filesystem
Spark writes to.
"""

import os

import numpy as np
from pyspark.ml.util import DefaultParamsReader, DefaultParamsWriter, MLReader, MLWriter

from .. import _persist


def _vectorizer_to_json(vectorizer):
    if vectorizer is None:
        return None
    from .. import text

    name = type(vectorizer).__name__
    if getattr(text, name, None) is not type(vectorizer):
        raise ValueError(f"Cannot save vectorizer {vectorizer!r}: only fastnb.text "
                         "vectorizers are saved.")
    params = {}
    for key, value in vectorizer.get_params().items():
        if isinstance(value, type) and issubclass(value, np.generic):
            value = {"dtype": np.dtype(value).name}
        elif isinstance(value, tuple):
            value = {"tuple": list(value)}
        elif isinstance(value, dict):
            value = {"dict": [[k, int(v)] for k, v in value.items()]}
        elif isinstance(value, (frozenset, set)):
            value = sorted(value)
        elif callable(value):
            raise ValueError(f"Cannot save vectorizer parameter {key}: a callable.")
        params[key] = value
    return {"class": name, "params": params}


def _vectorizer_from_json(spec):
    if spec is None:
        return None
    from .. import text

    cls = getattr(text, spec["class"])
    params = {}
    for key, value in spec["params"].items():
        if isinstance(value, dict) and "dtype" in value:
            value = np.dtype(value["dtype"]).type
        elif isinstance(value, dict) and "tuple" in value:
            value = tuple(value["tuple"])
        elif isinstance(value, dict) and "dict" in value:
            value = dict((k, v) for k, v in value["dict"])
        params[key] = value
    return cls(**params)


class StageWriter(MLWriter):
    """Saves a fastnb.spark estimator or model (``stage.write().save(path)``)."""

    def __init__(self, instance):
        super().__init__()
        self.instance = instance

    def saveImpl(self, path):
        stage = self.instance
        fastnb_names = set(stage.fastnb_class._get_param_names())
        model = getattr(stage, "fastnb_model", None)
        params = {}
        for param, value in stage._paramMap.items():
            if param.name == "vectorizer":
                value = _vectorizer_to_json(value)
            elif param.name in fastnb_names:
                if model is not None:
                    continue  # the model file holds them
                value = _persist._json_param(param.name, value)
            params[param.name] = value
        extra = None
        if model is not None:
            extra = {"labelType": stage._label_type.json()}
        spark = self.sparkSession
        DefaultParamsWriter.saveMetadata(stage, path, spark, extraMetadata=extra,
                                         paramMap=params)
        if model is not None:
            blob = bytearray(_persist.to_bytes(model))
            spark.createDataFrame([(blob,)], "model binary").write.parquet(
                os.path.join(path, "data"))


class StageReader(MLReader):
    """Loads what ``StageWriter`` saved (``Stage.load(path)``)."""

    def __init__(self, cls):
        super().__init__()
        self.cls = cls

    def load(self, path):
        spark = self.sparkSession
        metadata = DefaultParamsReader.loadMetadata(path, spark)
        expected = f"{self.cls.__module__}.{self.cls.__name__}"
        if metadata["class"] != expected:
            raise ValueError(f"{path} holds a {metadata['class']}, not a {expected}.")
        params = dict(metadata["paramMap"])
        if "vectorizer" in params:
            params["vectorizer"] = _vectorizer_from_json(params["vectorizer"])
        fastnb_names = set(self.cls.fastnb_class._get_param_names())
        for name in fastnb_names & set(params):
            params[name] = _persist._param_from_json(name, params[name])
        kwargs = {}
        if hasattr(self.cls, "fastnb_model"):
            from pyspark.sql.types import _parse_datatype_json_string

            row = spark.read.parquet(os.path.join(path, "data")).head()
            model = _persist.from_bytes(bytes(row[0]))
            params.update(model.get_params(deep=False))
            kwargs = {"_fastnb_model": model,
                      "_label_type": _parse_datatype_json_string(metadata["labelType"])}
        stage = self.cls(**kwargs, **params)
        stage._resetUid(metadata["uid"])
        return stage
