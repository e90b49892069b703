"""A model file is untrusted input: the container, the header and the parameters.

Each test is a defect a structured fuzz of ``fastnb.load`` found (issue 40): a
crafted file must give a ValueError naming the member and the rule, never another
exception, a crash, or memory the file does not pay for. Files are built with
plain ``zipfile`` and NumPy, so any damage can be made.
"""

import io
import json
import os
import struct
import subprocess
import sys
import textwrap
import zipfile
import zlib

import numpy as np
import pytest

import fastnb
from fastnb import _persist


def _fitted_gaussian():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.repeat([0, 1], 20)
    return fastnb.GaussianNB().fit(X, y)


def _members(model, tmp_path):
    """The saved file's members as {name: bytes of the .npy}."""
    path = tmp_path / "model.npz"
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        return {info.filename[:-4]: archive.read(info) for info in archive.infolist()}


def _npy(array):
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _header_of(members):
    return json.loads(np.load(io.BytesIO(members["header"])).tobytes())


def _with_header(members, header):
    blob = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    return dict(members, header=_npy(blob))


def _write(path, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name + ".npy", data)
    return path


def _refused(path, *words):
    with pytest.raises(ValueError) as info:
        fastnb.load(path)
    message = str(info.value)
    assert "not a valid fastnb model file" in message, message
    for word in words:
        assert word in message, message
    return info.value


def test_a_saved_model_loads(tmp_path):
    model = _fitted_gaussian()
    path = _write(tmp_path / "same.npz", _members(model, tmp_path))
    loaded = fastnb.load(path)
    np.testing.assert_array_equal(loaded.theta_, model.theta_)
    np.testing.assert_array_equal(loaded.var_, model.var_)


def test_deeply_nested_header_is_a_value_error(tmp_path):
    # RecursionError before: json.loads recursed once per bracket.
    members = _members(_fitted_gaussian(), tmp_path)
    text = '{"format": "fastnb-model", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    blob = np.frombuffer(text.encode(), dtype=np.uint8)
    error = _refused(_write(tmp_path / "deep.npz", dict(members, header=_npy(blob))),
                     "header", "nested")
    assert error.__cause__ is not None
    header = _header_of(members)
    nested = [1.0]
    for _ in range(40):
        nested = [nested]
    header["params"]["priors"] = nested
    _refused(_write(tmp_path / "deep2.npz", _with_header(members, header)), "nested")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_nan_and_infinity_are_refused(tmp_path, constant):
    members = _members(_fitted_gaussian(), tmp_path)
    text = json.dumps(_header_of(members)).replace(
        '"var_smoothing": 1e-09', f'"var_smoothing": {constant}')
    assert constant in text
    blob = np.frombuffer(text.encode(), dtype=np.uint8)
    _refused(_write(tmp_path / "nan.npz", dict(members, header=_npy(blob))),
             "header", constant)


@pytest.mark.parametrize("estimator, alpha", [
    (fastnb.MultinomialNB, -0.5), (fastnb.BernoulliNB, -1.0),
    (fastnb.ComplementNB, "one")])
def test_parameters_go_through_the_constructor_validators(tmp_path, estimator, alpha):
    X = np.array([[1, 0], [0, 2], [3, 1]])
    members = _members(estimator().fit(X, [0, 1, 1]), tmp_path)
    header = _header_of(members)
    header["params"]["alpha"] = alpha
    with pytest.raises(ValueError, match="params|alpha|parameters"):
        fastnb.load(_write(tmp_path / "alpha.npz", _with_header(members, header)))


def test_parameters_of_the_wrong_type_are_refused(tmp_path):
    members = _members(_fitted_gaussian(), tmp_path)
    header = _header_of(members)
    header["params"]["n_threads"] = "two"
    _refused(_write(tmp_path / "threads.npz", _with_header(members, header)),
             "n_threads")


@pytest.mark.parametrize("half_life", [-1.0, 0, "2000", [2.0]])
def test_half_life_goes_through_the_constructor_validator(tmp_path, half_life):
    members = _members(_fitted_gaussian(), tmp_path)
    header = _header_of(members)
    header["params"]["half_life"] = half_life
    _refused(_write(tmp_path / "half.npz", _with_header(members, header)), "half_life")


