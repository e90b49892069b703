"""ColumnwiseNB "auto" on integer columns: categories by value (years 2007..2009
are three categories, not codes 0..2009), codes only when the values are 0..n-1;
unseen values later (partial_fit, predict, save/load, a fixed plan) as any
unseen category."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from fastnb import CategoricalNB, ColumnwiseNB
from fastnb.datasets import load_penguins

pd = pytest.importorskip("pandas")


def years_frame(rng, n=300, years=(2007, 2008, 2009)):
    y = rng.integers(0, 3, n)
    year = np.asarray(years)[(rng.integers(0, 2, n) + y) % len(years)]
    frame = pd.DataFrame({"size": rng.normal(size=n) + y, "year": year})
    return frame, y


def test_penguin_years_are_three_categories():
    X, y = load_penguins(return_X_y=True, as_frame=True)
    model = ColumnwiseNB().fit(X, y)
    categorical = model.named_estimators_["categorical"]
    assert dict((n, c) for n, _, c in model.estimators_)["categorical"] == [
        "island", "sex", "year"]
    assert_array_equal(categorical.categories_[2], [2007, 2008, 2009])
    assert categorical.n_categories_.tolist() == [3, 2, 3]
    # P(year=2007 | Adelie): 50 of 152 Adelie, smoothed over three years
    adelie = y == "Adelie"
    expected = (np.sum(X.year[adelie] == 2007) + 1) / (adelie.sum() + 3)
    assert_allclose(np.exp(categorical.feature_log_prob_[2][0, 0]), expected,
                    rtol=1e-12)
    # the same model as the years given as strings
    as_str = ColumnwiseNB().fit(X.assign(year=X.year.astype(str)), y)
    assert_allclose(model.predict_proba(X),
                    as_str.predict_proba(X.assign(year=X.year.astype(str))),
                    rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("as_object", [False, True])
def test_integer_values_equal_their_strings(rng, as_object):
    frame, y = years_frame(rng)
    if as_object:
        frame["year"] = frame["year"].astype(object)
    model = ColumnwiseNB().fit(frame, y)
    expected = ColumnwiseNB().fit(frame.astype({"year": str}), y)
    assert model.named_estimators_["categorical"].n_categories_.tolist() == [3]
    assert_allclose(model.predict_joint_log_proba(frame),
                    expected.predict_joint_log_proba(frame.astype({"year": str})),
                    rtol=1e-12)


def test_unseen_year_in_predict_and_partial_fit(rng, tmp_path):
    frame, y = years_frame(rng)
    early = frame["year"] < 2009
    model = ColumnwiseNB().partial_fit(frame[early], y[early], classes=[0, 1, 2])
    assert_array_equal(model.named_estimators_["categorical"].categories_[0],
                       [2007, 2008])
    # an unseen year predicts as an unseen string does
    as_str = ColumnwiseNB().partial_fit(frame[early].astype({"year": str}), y[early],
                                        classes=[0, 1, 2])
    assert_allclose(model.predict_joint_log_proba(frame),
                    as_str.predict_joint_log_proba(frame.astype({"year": str})),
                    rtol=1e-12)
    # a later batch brings it; through save/load too
    path = tmp_path / "model.fnb"
    model.save(path)
    loaded = fastnb.load(path)
    for fitted in (model, loaded):
        fitted.partial_fit(frame[~early], y[~early])
        assert_array_equal(fitted.named_estimators_["categorical"].categories_[0],
                           [2007, 2008, 2009])
        assert_allclose(fitted.predict_joint_log_proba(frame),
                        ColumnwiseNB().fit(frame, y).predict_joint_log_proba(frame),
                        rtol=1e-12)


def test_codes_0_to_n_minus_1_stay_codes(rng):
    n = 200
    y = rng.integers(0, 2, n)
    codes = (rng.integers(0, 3, n) + y) % 4
    frame = pd.DataFrame({"code": codes, "year": 2000 + codes})
    model = ColumnwiseNB().fit(frame, y)
    categorical = model.named_estimators_["categorical"]
    assert_array_equal(categorical.categories_[0], [0, 1, 2, 3])
    assert_array_equal(categorical.categories_[1], [2000, 2001, 2002, 2003])
    alone = CategoricalNB().fit(frame[["code"]], y)
    assert_allclose(categorical.feature_log_prob_[0], alone.feature_log_prob_[0],
                    rtol=1e-12)
    # a later code beyond the ones seen grows the codes, as CategoricalNB does
    model.partial_fit(pd.DataFrame({"code": [5], "year": [2005]}), [1])
    assert_array_equal(model.named_estimators_["categorical"].categories_[0],
                       np.arange(6))


def test_a_fixed_plan_keeps_the_choice(rng):
    """fastnb.dask fits every partition with the plan chosen on the first."""
    frame, y = years_frame(rng)
    fixed = ColumnwiseNB()._with_fixed_plan(frame).fit(frame, y)
    assert_array_equal(fixed.named_estimators_["categorical"].categories_[0],
                       [2007, 2008, 2009])
    assert_allclose(fixed.predict_joint_log_proba(frame),
                    ColumnwiseNB().fit(frame, y).predict_joint_log_proba(frame),
                    rtol=1e-12)


def test_parts_fitted_apart_merge_into_the_fit_of_the_whole(rng):
    """The choice depends on the values' range, not on which values a part sees:
    a part without 2009, or without code 3, chooses as the whole does."""
    frame, y = years_frame(rng)
    frame["code"] = (rng.integers(0, 3, len(y)) + y) % 4
    first = (frame["year"] < 2009) & (frame["code"] < 3)
    parts = [ColumnwiseNB().fit(frame[rows], y[rows]) for rows in (first, ~first)]
    whole = ColumnwiseNB().fit(frame, y)
    merged = fastnb.merge(*parts)
    for fitted in (merged, whole):
        categorical = fitted.named_estimators_["categorical"]
        assert_array_equal(categorical.categories_[0], [2007, 2008, 2009])
        assert_array_equal(categorical.categories_[1], [0, 1, 2, 3])
    assert_allclose(merged.predict_joint_log_proba(frame),
                    whole.predict_joint_log_proba(frame), rtol=1e-12)
