"""
A Spark text pipeline
=====================

:class:`fastnb.spark.MultinomialNB` reads a Spark string column of documents
(``inputCol``) with a :class:`fastnb.text.HashingVectorizer`: each Spark task
hashes its documents with fastnb's compiled vectorizer and fits on them, and the
driver merges the task models exactly. No Spark vector is ever built. Beside it,
MLlib's usual pipeline: ``Tokenizer`` -> ``HashingTF(2^18)`` -> ``NaiveBayes``.

The data are generated in Spark (40-word documents, 10 classes whose word
frequencies differ), cached and counted before timing, on ``local[2]``; the
session is small here so that the page builds quickly. Workload K1 of
``benchmarks/side_by_side.py`` runs the same comparison on 500,000 documents.
(Times are of one run on whatever machine built this page: read the ratio.)
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from pyspark.ml import Pipeline
from pyspark.ml.classification import NaiveBayes
from pyspark.ml.feature import HashingTF, StringIndexer, Tokenizer
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import fastnb.spark
import fastnb.text

spark = (SparkSession.builder.master("local[2]").appName("fastnb-gallery")
         .config("spark.ui.enabled", "false")
         .config("spark.driver.host", "127.0.0.1")
         .config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.sql.shuffle.partitions", "2")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.driver.memory", "2g").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")

n_docs, n_words, vocabulary, k = 5_000, 40, 20_000, 10
topic = F.col("id") % k
words = [F.concat(F.lit("w"), ((F.floor(F.pow(F.rand(j), 3) * vocabulary) + topic * 7)
                               % vocabulary).cast("int").cast("string"))
         for j in range(n_words)]
docs = (spark.range(n_docs, numPartitions=2)
        .select(F.concat(F.lit("topic-"), topic.cast("string")).alias("topic"),
                F.concat_ws(" ", *words).alias("text")))
# MLlib needs labels 0..k-1 as doubles; fastnb takes the strings as they are.
docs = StringIndexer(inputCol="topic", outputCol="y").fit(docs).transform(docs)
train, test = docs.randomSplit([0.8, 0.2], seed=0)
train, test = train.cache(), test.cache()
print(train.count(), "training documents,", test.count(), "test documents")
print(train.first().text[:80], "...")

# %%
# The two pipelines
# -----------------
#
# ``alternate_sign=False, norm=None``: MultinomialNB reads raw counts.

fastnb_pipeline = fastnb.spark.MultinomialNB(
    inputCol="text", labelCol="topic",
    vectorizer=fastnb.text.HashingVectorizer(n_features=2**18, alternate_sign=False,
                                             norm=None))
mllib_pipeline = Pipeline(stages=[
    Tokenizer(inputCol="text", outputCol="words"),
    HashingTF(inputCol="words", outputCol="tf", numFeatures=2**18),
    NaiveBayes(featuresCol="tf", labelCol="y")])


def timed(function, repeats=1):
    """The best of ``repeats`` runs after a warm-up (which starts the Python workers
    and compiles the JVM code), and the last result."""
    result = function()
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def transform_to_end(model):
    # Spark is lazy: write every output column to the noop sink to time it all.
    return lambda: model.transform(test).write.format("noop").mode("overwrite").save()


times = {}
times["fastnb", "fit"], fastnb_model = timed(lambda: fastnb_pipeline.fit(train))
times["MLlib", "fit"], mllib_model = timed(lambda: mllib_pipeline.fit(train))
times["fastnb", "transform"], _ = timed(transform_to_end(fastnb_model))
times["MLlib", "transform"], _ = timed(transform_to_end(mllib_model))

fastnb_accuracy = (fastnb_model.transform(test).where("predictedLabel = topic").count()
                   / test.count())
mllib_accuracy = (mllib_model.transform(test).where("prediction = y").count()
                  / test.count())
print(f"accuracy: fastnb {fastnb_accuracy:.4f}, MLlib {mllib_accuracy:.4f}")
for operation in ("fit", "transform"):
    print(f"{operation}: fastnb {times['fastnb', operation]:.2f} s, "
          f"MLlib {times['MLlib', operation]:.2f} s, "
          f"{times['MLlib', operation] / times['fastnb', operation]:.1f}x")

# %%
# The timings
# -----------
#
# fastnb moves only the strings to Python and hashes them with compiled code;
# MLlib tokenises, hashes and builds a sparse vector per document in the JVM,
# then sums them.

fig, ax = plt.subplots(figsize=(7, 3), layout="constrained")
operations = ["fit", "transform"]
positions = np.arange(len(operations))
for offset, library, colour in ((-0.2, "fastnb", "tab:blue"), (0.2, "MLlib", "tab:gray")):
    values = [times[library, op] for op in operations]
    bars = ax.barh(positions + offset, values, height=0.4, color=colour, label=library)
    ax.bar_label(bars, labels=[f"{v:.2f} s" for v in values], padding=3)
ax.set_yticks(positions, [f"{op}\n({times['MLlib', op] / times['fastnb', op]:.1f}x)"
                          for op in operations])
ax.invert_yaxis()
ax.set_xlabel(f"seconds after a warm-up, {train.count():,} training documents, "
              "local[2]")
ax.set_title("Spark text pipeline: fastnb.spark vs MLlib")
ax.legend(loc="lower right")
ax.margins(x=0.2)
plt.show()

# %%
# The fitted fastnb model is an ordinary local model too:
print(type(fastnb_model.fastnb_model).__name__, fastnb_model.fastnb_model.classes_[:3])
spark.stop()