def test_columnwise_estimators_must_be_auto_or_null_in_a_file(tmp_path):
    X = np.array([[0.5, 1.0], [1.5, 0.0], [2.5, 1.0], [0.1, 0.0]])
    model = fastnb.ColumnwiseNB([("g", fastnb.GaussianNB(), [0, 1])]).fit(X, [0, 1, 0, 1])
    members = _members(model, tmp_path)
    header = _header_of(members)
    header["params"]["estimators"] = "everything"
    _refused(_write(tmp_path / "est.npz", _with_header(members, header)), "estimators")


def test_corrupt_deflate_data_is_a_value_error(tmp_path):
    # zlib.error before.
    members = _members(_fitted_gaussian(), tmp_path)
    path = _write(tmp_path / "deflated.npz", members, zipfile.ZIP_DEFLATED)
    assert fastnb.load(path).n_features_in_ == 3  # deflated members are read
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("theta_.npy")
    start = info.header_offset + 30 + len(info.filename)
    for offset in range(start, start + info.compress_size):
        data[offset] ^= 0x55
    bad = tmp_path / "corrupt.npz"
    bad.write_bytes(bytes(data))
    _refused(bad, "theta_")


def _patch_central(path, name, field_offset, fmt, value):
    """Rewrite one field of a member's central-directory record."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        start = archive.start_dir
    position = data.index(b"PK\x01\x02" + b"", start)
    while True:
        name_length = struct.unpack_from("<H", data, position + 28)[0]
        extra_length, comment_length = struct.unpack_from("<HH", data, position + 30)
        if data[position + 46:position + 46 + name_length].decode() == name:
            struct.pack_into(fmt, data, position + field_offset, value)
            break
        position += 46 + name_length + extra_length + comment_length
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("field, fmt, value, words", [
    (10, "<H", 99, ["compression method 99"]),       # NotImplementedError before
    (6, "<H", 63 + 1, []),                           # "zip file version" field
    (8, "<H", 1, ["encrypted"]),                     # RuntimeError before
    (8, "<H", 1 << 6, ["encrypted"]),
])
def test_zip_fields_the_format_does_not_use_are_refused(tmp_path, field, fmt, value,
                                                        words):
    path = _write(tmp_path / "zip.npz", _members(_fitted_gaussian(), tmp_path))
    _patch_central(path, "theta_.npy", field, fmt, value)
    _refused(path, *words)


def test_a_huge_npy_shape_is_refused_before_allocating(tmp_path):
    # MemoryError before: numpy allocated the claimed 24 TiB.
    members = _members(_fitted_gaussian(), tmp_path)
    header = ("{'descr': '<f8', 'fortran_order': False, 'shape': (3298534883328,), }"
              .ljust(117) + "\n")
    blob = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
    _refused(_write(tmp_path / "huge.npz", dict(members, theta_=blob + bytes(48))),
             "theta_", "26388279066624 bytes")


def test_shapes_that_overflow_int64_are_refused(tmp_path):
    # OverflowError before (a shape of 2**70).
    members = _members(_fitted_gaussian(), tmp_path)
    header = (f"{{'descr': '<f8', 'fortran_order': False, 'shape': ({2**70}, {2**70}), }}"
              .ljust(117) + "\n")
    blob = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
    _refused(_write(tmp_path / "wrap.npz", dict(members, theta_=blob + bytes(48))),
             "theta_")


def test_fortran_order_and_object_members_are_refused(tmp_path):
    members = _members(_fitted_gaussian(), tmp_path)
    theta = np.load(io.BytesIO(members["theta_"]))
    assert not np.asfortranarray(theta).flags.c_contiguous
    _refused(_write(tmp_path / "f.npz", dict(members, theta_=_npy(np.asfortranarray(
        theta)))), "theta_", "Fortran")
    obj = b"\x93NUMPY\x01\x00" + struct.pack("<H", 118) + (
        "{'descr': '|O', 'fortran_order': False, 'shape': (2, 3), }".ljust(117)
        + "\n").encode()
    _refused(_write(tmp_path / "o.npz", dict(members, theta_=obj + bytes(48))),
             "theta_", "dtype")


def test_an_int64_member_where_floats_are_read_is_refused(tmp_path):
    # Loaded, then predict failed with "Buffer dtype mismatch" before.
    members = _members(_fitted_gaussian(), tmp_path)
    theta = np.load(io.BytesIO(members["theta_"]))
    path = _write(tmp_path / "int.npz", dict(members, theta_=_npy(theta.astype(np.int64))))
    _refused(path, "theta_", "float64")


def test_member_that_inflates_past_its_budget_is_refused_before_inflating(tmp_path):
    # A 1 MiB deflated member inflated to 1 GiB before its shape was refused.
    code = textwrap.dedent(f"""
        import resource, sys, zipfile, zlib, io, numpy as np, fastnb
        sys.path.insert(0, {os.fspath(tmp_path)!r})
        path = {os.fspath(tmp_path / "bomb.npz")!r}
        model = fastnb.GaussianNB().fit(np.arange(8.0).reshape(4, 2), [0, 0, 1, 1])
        model.save(path + ".ok")
        with zipfile.ZipFile(path + ".ok") as archive:
            members = {{i.filename: archive.read(i) for i in archive.infolist()}}
        n = (1 << 30) // 8
        header = ("{{'descr': '<f8', 'fortran_order': False, 'shape': (" + str(n)
                  + ",), }}").ljust(117) + "\\n"
        npy_header = b"\\x93NUMPY\\x01\\x00" + len(header).to_bytes(2, "little") \\
            + header.encode()
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in members.items():
                if name == "theta_.npy":
                    with archive.open(name, "w", force_zip64=True) as member:
                        member.write(npy_header)
                        zeros = bytes(1 << 24)
                        for _ in range((1 << 30) >> 24):
                            member.write(zeros)
                else:
                    archive.writestr(name, data)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            fastnb.load(path)
        except ValueError as error:
            print("refused:", error)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print("grew KiB:", after - before)
    """)
    result = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "refused:" in result.stdout, result.stdout
    assert "declare" in result.stdout, result.stdout
    grew = int(result.stdout.rsplit("grew KiB:", 1)[1])
    assert grew < 64 * 1024, result.stdout  # not the 1 GiB the member declares
    assert (tmp_path / "bomb.npz").stat().st_size < 8 << 20


def test_truncated_and_trailing_members_are_refused(tmp_path):
    members = _members(_fitted_gaussian(), tmp_path)
    _refused(_write(tmp_path / "short.npz",
                    dict(members, theta_=members["theta_"][:-8])), "theta_")
    _refused(_write(tmp_path / "long.npz",
                    dict(members, theta_=members["theta_"] + bytes(8))), "theta_")


def test_duplicate_and_foreign_members_are_refused(tmp_path):
    members = _members(_fitted_gaussian(), tmp_path)
    path = tmp_path / "dup.npz"
    with pytest.warns(UserWarning):  # zipfile warns of the duplicate name it writes
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in members.items():
                archive.writestr(name + ".npy", data)
            archive.writestr("theta_.npy", members["theta_"])
    _refused(path, "theta_", "twice")
    _refused(_write(tmp_path / "extra.npz", dict(members, extra=_npy(np.zeros(2)))),
             "members")


def test_damaged_crc_is_refused(tmp_path):
    path = _write(tmp_path / "crc.npz", _members(_fitted_gaussian(), tmp_path))
    _patch_central(path, "theta_.npy", 16, "<L", 12345)
    _refused(path, "theta_", "CRC")


@pytest.mark.parametrize("garbage", [b"", b"PK", b"not a zip at all" * 10,
                                     b"PK\x05\x06" + bytes(18)])
def test_garbage_is_a_value_error(tmp_path, garbage):
    path = tmp_path / "garbage.npz"
    path.write_bytes(garbage)
    _refused(path)


def test_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        fastnb.load(tmp_path / "absent.npz")


def test_every_error_is_chained(tmp_path):
    members = _members(_fitted_gaussian(), tmp_path)
    error = _refused(_write(tmp_path / "t.npz",
                            dict(members, theta_=members["theta_"][:-8])))
    assert error.__cause__ is not None


def test_threads_beyond_the_cores_are_capped():
    cores = fastnb.show_config()["cpus"]
    assert fastnb.effective_n_threads(10**5) == (cores if fastnb.openmp_enabled() else 1)
    assert fastnb.effective_n_threads(2**31) <= cores


def test_huge_n_threads_from_a_file_or_a_constructor_runs(tmp_path):
    # 10**5 crashed the process in OpenMP; ~700 made libgomp exit(1).
    code = textwrap.dedent(f"""
        import json, zipfile, io, numpy as np, fastnb
        from fastnb import _threads
        for kind in _threads.PARALLEL_MIN_WORK:   # force the parallel paths
            if kind != "count_fit_block_bytes":
                _threads.PARALLEL_MIN_WORK[kind] = 0
        rng = np.random.default_rng(0)
        X = rng.normal(size=(300, 4)); y = rng.integers(0, 3, 300)
        counts = rng.integers(0, 4, size=(300, 6))
        for n_threads in (700, 10**5, 2**31):
            g = fastnb.GaussianNB(n_threads=n_threads).fit(X, y)
            g.predict_proba(X)
            m = fastnb.MultinomialNB(n_threads=n_threads).fit(counts, y)
            m.partial_fit(counts, y); m.predict(counts)
            c = fastnb.CategoricalNB(n_threads=n_threads).fit(counts, y)
            c.predict(counts)
            path = {os.fspath(tmp_path / "t.npz")!r}
            g.save(path)
            fastnb.load(path).predict(X)
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-2000:]


