"""Test helpers for damaged model files."""

import json

import numpy as np
import pytest

import fastnb


def assert_damaged_layouts_refused(members, layout, damages, folder):
    """Each of ``damages`` (label -> a function that edits a copy of the file's
    JSON ``layout`` in place), written with the other ``members`` of the file,
    makes ``fastnb.load`` refuse the file as not a valid fastnb model file."""
    for label, damage in damages.items():
        broken = json.loads(json.dumps(layout))
        damage(broken)
        members["layout"] = np.frombuffer(json.dumps(broken).encode(), dtype=np.uint8)
        with open(folder / "bad.npz", "wb") as handle:
            np.savez(handle, **members)
        with pytest.raises(ValueError, match="not a valid fastnb model file"):
            fastnb.load(folder / "bad.npz")
