"""Small printable demonstrations of fastnb estimators (wired into ``python -m fastnb``)."""

import math

import numpy as np

__all__ = ["categorical_seed_demo", "categorical_seed_data"]


def categorical_seed_data():
    """The census example of the Naive Bayes article (seed 002), as raw strings.

    Three features (native-country, hours-per-week, occupation) and two income
    classes of three people each. Within '>50K' the query's values
    (United-States, 40, Exec-managerial) occur 1, 2 and 1 times out of 3; within
    '<=50K' 2, 2 and 2 times out of 3.

    Returns
    -------
    X : ndarray of shape (6, 3), dtype=object
    y : ndarray of shape (6,)
    query : ndarray of shape (1, 3), dtype=object
    """
    X = np.array(
        [
            ["United-States", "40", "Exec-managerial"],
            ["India", "40", "Prof-specialty"],
            ["Germany", "50", "Sales"],
            ["United-States", "40", "Exec-managerial"],
            ["United-States", "40", "Exec-managerial"],
            ["Mexico", "30", "Craft-repair"],
        ],
        dtype=object,
    )
    y = np.array([">50K", ">50K", ">50K", "<=50K", "<=50K", "<=50K"])
    query = np.array([["United-States", "40", "Exec-managerial"]], dtype=object)
    return X, y, query


def categorical_seed_demo():
    """Fit CategoricalNB on the seed article's census example; return printable text.

    Examples
    --------
    >>> from fastnb._demos import categorical_seed_demo
    >>> print(categorical_seed_demo().splitlines()[-1])
    predicted: <=50K (the article's answer: <=50K)
    """
    from ._categorical import CategoricalNB

    X, y, query = categorical_seed_data()
    model = CategoricalNB(alpha=1e-12, force_alpha=True).fit(X, y)
    jll = model.predict_joint_log_proba(query)[0]
    expected = {">50K": 2 / 27, "<=50K": 8 / 27}
    lines = [
        "CategoricalNB on raw strings: Naive Bayes as a table of value counts per class",
        "(article 002's census example; no encoder, alpha ~ 0)",
        "query: native-country=United-States, hours-per-week=40, "
        "occupation=Exec-managerial",
    ]
    for c, label in enumerate(model.classes_):
        likelihood = math.exp(jll[c] - model.class_log_prior_[c])
        lines.append(
            f"  P(x | {label:>5}) = {likelihood:.6f}   article: "
            f"{expected[str(label)]:.6f}   P({label}) = "
            f"{math.exp(model.class_log_prior_[c]):.3f}"
        )
    lines.append(
        f"predicted: {model.predict(query)[0]} (the article's answer: <=50K)"
    )
    return "\n".join(lines)