def test_save_refuses_what_load_would_refuse(tmp_path):
    # GaussianNB fitted on values near the float64 limit: its sums of squares
    # overflow. Before, save wrote a file that load then refused.
    X = np.array([[1e300], [-1e300], [1e300], [2.0]])
    with np.errstate(all="ignore"):
        try:
            model = fastnb.GaussianNB().fit(X, [0, 0, 1, 1])
        except ValueError:
            return  # fit itself refuses: nothing to save
    path = tmp_path / "huge.npz"
    try:
        model.save(path)
    except ValueError as error:
        assert "load would refuse" in str(error)
        assert not path.exists()
        return
    fastnb.load(path)  # what save writes, load accepts


def test_save_then_load_round_trips_every_model(tmp_path):
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 5, size=(60, 5))
    y = rng.integers(0, 3, 60)
    models = [
        fastnb.GaussianNB().fit(rng.normal(size=(60, 5)), y),
        fastnb.BernoulliNB().fit(counts, y),
        fastnb.MultinomialNB(alpha=np.full(5, 0.5)).fit(counts, y),
        fastnb.ComplementNB(norm=True).fit(counts, y),
        fastnb.CategoricalNB(min_categories=6).fit(counts, y),
        fastnb.ColumnwiseNB().fit(counts.astype(float), y),
    ]
    for index, model in enumerate(models):
        path = tmp_path / f"m{index}.npz"
        model.save(path)
        loaded = fastnb.load(path)
        np.testing.assert_array_equal(loaded.predict_proba(counts),
                                      model.predict_proba(counts))
        loaded.save(tmp_path / f"again{index}.npz")


