"""A bounded reader of the ``.npz`` files that ``fastnb.save`` writes.

A model file is untrusted input, so nothing in it is believed before it is
checked, and nothing is allocated or inflated on the strength of a size the file
claims until that size has been checked against the rest of the file:

- the zip directory is read by :mod:`zipfile`, then every member is checked: a
  plain ``NAME.npy`` name, not twice; stored or deflated (no other method, no
  encryption or patched data); a declared size that the caller's budget allows;
- each member's ``.npy`` header is parsed (``numpy.lib.format`` with a bounded
  header size) and must give a C-ordered array of an allowed dtype whose bytes,
  after the header, are exactly the member's declared uncompressed size;
- only then are the bytes read, straight into the array (one allocation of the
  declared size), inflating a deflated member through a decompressor that never
  produces more than the declared size; a member that ends early or late, a
  corrupt deflate stream, or a CRC that does not match is refused.

So a member costs exactly the bytes its checked shape needs, and a file cannot
make this reader allocate more than its own uncompressed content (which it
declares in its zip directory, verified member by member, and which, for the
stored members ``save`` writes, is the file's own size).

Every problem is a :class:`FileFormatError` (a ``ValueError``) naming the member
and the rule.
"""

import struct
import zipfile
import zlib

import numpy as np

__all__ = ["FileFormatError", "NpzReader"]

# The largest .npy header read: fastnb's own headers are < 200 bytes.
_MAX_NPY_HEADER = 4096
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_LOCAL_SIGNATURE = b"PK\x03\x04"
_CHUNK = 1 << 20
# General-purpose flag bits that change how a member's bytes are read: encrypted
# (0), compressed patched data (5), strong encryption (6), masked header values
# (13). Bit 3 (sizes after the data) and bit 11 (UTF-8 names) are harmless: the
# sizes are taken from the central directory.
_UNSUPPORTED_FLAGS = (1 << 0) | (1 << 5) | (1 << 6) | (1 << 13)


class FileFormatError(ValueError):
    """Something in a model file breaks a rule of the format."""


class NpzReader:
    """Read the members of an ``.npz`` file one at a time, each checked.

    Parameters
    ----------
    handle : binary file object, seekable
    budget : int
        The most bytes all members may declare, uncompressed, together.
    """

    def __init__(self, handle, budget):
        self._handle = handle
        try:
            archive = zipfile.ZipFile(handle)
            infos = archive.infolist()
        except Exception as error:  # zipfile raises many types on a damaged directory
            raise FileFormatError(f"not a readable zip archive ({error})") from error
        self._infos = {}
        declared = 0
        for info in infos:
            name = info.filename
            if not name.endswith(".npy") or "/" in name or len(name) > 260:
                raise FileFormatError(f"member {name!r} is not an .npy array")
            key = name[:-4]
            if key in self._infos:
                raise FileFormatError(f"member {key!r} appears twice")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise FileFormatError(
                    f"member {key!r} uses compression method {info.compress_type}; "
                    "only stored and deflated members are read")
            if (info.compress_type == zipfile.ZIP_STORED
                    and info.compress_size != info.file_size):
                raise FileFormatError(f"member {key!r} is stored with two sizes "
                                      f"({info.compress_size} and {info.file_size})")
            if info.flag_bits & _UNSUPPORTED_FLAGS:
                raise FileFormatError(f"member {key!r} is encrypted or patched "
                                      f"(flags {info.flag_bits:#x})")
            declared += info.file_size
            self._infos[key] = info
        if declared > budget:
            raise FileFormatError(
                f"the members declare {declared} bytes, more than the {budget} "
                "allowed")

    @property
    def names(self):
        """The member names, without ``.npy``."""
        return set(self._infos)

    def header(self, name):
        """``(dtype, shape)`` of a member from its ``.npy`` header, checked."""
        return self._open(name)[1:]

    def read(self, name, check=None):
        """The member as an array, after ``check(dtype, shape)`` (which may raise)
        has accepted its header: nothing of the data is read before that."""
        stream, dtype, shape = self._open(name)
        if check is not None:
            check(dtype, shape)
        array = np.empty(shape, dtype=dtype)
        if array.nbytes:
            stream.fill(memoryview(array.reshape(-1).view(np.uint8)))
        stream.finish()
        return array

    def _open(self, name):
        info = self._infos.get(name)
        if info is None:
            raise FileFormatError(f"no member {name!r}")
        stream = _MemberStream(self._handle, info, name)
        dtype, shape, data_offset = _parse_npy_header(stream, name)
        nbytes = dtype.itemsize
        for size in shape:
            nbytes *= size  # Python ints: no wrap-around
        if data_offset + nbytes != info.file_size:
            raise FileFormatError(
                f"member {name!r}: its header describes {nbytes} bytes of data "
                f"{dtype.str} {shape}, but the member holds "
                f"{info.file_size - data_offset}")
        return stream, dtype, shape


