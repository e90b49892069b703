"""The two standard pictures of fastnb.inspection (matplotlib, imported on use)."""

import numpy as np


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError("the fastnb.inspection plots need matplotlib: "
                          "pip install matplotlib") from error
    return plt


# plot_informative_features: columns of Axes in the default grid, and the size of
# one Axes (inches: a width, and a height that grows with the bars it holds).
DEFAULT_NCOLS = 4
_AXES_WIDTH = 3.4
_BAR_HEIGHT = 0.28
_AXES_EXTRA_HEIGHT = 1.1
# Colours of the kinds of score, where one result holds several (ColumnwiseNB).
_KIND_COLOURS = {"gaussian": "tab:orange", "categorical": "tab:blue",
                 "counts": "tab:green", "complement": "tab:purple"}


def plot_informative_features(result, *, classes=None, ncols=None, ax=None):
    """Bar charts of each class's most informative features, in a grid.

    Parameters
    ----------
    result : InformativeFeatures
        From :func:`fastnb.inspection.informative_features`.
    classes : list of labels, default=None
        The classes to draw (default: all of them).
    ncols : int, default=None
        Axes per row of the grid: None is ``min(4, number of classes drawn)``,
        so that many classes wrap onto more rows, not one wider figure.
    ax : matplotlib Axes or array of Axes, default=None
        One Axes per class drawn (any layout, read in order); None makes a
        figure of ``ncols`` columns, Axes left over in its last row hidden.

    Returns
    -------
    axes : ndarray of matplotlib Axes
        One per class drawn, in order.

    Notes
    -----
    For a ColumnwiseNB the bars of different sub-models hold scores of
    different units (a standardised mean difference, a log-probability ratio:
    ``result.score_kinds``): each kind has its colour, named in a legend, and
    the figure's title says that they are ranked together though not of one
    unit.

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
    if not rows:
        raise ValueError("classes names no class to draw.")
    if ncols is not None and (isinstance(ncols, bool) or not isinstance(
            ncols, (int, np.integer)) or ncols < 1):
        raise ValueError(f"ncols must be an int >= 1, got {ncols!r}.")
    kinds = _kinds_of(result)
    mixed = len(set(kinds.ravel()) - {""}) > 1
    if ax is None:
        columns = min(DEFAULT_NCOLS if ncols is None else int(ncols), len(rows))
        grid_rows = -(-len(rows) // columns)
        height = _BAR_HEIGHT * result.features.shape[1] + _AXES_EXTRA_HEIGHT
        figure, grid = plt.subplots(
            grid_rows, columns, squeeze=False, constrained_layout=True,
            figsize=(_AXES_WIDTH * columns, height * grid_rows + (0.6 if mixed else 0)))
        grid = grid.ravel()
        for unused in grid[len(rows):]:
            unused.set_visible(False)
        axes = grid[:len(rows)]
    else:
        axes = np.atleast_1d(np.asarray(ax, dtype=object)).ravel()
        if axes.shape[0] != len(rows):
            raise ValueError(f"ax has {axes.shape[0]} Axes for {len(rows)} classes.")
        figure = axes[0].figure
    single_unit = _single_unit(result, kinds)
    for axis, c in zip(axes, rows):
        shown = result.features[c] >= 0
        scores = result.scores[c][shown][::-1]
        labels = result.names[c][shown][::-1]
        if mixed:
            colours = [_KIND_COLOURS.get(kind, "tab:gray")
                       for kind in kinds[c][shown][::-1]]
        else:
            colours = np.where(scores >= 0, "tab:blue", "tab:red")
        axis.barh(np.arange(scores.shape[0]), scores, color=colours)
        axis.set_yticks(np.arange(scores.shape[0]), labels)
        axis.axvline(0.0, color="black", linewidth=0.6)
        axis.margins(x=0.08)
        axis.set_title(str(result.classes[c]))
        axis.set_xlabel("score (mixed units)" if mixed else f"score: {single_unit}")
    if mixed:
        from matplotlib.patches import Patch

        present = [kind for kind in _KIND_COLOURS if np.any(kinds == kind)]
        figure.legend(handles=[Patch(color=_KIND_COLOURS[kind], label=_unit(kind))
                               for kind in present],
                      loc="outside lower center", ncols=len(present), fontsize="small")
        figure.suptitle("Scores of different kinds, not of one unit, ranked together "
                        "by |score|", fontsize="medium")
    return axes


def _kinds_of(result):
    kinds = getattr(result, "score_kinds", None)
    if kinds is None:
        return np.full(result.features.shape, "", dtype=object)
    return np.asarray(kinds, dtype=object)


def _unit(kind):
    from ._informative import SCORE_UNITS

    return SCORE_UNITS.get(kind, kind)


def _single_unit(result, kinds):
    present = sorted(set(kinds.ravel()) - {""})
    return _unit(present[0]) if len(present) == 1 else "see result.score"


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
        _, ax = plt.subplots(figsize=(8.0, 0.35 * result.features.shape[1] + 2.0),
                             constrained_layout=True)
    shown = result.features[row] >= 0
    values = result.values[row][shown]
    names = list(result.names[row][shown])
    rest = result.log_odds[row] - result.base[row] - values.sum()
    steps = [("base", result.base[row])] + list(zip(names, values))
    if abs(rest) > 1e-12 * max(1.0, abs(result.log_odds[row])):
        steps.append(("other features", rest))
    level, ends = 0.0, []
    for i, (name, value) in enumerate(steps):
        color = "tab:gray" if i == 0 else ("tab:blue" if value >= 0 else "tab:red")
        ax.barh(i, value, left=level, color=color, height=0.7)
        level += value
        ends.append((level, value))  # the bar's end on the side its value points
    ax.barh(len(steps), result.log_odds[row], color="black", height=0.7)
    ends.append((result.log_odds[row], result.log_odds[row]))
    for i, (end, value) in enumerate(ends):
        signed = 0 < i < len(ends) - 1  # the steps; base and total as they are
        ax.annotate(f"{value:+.3g}" if signed else f"{value:.3g}", (end, i),
                    xytext=(3 if value >= 0 else -3, 0), textcoords="offset points",
                    va="center", ha="left" if value >= 0 else "right",
                    fontsize="small")
    ax.set_yticks(np.arange(len(steps) + 1), [n for n, _ in steps] + ["log-odds"])
    ax.invert_yaxis()
    ax.axvline(0.0, color="black", linewidth=0.8)
    # bars off the frame, and room beyond them for the labels
    reach = [0.0] + [end for end, _ in ends] + [end - value for end, value in ends]
    low, high = min(reach), max(reach)
    pad = 0.2 * (high - low) if high > low else 1.0
    ax.set_xlim(low - pad, high + pad)
    ax.margins(y=0.04)
    ax.set_xlabel("log-odds contribution")
    explained, against = result.explained[row], result.against[row]
    ax.set_title(f"row {row}: {explained} against {against}")
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color="tab:gray", label="base (priors)"),
                       Patch(color="tab:blue", label=f"for {explained}"),
                       Patch(color="tab:red", label=f"for {against}"),
                       Patch(color="black", label="log-odds (the sum)")],
              loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    return ax