def test_the_budget_follows_the_file_size():
    assert _persist._budget(0) == 16 << 20
    assert _persist._budget(1 << 30) == 32 << 30


def test_save_refuses_a_model_whose_derived_state_load_refuses(tmp_path):
    # var_smoothing=0 and a constant feature: a zero variance, which load refuses
    # after its restore; save wrote it before.
    X = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0], [1.0, 3.0]])
    model = fastnb.GaussianNB(var_smoothing=0.0).fit(X, [0, 0, 1, 1])
    path = tmp_path / "zero-variance.npz"
    with pytest.raises(ValueError, match="load would refuse"):
        model.save(path)
    assert not path.exists()


def test_a_columnwise_header_declaring_huge_n_features_is_refused_cheaply(tmp_path):
    # The fuzzer (CI, seed 21544): n_features_in replaced by a huge number made
    # ColumnwiseNB's restore build set(range(n_features_in)), +2.2 GiB.
    code = textwrap.dedent(f"""
        import io, json, resource, zipfile, numpy as np, fastnb
        X = np.array([[0.5, 1.0], [1.5, 0.0], [2.5, 1.0], [0.1, 0.0]])
        model = fastnb.ColumnwiseNB([("g", fastnb.GaussianNB(), [0, 1])]).fit(
            X, [0, 1, 0, 1])
        path = {os.fspath(tmp_path / "cw.npz")!r}
        model.save(path)
        with zipfile.ZipFile(path) as archive:
            members = {{i.filename: archive.read(i) for i in archive.infolist()}}
        header = json.loads(np.load(io.BytesIO(members["header.npy"])).tobytes())
        header["n_features_in"] = 1 << 28
        buffer = io.BytesIO()
        np.save(buffer, np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
        members["header.npy"] = buffer.getvalue()
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in members.items():
                archive.writestr(name, data)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            fastnb.load(path)
        except ValueError as error:
            print("refused:", error)
        print("grew KiB:", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
    """)
    result = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "refused:" in result.stdout, result.stdout
    assert int(result.stdout.rsplit("grew KiB:", 1)[1]) < 64 * 1024, result.stdout