def _parse_npy_header(stream, name):
    """dtype, shape and the data's offset in the member, from its .npy header."""
    magic = stream.read(8)
    if magic[:6] != b"\x93NUMPY" or magic[6] not in (1, 2, 3) or magic[7] != 0:
        raise FileFormatError(f"member {name!r} is not an .npy array")
    length_bytes = stream.read(2 if magic[6] == 1 else 4)
    length = int.from_bytes(length_bytes, "little")
    if length > _MAX_NPY_HEADER:
        raise FileFormatError(f"member {name!r} has an .npy header of {length} bytes")
    text = stream.read(length)
    offset = 8 + len(length_bytes) + length
    try:
        header = _literal_header(text.decode("latin1" if magic[6] < 3 else "utf8"))
    except Exception as error:
        raise FileFormatError(f"member {name!r} has a malformed .npy header") from error
    if (not isinstance(header, dict)
            or set(header) != {"descr", "fortran_order", "shape"}):
        raise FileFormatError(f"member {name!r} has a malformed .npy header")
    descr, fortran, shape = header["descr"], header["fortran_order"], header["shape"]
    if fortran is not False:
        raise FileFormatError(f"member {name!r} is in Fortran order, not C order")
    if (not isinstance(shape, tuple) or len(shape) > 8
            or not all(type(s) is int and s >= 0 for s in shape)):
        raise FileFormatError(f"member {name!r} has shape {shape!r}")
    dtype = _allowed_dtype(descr)
    if dtype is None:
        raise FileFormatError(f"member {name!r} has dtype {descr!r}, which the format "
                              "does not use")
    return dtype, shape, offset


def _literal_header(text):
    """The header's dict literal, parsed as the bounded Python literal it must be
    (``ast.literal_eval`` on at most ``_MAX_NPY_HEADER`` characters)."""
    import ast

    return ast.literal_eval(text.strip())


def _allowed_dtype(descr):
    """The dtype of a descr the format uses: little-endian (or byte) booleans,
    integers and floats of 1-8 bytes, and little-endian unicode strings (string
    classes); never objects, structures or big-endian data."""
    if not isinstance(descr, str) or len(descr) > 16:
        return None
    try:
        dtype = np.dtype(descr)
    except Exception:
        return None
    if dtype.kind in "biuf" and dtype.byteorder in "<|=" and dtype.itemsize <= 8:
        return dtype
    if dtype.kind == "U" and dtype.byteorder in "<=" and 0 < dtype.itemsize <= 4 * 4096:
        return dtype
    return None


class _MemberStream:
    """The uncompressed bytes of one member, read in order, never past its
    declared size; inflated through a bounded decompressor when deflated."""

    def __init__(self, handle, info, name):
        self._handle, self._info, self._name = handle, info, name
        try:
            handle.seek(info.header_offset)
            local = handle.read(_LOCAL_HEADER.size)
        except (OSError, ValueError, OverflowError) as error:
            raise FileFormatError(f"member {name!r}: unreadable local header") from error
        if len(local) != _LOCAL_HEADER.size:
            raise FileFormatError(f"member {name!r}: truncated local header")
        fields = _LOCAL_HEADER.unpack(local)
        if fields[0] != _LOCAL_SIGNATURE:
            raise FileFormatError(f"member {name!r}: bad local header signature")
        name_length, extra_length = fields[9], fields[10]
        self._raw_position = (info.header_offset + _LOCAL_HEADER.size + name_length
                              + extra_length)
        self._raw_left = info.compress_size
        self._left = info.file_size
        self._crc = 0
        self._inflater = (zlib.decompressobj(-15)
                          if info.compress_type == zipfile.ZIP_DEFLATED else None)

    def read(self, size):
        """Exactly ``size`` bytes (a header's), or an error."""
        buffer = bytearray(size)
        self.fill(memoryview(buffer))
        return bytes(buffer)

    def fill(self, view):
        """Fill ``view`` (a byte memoryview) with the next ``len(view)`` bytes."""
        if len(view) > self._left:
            raise FileFormatError(f"member {self._name!r} ends before its data")
        filled = 0
        while filled < len(view):
            piece = self._next(min(len(view) - filled, _CHUNK))
            view[filled:filled + len(piece)] = piece
            self._crc = zlib.crc32(piece, self._crc)
            filled += len(piece)
        self._left -= filled

    def finish(self):
        """Check that the member ends here, whole, with its CRC."""
        if self._left:
            raise FileFormatError(f"member {self._name!r} has bytes past its array")
        if self._inflater is not None:
            try:
                extra = self._inflater.decompress(self._inflater.unconsumed_tail, 1)
                while not extra and not self._inflater.eof and self._raw_left > 0:
                    extra = self._inflater.decompress(self._raw(), 1)
            except zlib.error as error:
                raise FileFormatError(f"member {self._name!r}: corrupt deflate data "
                                      f"({error})") from error
            if extra or not self._inflater.eof:
                raise FileFormatError(f"member {self._name!r} inflates to another "
                                      "size than it declares")
        if self._crc != self._info.CRC:
            raise FileFormatError(f"member {self._name!r}: CRC mismatch (damaged)")

    def _raw(self, size=_CHUNK):
        """The next ``size`` compressed (or stored) bytes, at most what is left."""
        size = min(self._raw_left, size)
        try:
            self._handle.seek(self._raw_position)
            data = self._handle.read(size)
        except (OSError, ValueError, OverflowError) as error:
            raise FileFormatError(f"member {self._name!r}: unreadable") from error
        if len(data) != size:
            raise FileFormatError(f"member {self._name!r} is truncated")
        self._raw_position += size
        self._raw_left -= size
        return data

    def _next(self, size):
        if self._inflater is None:
            if self._raw_left < size:
                raise FileFormatError(f"member {self._name!r} is truncated")
            return self._raw(size)
        try:
            while True:
                if self._inflater.unconsumed_tail:
                    data = self._inflater.decompress(self._inflater.unconsumed_tail,
                                                     size)
                elif self._raw_left > 0:
                    data = self._inflater.decompress(self._raw(), size)
                else:
                    data = b""
                if data:
                    return data
                if self._inflater.eof or self._raw_left == 0:
                    raise FileFormatError(f"member {self._name!r} inflates to fewer "
                                          "bytes than it declares")
        except zlib.error as error:
            raise FileFormatError(f"member {self._name!r}: corrupt deflate data "
                                  f"({error})") from error
