"""How long moving a Spark vector column into Python takes, route by route.

Usage::

    python -P benchmarks/spark_transfer_routes.py            # 1,000,000 x 50, 500,000 docs
    python -P benchmarks/spark_transfer_routes.py --quick    # small sizes, prints only

A full-size run also writes ``docs/user_guide/spark_transfer_routes.csv``, the
table docs/user_guide/spark.rst shows.

On local[2] with cached, counted input (benchmarks/workloads_spark.py's data and
session): MLlib's gaussian NaiveBayes fit and transform, then each way a Python
task can receive the same dense vectors as one NumPy matrix per Arrow batch
(``vector_to_array`` + ``mapInArrow``; ``unwrap_udt`` + ``mapInArrow``; the
VectorUDT column straight into ``mapInArrow``, which gives its struct; 50
separate double columns), and for sparse vectors (HashingTF 2**18 of 40-word
documents) the Arrow struct turned into CSR. Each figure is the best of
``--repeats`` after a warm-up.
"""

import argparse
import csv
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import workloads_spark as ws  # noqa: E402

TABLE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "user_guide" \
    / "spark_transfer_routes.csv"


def _best(function, repeats):
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def _empty():
    import pyarrow as pa

    return pa.RecordBatch.from_pylist([], schema=pa.schema([("n", pa.int64())]))


def _dense_struct(batches):
    """A dense VectorUDT struct (type, size, indices, values) to NumPy."""
    for batch in batches:
        values = batch.column(0).field("values").values
        np.asarray(values.to_numpy(zero_copy_only=False)).reshape(batch.num_rows, -1)
    yield _empty()


def _columns(batches):
    """d double columns to one (n, d) NumPy matrix."""
    for batch in batches:
        X = np.empty((batch.num_rows, batch.num_columns))
        for j in range(batch.num_columns):
            X[:, j] = batch.column(j).to_numpy(zero_copy_only=False)
    yield _empty()


def _sparse_struct(batches):
    """A sparse VectorUDT struct to a CSR matrix (fastnb.spark's reader)."""
    from fastnb.spark._columns import _vector_rows

    for batch in batches:
        _vector_rows(batch.column(0), "features")
    yield _empty()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    from pyspark.ml.classification import NaiveBayes
    from pyspark.ml.feature import HashingTF, Tokenizer
    from pyspark.ml.functions import vector_to_array
    from pyspark.sql import functions as F

    sizes = ws._sizes(args.quick)
    spark = ws.session()
    rows = []
    section = {}

    def report(name, seconds):
        rows.append((section["name"], name, f"{seconds:.2f}"))
        print(f"| {name} | {seconds:.2f} s |", flush=True)

    n = sizes["dense"]
    section["name"] = f"dense {n:,} x 50"
    print(f"| dense: {n:,} x 50 VectorUDT, k={ws.N_CLASSES}, {ws.PARTITIONS} partitions "
          "| best time |\n|---|---|")
    data = ws.cached(ws.dense_frame(spark, n))
    mllib = NaiveBayes(modelType="gaussian")
    report("MLlib NaiveBayes gaussian fit", _best(lambda: mllib.fit(data), args.repeats))
    model = mllib.fit(data)
    report("MLlib transform (noop sink)",
           _best(lambda: ws.run_to_end(model.transform(data)), args.repeats))
    report("vector_to_array + mapInArrow (the floor)",
           _best(lambda: ws.transfer_floor_fit(data), args.repeats))
    report("VectorUDT struct straight into mapInArrow",
           _best(lambda: data.select("features").mapInArrow(_dense_struct, "n long")
                 .collect(), args.repeats))
    report("unwrap_udt + mapInArrow",
           _best(lambda: data.select(F.unwrap_udt("features").alias("f"))
                 .mapInArrow(_dense_struct, "n long").collect(), args.repeats))
    report("arrow UDF reading vector_to_array, one double back (transform floor)",
           _best(lambda: ws.transfer_floor_transform(data), args.repeats))
    wide = ws.cached(data.select(*[vector_to_array("features")[j].alias(f"x{j}")
                                   for j in range(50)]))
    data.unpersist()
    report("50 double columns + mapInArrow",
           _best(lambda: wide.mapInArrow(_columns, "n long").collect(), args.repeats))
    wide.unpersist()

    n = sizes["text"]
    section["name"] = f"sparse, {n:,} documents"
    print(f"\n| sparse: HashingTF 2^18 of {n:,} documents of {ws.N_WORDS} words "
          "| best time |\n|---|---|")
    words = Tokenizer(inputCol="text", outputCol="words").transform(
        ws.text_frame(spark, n))
    tf = ws.cached(HashingTF(inputCol="words", outputCol="features",
                             numFeatures=ws.TEXT_FEATURES).transform(words)
                   .select("features"))
    report("VectorUDT struct -> CSR (mapInArrow)",
           _best(lambda: tf.mapInArrow(_sparse_struct, "n long").collect(), args.repeats))
    report("unwrap_udt -> CSR (mapInArrow)",
           _best(lambda: tf.select(F.unwrap_udt("features").alias("features"))
                 .mapInArrow(_sparse_struct, "n long").collect(), args.repeats))
    tf.unpersist()
    spark.stop()
    if not args.quick:
        with open(TABLE, "w", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(["data", "route", "seconds (best of "
                             f"{args.repeats}, local[2])"])
            writer.writerows(rows)
    return rows


if __name__ == "__main__":
    main()