class _LyingStream(io.RawIOBase):
    """A seekable stream (say, an HTTP range reader) that reports a size of a
    TiB, whatever bytes it holds."""

    def __init__(self, data):
        self._data, self._at = data, 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), len(self._data) - self._at)
        buffer[:n] = self._data[self._at:self._at + n]
        self._at += n
        return n

    def seek(self, offset, whence=io.SEEK_SET):
        self._at = offset + (0, self._at, 1 << 40)[whence]
        return self._at

    def tell(self):
        return self._at


def test_a_stream_is_bounded_by_the_bytes_it_held_not_the_size_it_reports():
    """A file object's budget comes from the bytes read from it: a member that
    declares 256 MiB (deflated to a few hundred KiB) is refused before anything is
    inflated or allocated, whatever size the stream claims."""
    model = _fitted_gaussian()
    clean = io.BytesIO()
    model.save(clean)
    with zipfile.ZipFile(io.BytesIO(clean.getvalue())) as archive:
        members = {i.filename[:-4]: archive.read(i) for i in archive.infolist()}
    n = (256 << 20) // 8
    header = (f"{{'descr': '<f8', 'fortran_order': False, 'shape': ({n},), }}"
              .ljust(117) + "\n")
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            if name != "theta_":
                archive.writestr(name + ".npy", data)
                continue
            with archive.open("theta_.npy", "w", force_zip64=True) as member:
                member.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header))
                             + header.encode())
                zeros = bytes(1 << 22)
                for _ in range((256 << 20) >> 22):
                    member.write(zeros)
    data = bomb.getvalue()
    assert len(data) < 1 << 20
    for stream in (_LyingStream(data), io.BufferedReader(_LyingStream(data)),
                   io.BytesIO(data)):
        with pytest.raises(ValueError, match="file object: not a valid fastnb model"
                           ".*members declare .* bytes, more than the 16777216 allowed"):
            fastnb.load(stream)
    # and the same stream holding a good model loads
    loaded = fastnb.load(_LyingStream(clean.getvalue()))
    np.testing.assert_array_equal(loaded.theta_, model.theta_)


@pytest.mark.parametrize("garbage", [b"", b"PK\x05\x06" + bytes(18), b"\x00" * 100])
def test_garbage_streams_are_value_errors(garbage):
    with pytest.raises(ValueError, match="file object: not a valid fastnb model"):
        fastnb.load(io.BytesIO(garbage))
