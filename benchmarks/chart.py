"""Draw the side-by-side results: speedups per estimator and operation, and time
against n for fit and predict (GaussianNB, d=100, k=10). Needs matplotlib."""

import numpy as np

from harness import Case, run_case


def scaling_sweep(quick=False, repeats=5):
    """Median times of fit and predict for fastnb and scikit-learn over n."""
    import fastnb
    from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB

    sizes = [1_000, 10_000, 100_000] if quick else [1_000, 10_000, 100_000, 1_000_000]
    rows = []
    for n in sizes:
        rng = np.random.default_rng(n)
        y = rng.integers(0, 10, n)
        X = rng.standard_normal((n, 100)) + 0.1 * y[:, None]
        ours, theirs = fastnb.GaussianNB().fit(X, y), SklearnGaussianNB().fit(X, y)
        loops = max(1, 10_000 // n)
        for operation, a, b in [
            ("fit", lambda: ours.fit(X, y), lambda: theirs.fit(X, y)),
            ("predict", lambda: ours.predict(X), lambda: theirs.predict(X)),
        ]:
            row = run_case(Case(f"n={n}", operation, a, b, inner_loops=loops),
                           max(3, repeats))
            rows.append({"n": n, **row})
    return rows


def draw_chart(results, sweep, path, config):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    compared = [r for r in results if r["speedup"] is not None
                and r["baseline"] == "scikit-learn"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, max(4.5, 0.32 * len(compared))),
                                      gridspec_kw={"width_ratios": [1.3, 1]})
    labels = [f"{r['workload']}  {r['operation']}" for r in compared]
    speedups = [r["speedup"] for r in compared]
    colours = ["#2a9d8f" if (r["ok"] is not False) else "#e76f51" for r in compared]
    positions = np.arange(len(compared))[::-1]
    left.barh(positions, speedups, color=colours)
    for position, value in zip(positions, speedups):
        left.text(value * 1.05, position, f"{value:.1f}x", va="center", fontsize=8)
    left.set_yticks(positions, labels, fontsize=8)
    left.set_xscale("log")
    left.axvline(1.0, color="black", linewidth=0.8)
    left.set_xlabel("speedup over scikit-learn (log scale; red: below its target)")
    left.set_title("fastnb vs scikit-learn, same process, median of runs")

    for operation, marker in (("fit", "o"), ("predict", "s")):
        rows = [r for r in sweep if r["operation"] == operation]
        n = [r["n"] for r in rows]
        right.loglog(n, [r["fastnb_s"] for r in rows], marker=marker,
                     label=f"fastnb {operation}", color="#2a9d8f")
        right.loglog(n, [r["baseline_s"] for r in rows], marker=marker, linestyle="--",
                     label=f"scikit-learn {operation}", color="#264653")
    right.set_xlabel("n_samples (GaussianNB, d=100, k=10)")
    right.set_ylabel("seconds")
    right.set_title("time against n")
    right.legend(fontsize=8)
    right.grid(True, which="both", alpha=0.3)
    fig.suptitle(f"fastnb {config['version']}: {config['threads']} threads, "
                 f"{config['simd']} kernels", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
