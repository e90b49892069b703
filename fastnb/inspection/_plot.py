"""The two standard pictures of fastnb.inspection (matplotlib, imported on use)."""

import numpy as np


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError("the fastnb.inspection plots need matplotlib: "
                          "pip install matplotlib") from error
    return plt


def plot_informative_features(result, *, classes=None, ax=None):
    """Bar charts of each class's most informative features.

    Parameters
    ----------
    result : InformativeFeatures
        From :func:`fastnb.inspection.informative_features`.
    classes : list of labels, default=None
        The classes to draw (default: all of them).
    ax : matplotlib Axes or array of Axes, default=None
        One Axes per class drawn; None makes a figure with a row of them.

    Returns
    -------
    axes : ndarray of matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from fastnb import MultinomialNB
    >>> from fastnb.inspection import informative_features, plot_informative_features
    >>> X = np.array([[3, 0, 1], [0, 2, 2], [4, 1, 0]])
    >>> model = MultinomialNB().fit(X, ["spam", "ham", "spam"])
    >>> axes = plot_informative_features(informative_features(model, n=2))
    >>> len(axes)
    2
    """
    plt = _pyplot()
    wanted = list(result.classes) if classes is None else list(classes)
    rows = []
    for label in wanted:
        found = np.flatnonzero(result.classes == label)
        if found.shape[0] != 1:
            raise ValueError(f"{label!r} is not one of the result's classes.")
        rows.append(int(found[0]))
    if ax is None:
        _, ax = plt.subplots(1, len(rows), figsize=(3.2 * len(rows), 0.3 *
                             result.features.shape[1] + 1.2), squeeze=False,
                             constrained_layout=True)
    axes = np.atleast_1d(np.asarray(ax, dtype=object)).ravel()
    if axes.shape[0] != len(rows):
        raise ValueError(f"ax has {axes.shape[0]} Axes for {len(rows)} classes.")
    for axis, c in zip(axes, rows):
        shown = result.features[c] >= 0
        scores = result.scores[c][shown][::-1]
        labels = result.names[c][shown][::-1]
        axis.barh(np.arange(scores.shape[0]), scores,
                  color=np.where(scores >= 0, "tab:blue", "tab:red"))
        axis.set_yticks(np.arange(scores.shape[0]), labels)
        axis.set_title(str(result.classes[c]))
        axis.set_xlabel("score")
    return axes


def plot_contributions(result, row=0, *, ax=None):
    """One prediction's contributions as a waterfall, from the base to the log-odds.

    Parameters
    ----------
    result : TopContributions
        From :func:`fastnb.inspection.top_contributions`.
    row : int, default=0
        Which row of the result.
    ax : matplotlib Axes, default=None

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from fastnb import MultinomialNB
    >>> from fastnb.inspection import top_contributions, plot_contributions
    >>> X = np.array([[3, 0, 1], [0, 2, 2], [4, 1, 0]])
    >>> model = MultinomialNB().fit(X, ["spam", "ham", "spam"])
    >>> ax = plot_contributions(top_contributions(model, X, n=2), row=0)
    >>> ax.get_title()
    'row 0: spam against ham'
    """
    plt = _pyplot()
    if not 0 <= row < len(result):
        raise ValueError(f"row must be in [0, {len(result)}), got {row}.")
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 0.35 * result.features.shape[1] + 2.0),
                             constrained_layout=True)
    shown = result.features[row] >= 0
    values = result.values[row][shown]
    names = list(result.names[row][shown])
    rest = result.log_odds[row] - result.base[row] - values.sum()
    steps = [("base", result.base[row])] + list(zip(names, values))
    if abs(rest) > 1e-12 * max(1.0, abs(result.log_odds[row])):
        steps.append(("other features", rest))
    level = 0.0
    for i, (name, value) in enumerate(steps):
        color = "tab:gray" if i == 0 else ("tab:blue" if value >= 0 else "tab:red")
        ax.barh(i, value, left=level, color=color)
        level += value
    ax.barh(len(steps), result.log_odds[row], color="black")
    ax.set_yticks(np.arange(len(steps) + 1), [n for n, _ in steps] + ["log-odds"])
    ax.invert_yaxis()
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("log-odds contribution")
    ax.set_title(f"row {row}: {result.explained[row]} against {result.against[row]}")
    return ax
