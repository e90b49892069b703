"""Real data: ColumnwiseNB on the Palmer penguins against single-model pipelines.

The penguins (344 rows, fastnb.datasets.load_penguins) mix text columns (island,
sex), measurements and a year, with missing values. ColumnwiseNB models them as
they are; scikit-learn's Naive Bayes models need one kind of column, so each
alternative encodes the table first (one-hot or ordinal, measurements binned for
CategoricalNB) and imputes the missing values. Accuracy is the mean over
5-fold stratified cross-validation repeated 20 times (the same splits for all).

Usage::

    python -P benchmarks/penguins_accuracy.py          # prints a markdown table
"""

import numpy as np

from fastnb import ColumnwiseNB
from fastnb.datasets import load_penguins

TEXT = ["island", "sex", "year"]
NUMERIC = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]


def alternatives():
    """name -> an unfitted estimator taking the penguins DataFrame."""
    from sklearn.compose import make_column_transformer
    from sklearn.impute import SimpleImputer
    from sklearn.naive_bayes import CategoricalNB, GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import KBinsDiscretizer, OneHotEncoder, OrdinalEncoder

    def text(encoder):
        return make_pipeline(SimpleImputer(strategy="most_frequent"), encoder)

    numeric = SimpleImputer(strategy="mean")
    binned = make_pipeline(SimpleImputer(strategy="mean"),
                           KBinsDiscretizer(n_bins=5, encode="ordinal",
                                            strategy="quantile"))
    ordinal = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
    onehot = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    return {
        "fastnb ColumnwiseNB (auto, no encoding, no imputation)": ColumnwiseNB(),
        "sklearn GaussianNB, measurements only (mean-imputed)": make_pipeline(
            make_column_transformer((numeric, NUMERIC)), GaussianNB()),
        "sklearn GaussianNB, measurements + one-hot text": make_pipeline(
            make_column_transformer((numeric, NUMERIC), (text(onehot), TEXT)),
            GaussianNB()),
        "sklearn GaussianNB, measurements + ordinal text": make_pipeline(
            make_column_transformer((numeric, NUMERIC), (text(ordinal), TEXT)),
            GaussianNB()),
        "sklearn CategoricalNB, ordinal text + measurements in 5 quantile bins":
            make_pipeline(make_column_transformer((binned, NUMERIC),
                                                  (text(OrdinalEncoder()), TEXT)),
                          CategoricalNB(min_categories=5)),
        "sklearn CategoricalNB, ordinal text only": make_pipeline(
            make_column_transformer((text(OrdinalEncoder()), TEXT)), CategoricalNB()),
    }


def accuracy_table(n_repeats=20, seed=0):
    """[(name, mean accuracy, std over repeats)], best first."""
    from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score

    X, y = load_penguins(return_X_y=True, as_frame=True)
    folds = RepeatedStratifiedKFold(n_splits=5, n_repeats=n_repeats, random_state=seed)
    rows = []
    for name, model in alternatives().items():
        scores = cross_val_score(model, X, y, cv=folds).reshape(n_repeats, 5).mean(axis=1)
        rows.append((name, float(scores.mean()), float(scores.std())))
    return sorted(rows, key=lambda row: -row[1])


def main():
    print("| model | accuracy (5-fold CV x 20) |")
    print("|---|---|")
    for name, mean, std in accuracy_table():
        print(f"| {name} | {mean:.4f} ± {std:.4f} |")


if __name__ == "__main__":
    main()
