"""Dask fit: fastnb against dask-ml's GaussianNB and Incremental(sklearn GaussianNB).

Usage::

    python benchmarks/dask_benchmark.py             # n=20,000,000, d=20, k=5
    python benchmarks/dask_benchmark.py --rows 2e6  # smaller

A LocalCluster of 2 worker processes; the data is generated lazily on the workers
in 1,000,000-row chunks (never gathered). Each fit is timed end to end (the data
generation included, as it is part of every pass); the ratio is how many times
faster fastnb's fit is. Predictions of the three models are compared on a chunk.
"""

import argparse
import time

import numpy as np

N_FEATURES, N_CLASSES = 20, 5


# Cheap, reproducible generators: labels from a hash of the row number, features
# uniform noise shifted by class. The data is generated on the workers in every
# pass, for every method alike, so a slow generator would only measure itself.
def make_y(block_id, rows):
    row = np.arange(block_id[0] * rows, (block_id[0] + 1) * rows, dtype=np.uint64)
    return ((row * np.uint64(2654435761)) >> np.uint64(7)).astype(np.int64) % N_CLASSES


def make_X(block_id, rows):
    X = np.random.Generator(np.random.SFC64(block_id[0])).random((rows, N_FEATURES))
    X += 0.25 * make_y(block_id, rows)[:, None]
    return X


def _computed(model):
    import dask

    model.theta_, model.sigma_, model.class_count_, model.class_prior_ = dask.compute(
        model.theta_, model.sigma_, model.class_count_, model.class_prior_)
    return model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=20e6)
    parser.add_argument("--chunk", type=float, default=1e6)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    import dask.array as da
    from dask_ml.naive_bayes import GaussianNB as DaskMLGaussianNB
    from dask_ml.wrappers import Incremental
    from distributed import Client, LocalCluster
    from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB

    import fastnb
    import fastnb.dask

    rows, chunk = int(args.rows), int(args.chunk)
    n_chunks = rows // chunk
    X = da.map_blocks(lambda block_id=None: make_X(block_id, chunk),
                      chunks=((chunk,) * n_chunks, (N_FEATURES,)), dtype=np.float64,
                      name="fastnb-benchmark-X")
    y = da.map_blocks(lambda block_id=None: make_y(block_id, chunk),
                      chunks=((chunk,) * n_chunks,), dtype=np.int64,
                      name="fastnb-benchmark-y")
    classes = np.arange(N_CLASSES)

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        fits = {
            "fastnb.dask.fit(GaussianNB)": lambda: fastnb.dask.fit(
                fastnb.GaussianNB(), X, y, classes=classes),
            # dask-ml's fit is lazy: its statistics are computed here, as part of it.
            "dask-ml GaussianNB": lambda: _computed(DaskMLGaussianNB().fit(X, y)),
            "dask-ml Incremental(sklearn GaussianNB)": lambda: Incremental(
                SklearnGaussianNB()).fit(X, y, classes=classes),
        }
        # Warm the workers up (imports, first allocations) before timing anything.
        fastnb.dask.fit(fastnb.GaussianNB(), X[:chunk], y[:chunk], classes=classes)
        Incremental(SklearnGaussianNB()).fit(X[:chunk], y[:chunk], classes=classes)
        times, models = {}, {}
        for name, fit in fits.items():
            runs = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                models[name] = fit()
                runs.append(time.perf_counter() - start)
            times[name] = float(np.median(runs))
        X0 = make_X((0,), chunk)[:100_000]
        predictions = {}
        for name, model in models.items():
            estimator = getattr(model, "estimator_", model)
            if name == "dask-ml GaussianNB":
                # dask-ml's predict takes dask arrays only.
                predicted = estimator.predict(da.from_array(X0, chunks=(50_000, -1)))
            else:
                predicted = estimator.predict(X0)
            predictions[name] = np.asarray(predicted.compute() if hasattr(
                predicted, "compute") else predicted)

    ours = "fastnb.dask.fit(GaussianNB)"
    print(f"n={rows:,} d={N_FEATURES} k={N_CLASSES}, {n_chunks} chunks of {chunk:,} "
          f"rows, LocalCluster(2 workers), median of {args.repeats}\n")
    print("| fit | time | fastnb speedup | predictions equal to fastnb's |")
    print("|---|---|---|---|")
    for name, seconds in times.items():
        agree = float(np.mean(predictions[name] == predictions[ours]))
        print(f"| {name} | {seconds:.2f} s | {times[name] / times[ours]:.1f}x | "
              f"{100 * agree:.3f}% |")


if __name__ == "__main__":
    main()
