"""fastnb.text.HashedTermNames: the terms behind a HashingVectorizer's columns."""

import numpy as np
import pytest

import fastnb
from fastnb.inspection import informative_features, top_contributions
from fastnb.text import CountVectorizer, HashedTermNames, HashingVectorizer

pytest.importorskip("scipy")

DOCS = ["free offer now", "free free meeting", "the cat sat on the mat",
        "meeting at noon today", "offer ends today, free delivery"]


@pytest.mark.parametrize("alternate_sign", [False, True])
@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2)])
def test_every_term_is_named_in_its_column(alternate_sign, ngram_range):
    vectorizer = HashingVectorizer(n_features=2**10, alternate_sign=alternate_sign,
                                   ngram_range=ngram_range, norm=None)
    names = HashedTermNames(vectorizer, max_terms=50).fit(DOCS).get_feature_names_out()
    terms = CountVectorizer(ngram_range=ngram_range).fit(DOCS).get_feature_names_out()
    for term in terms:
        X = vectorizer.transform([term]) if " " not in term else None
        column = _column_of(vectorizer, term)
        shown = names[column].split(" | ")
        assert term in shown or "-" + term in shown
        if X is not None and X.nnz == 1:
            assert ("-" + term in shown) == (X.data[0] < 0)
    seen = {_column_of(vectorizer, t) for t in terms}
    unseen = [j for j in range(2**10) if j not in seen]
    assert all(names[j] == f"x{j}" for j in unseen)


def _column_of(vectorizer, term):
    from fastnb import _text_kernels
    _, columns, _, _ = _text_kernels.hash_features([[term]], vectorizer.n_features,
                                                   vectorizer.alternate_sign)
    return int(columns[0])


def test_collisions_ranked_by_count_and_bounded():
    vectorizer = HashingVectorizer(n_features=2, alternate_sign=False)
    docs = ["aa aa aa bb bb cc dd"]
    names = HashedTermNames(vectorizer, max_terms=2).fit(docs).get_feature_names_out()
    for name in names:
        assert len(name.split(" | ")) <= 2
    counts = {"aa": 3, "bb": 2, "cc": 1, "dd": 1}
    for column, name in enumerate(names):
        in_column = [t for t in counts if _column_of(vectorizer, t) == column]
        expected = sorted(in_column, key=lambda t: (-counts[t], t))[:2]
        assert name.split(" | ") == expected


def test_partial_fit_adds_up():
    vectorizer = HashingVectorizer(n_features=64)
    whole = HashedTermNames(vectorizer, max_terms=10).fit(DOCS)
    parts = HashedTermNames(vectorizer, max_terms=10).fit(DOCS[:2])
    parts.partial_fit(DOCS[2:])
    assert parts.n_documents_ == whole.n_documents_ == len(DOCS)
    np.testing.assert_array_equal(parts.get_feature_names_out(),
                                  whole.get_feature_names_out())


def test_names_in_explanations():
    vectorizer = HashingVectorizer(n_features=2**12, alternate_sign=False, norm=None)
    X = vectorizer.transform(DOCS)
    model = fastnb.MultinomialNB().fit(X, [1, 1, 0, 0, 1])
    names = HashedTermNames(vectorizer).fit(DOCS)
    best = informative_features(model, n=2, feature_names=names)
    assert "free" in best.names[list(best.classes).index(1)]
    top = top_contributions(model, X[:1], n=3, feature_names=names)
    assert set(top.names[0]) <= {"free", "offer", "now", ""}


def test_bad_input():
    with pytest.raises(TypeError, match="HashingVectorizer"):
        HashedTermNames(CountVectorizer()).fit(DOCS)
    with pytest.raises(ValueError, match="max_terms"):
        HashedTermNames(HashingVectorizer(), max_terms=0).fit(DOCS)
    with pytest.raises(ValueError, match="not fitted"):
        HashedTermNames(HashingVectorizer()).get_feature_names_out()
    empty = HashedTermNames(HashingVectorizer(n_features=4)).fit(["a", "."])  # no token
    assert empty.get_feature_names_out().tolist() == ["x0", "x1", "x2", "x3"]


def test_explanations_name_only_the_columns_they_show(monkeypatch):
    """Each inspection call named all 2**20 columns (get_feature_names_out: 255
    ms an informative_features call, 1,000x a one-row predict, issue 51): the
    names shown are made on demand, the same as get_feature_names_out's."""
    vectorizer = HashingVectorizer(n_features=2**20, alternate_sign=True, norm=None)
    X = vectorizer.transform(DOCS)
    model = fastnb.MultinomialNB().fit(abs(X), [1, 1, 0, 0, 1])
    names = HashedTermNames(vectorizer).fit(DOCS[:3])  # some columns unnamed
    everything = names.get_feature_names_out()
    calls = []
    monkeypatch.setattr(HashedTermNames, "get_feature_names_out",
                        lambda self, input_features=None: calls.append(1))
    best = informative_features(model, n=4, feature_names=names)
    shown = best.features >= 0
    np.testing.assert_array_equal(best.names[shown], everything[best.features[shown]])
    assert set(best.names[~shown]) <= {""}
    top = top_contributions(model, abs(X), n=3, feature_names=names)
    shown = top.features >= 0
    np.testing.assert_array_equal(top.names[shown], everything[top.features[shown]])
    assert any(name.startswith("x") for name in top.names[shown])  # unrecorded
    assert not calls
    with pytest.raises(ValueError, match="gives 1048576 names, but the model has 4"):
        informative_features(fastnb.MultinomialNB().fit(np.eye(4), [0, 1, 0, 1]),
                             feature_names=names)
    with pytest.raises(ValueError, match="not fitted"):
        top_contributions(model, abs(X), feature_names=HashedTermNames(vectorizer))
