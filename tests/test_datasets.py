"""fastnb.datasets: scikit-learn-shaped loaders (a Bunch, return_X_y, as_frame),
numpy-only unless as_frame=True."""

import pickle
import subprocess
import sys

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from fastnb.datasets import Bunch, load_iris, load_penguins

LOADERS = [load_iris, load_penguins]


def test_iris_is_shaped_as_scikit_learns():
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    ours, theirs = load_iris(), sklearn_datasets.load_iris()
    assert isinstance(ours, Bunch)
    assert sorted(ours) == sorted(theirs)
    assert_array_equal(ours.data, theirs.data)
    assert_array_equal(ours.target, theirs.target)
    assert ours.target.dtype == theirs.target.dtype
    assert_array_equal(ours.target_names, theirs.target_names)
    assert ours.frame is None and theirs.frame is None
    assert isinstance(ours.feature_names, list) and len(ours.feature_names) == 4
    assert "Fisher" in ours.DESCR
    pytest.importorskip("pandas")
    ours, theirs = load_iris(as_frame=True), sklearn_datasets.load_iris(as_frame=True)
    assert list(ours.data.columns) == ours.feature_names
    assert_array_equal(ours.data.to_numpy(), theirs.data.to_numpy())
    assert ours.target.name == theirs.target.name == "target"
    assert_array_equal(ours.target, theirs.target)
    assert list(ours.frame.columns) == ours.feature_names + ["target"]
    assert_array_equal(ours.frame.to_numpy(), theirs.frame.to_numpy())
    X, y = load_iris(return_X_y=True, as_frame=True)
    assert type(X) is type(theirs.data) and type(y) is type(theirs.target)


@pytest.mark.parametrize("loader", LOADERS)
def test_keys_and_attributes_are_one(loader):
    data = loader()
    for key in ("data", "target", "feature_names", "target_names", "frame", "DESCR"):
        assert getattr(data, key) is data[key]
    data.extra = 1
    assert data["extra"] == 1
    with pytest.raises(AttributeError):
        data.nothing
    again = pickle.loads(pickle.dumps(data))
    assert isinstance(again, Bunch) and again.DESCR == data.DESCR
    X, y = loader(return_X_y=True)
    assert list(map(repr, X.ravel())) == list(map(repr, data.data.ravel()))  # NaN
    assert_array_equal(y, data.target)
    assert isinstance(X, np.ndarray) and isinstance(y, np.ndarray)
    with pytest.raises(TypeError, match="as_frame must be a bool"):
        loader(as_frame="yes")


def test_penguins_as_frame():
    pd = pytest.importorskip("pandas")
    penguins = load_penguins(as_frame=True)
    assert isinstance(penguins.data, pd.DataFrame)
    assert isinstance(penguins.target, pd.Series) and penguins.target.name == "species"
    assert list(penguins.frame.columns) == penguins.feature_names + ["species"]
    assert penguins.frame.shape == (344, 8)
    assert_array_equal(penguins.target, load_penguins().target)
    assert penguins.target_names.tolist() == ["Adelie", "Chinstrap", "Gentoo"]
    X, y = load_penguins(return_X_y=True, as_frame=True)
    assert isinstance(X, pd.DataFrame) and isinstance(y, pd.Series)


def test_numpy_only_unless_as_frame():
    code = ("import sys, fastnb.datasets as d; d.load_iris(); d.load_penguins(); "
            "d.load_iris(return_X_y=True); print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr
