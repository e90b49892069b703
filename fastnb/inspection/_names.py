"""Feature names for fastnb.inspection's results."""

import numpy as np


def resolve_feature_names(model, feature_names):
    """The names of a model's n_features_in_ columns, as an object array, or None
    when they are the default "x0", "x1", ... (made only for the columns shown:
    a model of 2**20 hashed features needs no million strings)."""
    n_features = model.n_features_in_
    if feature_names is None:
        names = getattr(model, "feature_names_in_", None)
        return None if names is None else np.asarray(names, dtype=object)
    if hasattr(feature_names, "_names_of"):
        # names made on demand (fastnb.text.HashedTermNames): only those shown
        count = feature_names._n_names()
        if count != n_features:
            raise ValueError(
                f"{type(feature_names).__name__} gives {count} names, but the model "
                f"has {n_features} features.")
        return _NamesOnDemand(feature_names)
    if hasattr(feature_names, "get_feature_names_out"):
        source = type(feature_names).__name__
        names = feature_names.get_feature_names_out()
    else:
        source = "feature_names"
        if isinstance(feature_names, str):
            raise TypeError("feature_names must be a list of names, not one string.")
        names = feature_names
    names = np.asarray(names, dtype=object)
    if names.ndim != 1 or names.shape[0] != n_features:
        raise ValueError(
            f"{source} gives {names.shape[0] if names.ndim == 1 else names.shape} "
            f"names, but the model has {n_features} features.")
    return names


def names_at(names, features):
    """The names of the column indices ``features`` (-1: "")."""
    out = np.empty(features.shape, dtype=object)
    flat = features.ravel()
    shown = flat >= 0
    if names is None:
        out.ravel()[shown] = [f"x{j}" for j in flat[shown]]
    elif isinstance(names, _NamesOnDemand):
        out.ravel()[shown] = names.source._names_of(flat[shown])
    else:
        out.ravel()[shown] = names[flat[shown]]
    out.ravel()[~shown] = ""
    return out


class _NamesOnDemand:
    """A source of names (``_n_names()``, ``_names_of(columns)``) asked for the
    columns a result shows only."""

    __slots__ = ("source",)

    def __init__(self, source):
        self.source = source
