"""Small printable demonstrations (called by ``python -m fastnb``)."""

import numpy as np

__all__ = ["bernoulli_seed_demo"]

# 13 people: likes shortbread, likes lager, eats porridge, watched England play
# football; nationality (1 Scottish, 0 English). From the article "Naive Bayes
# classifier in Matlab" (seed 003).
_SEED_DATA = np.array([
    [0, 0, 1, 1, 0], [1, 0, 1, 0, 0], [1, 1, 0, 1, 0], [1, 1, 0, 0, 0],
    [0, 1, 0, 1, 0], [0, 0, 1, 0, 0], [1, 0, 1, 1, 1], [1, 1, 0, 1, 1],
    [1, 1, 1, 0, 1], [1, 1, 1, 0, 1], [1, 1, 1, 1, 1], [1, 0, 1, 0, 1],
    [1, 0, 0, 0, 1],
], dtype=np.uint8)
_FEATURES = ["likes shortbread", "likes lager", "eats porridge", "watched England"]


def bernoulli_seed_demo():
    """Bernoulli NB on the article's Scottish/English data, as printable text.

    Fits :class:`fastnb.BernoulliNB` on a bool matrix with (almost) no smoothing,
    classifies x = [1 0 1 0], and sets the posterior beside the one counted by
    hand from the article's data: 160/209.

    Returns
    -------
    text : str

    Examples
    --------
    >>> from fastnb._demos import bernoulli_seed_demo
    >>> print(bernoulli_seed_demo().splitlines()[-1])
    x = [1 0 1 0] is Scottish
    """
    from ._discrete import BernoulliNB

    X = _SEED_DATA[:, :4].astype(bool)
    y = _SEED_DATA[:, 4]
    x = np.array([[1, 0, 1, 0]], dtype=bool)
    model = BernoulliNB(alpha=1e-10, force_alpha=True).fit(X, y)
    proba = model.predict_proba(x)[0]
    p_feature = np.exp(model.feature_log_prob_)
    lines = [
        "Bernoulli Naive Bayes: 13 people, 4 binary features, Scottish (1) or English (0)",
        f"  class counts: English {model.class_count_[0]:.0f}, "
        f"Scottish {model.class_count_[1]:.0f}",
    ]
    for j, feature in enumerate(_FEATURES):
        lines.append(
            f"  P({feature:<17}| English) = {p_feature[0, j]:.3f}   "
            f"P(...| Scottish) = {p_feature[1, j]:.3f}"
        )
    by_hand = 160 / 209  # (1 * 3/7 * 5/7 * 4/7 * 7/13) / (that + 1/16 * 6/13)
    lines += [
        f"  P(Scottish | x) = {proba[1]:.4f}   (by hand from the counts: 160/209 = "
        f"{by_hand:.4f})",
        f"x = [1 0 1 0] is {'Scottish' if model.predict(x)[0] == 1 else 'English'}",
    ]
    return "\n".join(lines)
