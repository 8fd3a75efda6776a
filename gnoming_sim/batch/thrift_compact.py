"""A generic Thrift compact-protocol codec: just enough to edit a Parquet footer.

A Parquet footer is a Thrift ``FileMetaData`` struct in the compact protocol.  The batch
writer (:mod:`gnoming_sim.batch.batch_writer`) encodes every chunk as a small standalone
Parquet file in memory, appends its row group's bytes to the partial file, and keeps the
row group's metadata with its byte offsets moved to where the bytes now lie; the final
footer lists every row group.  pyarrow can do neither (it gives a file's metadata only
after the writer is closed, with offsets relative to its own stream), hence this codec.

Values decode without a schema and encode back to the same bytes::

    struct  -> list of [field id, type, value]   (in wire order; mutable)
    list    -> (element type, [values])           (set alike)
    map     -> (key type, value type, [(k, v)])
    bool    -> True/False; a bool inside a list keeps its raw byte
    integer -> int; double -> float; binary -> bytes
"""
from __future__ import annotations

import struct as _struct

STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(13)


class ThriftError(ValueError):
    """The bytes are not a well-formed compact-protocol struct."""


def decode_struct(buf: bytes, pos: int = 0) -> tuple[list, int]:
    """The struct starting at ``buf[pos]`` and the position just after it."""
    return _read_struct(memoryview(buf).cast("B"), pos, 0)


def encode_struct(fields: list) -> bytes:
    """The compact-protocol bytes of a struct as :func:`decode_struct` gives it."""
    out = bytearray()
    _write_struct(out, fields)
    return bytes(out)


def field(fields: list, fid: int):
    """The ``[fid, type, value]`` entry of a struct, or None."""
    return next((f for f in fields if f[0] == fid), None)


def set_field(fields: list, fid: int, ttype: int, value) -> None:
    """Set (or add, keeping ids in increasing order) field ``fid`` of a struct."""
    entry = field(fields, fid)
    if entry is not None:
        entry[1], entry[2] = ttype, value
        return
    fields.append([fid, ttype, value])
    fields.sort(key=lambda f: f[0])


def drop_field(fields: list, fid: int) -> None:
    fields[:] = [f for f in fields if f[0] != fid]


# ------------------------------------------------------------------ decoding
def _varint(buf, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise ThriftError("truncated or overlong varint")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7


def _zigzag(n: int) -> int:
    return (n >> 1) ^ -(n & 1)


def _read_struct(buf, pos: int, depth: int) -> tuple[list, int]:
    if depth > 32:
        raise ThriftError("structs nested too deep")
    fields, last = [], 0
    while True:
        if pos >= len(buf):
            raise ThriftError("struct runs past the end")
        head = buf[pos]
        pos += 1
        if head == STOP:
            return fields, pos
        delta, ttype = head >> 4, head & 0x0F
        if delta:
            fid = last + delta
        else:
            raw, pos = _varint(buf, pos)
            fid = _zigzag(raw)
        if ttype in (TRUE, FALSE):
            value = ttype == TRUE
        else:
            value, pos = _read_value(buf, pos, ttype, depth)
        fields.append([fid, ttype, value])
        last = fid


def _read_value(buf, pos: int, ttype: int, depth: int):
    if ttype in (I16, I32, I64):
        raw, pos = _varint(buf, pos)
        return _zigzag(raw), pos
    if ttype == BYTE:
        if pos >= len(buf):
            raise ThriftError("truncated byte")
        return _struct.unpack_from("<b", buf, pos)[0], pos + 1
    if ttype == DOUBLE:
        if pos + 8 > len(buf):
            raise ThriftError("truncated double")
        return _struct.unpack_from("<d", buf, pos)[0], pos + 8
    if ttype == BINARY:
        n, pos = _varint(buf, pos)
        if pos + n > len(buf):
            raise ThriftError("truncated binary")
        return bytes(buf[pos:pos + n]), pos + n
    if ttype in (LIST, SET):
        if pos >= len(buf):
            raise ThriftError("truncated list")
        head = buf[pos]
        pos += 1
        size, etype = head >> 4, head & 0x0F
        if size == 15:
            size, pos = _varint(buf, pos)
        items = []
        for _ in range(size):
            if etype in (TRUE, FALSE):   # a bool element is one raw byte
                if pos >= len(buf):
                    raise ThriftError("truncated list")
                items.append(buf[pos])
                pos += 1
            else:
                item, pos = _read_value(buf, pos, etype, depth + 1)
                items.append(item)
        return (etype, items), pos
    if ttype == MAP:
        size, pos = _varint(buf, pos)
        if not size:
            return (0, 0, []), pos
        if pos >= len(buf):
            raise ThriftError("truncated map")
        kt, vt = buf[pos] >> 4, buf[pos] & 0x0F
        pos += 1
        pairs = []
        for _ in range(size):
            k, pos = _read_value(buf, pos, kt, depth + 1)
            v, pos = _read_value(buf, pos, vt, depth + 1)
            pairs.append((k, v))
        return (kt, vt, pairs), pos
    if ttype == STRUCT:
        return _read_struct(buf, pos, depth + 1)
    raise ThriftError(f"unknown compact type {ttype}")


# ------------------------------------------------------------------ encoding
def _put_varint(out: bytearray, n: int) -> None:
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def _put_zigzag(out: bytearray, n: int) -> None:
    _put_varint(out, (n << 1) ^ (n >> 63) if n < 0 else n << 1)


def _write_struct(out: bytearray, fields: list) -> None:
    last = 0
    for fid, ttype, value in fields:
        if ttype in (TRUE, FALSE):
            ttype = TRUE if value else FALSE
        delta = fid - last
        if 0 < delta <= 15:
            out.append(delta << 4 | ttype)
        else:
            out.append(ttype)
            _put_zigzag(out, fid)
        if ttype not in (TRUE, FALSE):
            _write_value(out, ttype, value)
        last = fid
    out.append(STOP)


def _write_value(out: bytearray, ttype: int, value) -> None:
    if ttype in (I16, I32, I64):
        _put_zigzag(out, int(value))
    elif ttype == BYTE:
        out += _struct.pack("<b", value)
    elif ttype == DOUBLE:
        out += _struct.pack("<d", value)
    elif ttype == BINARY:
        _put_varint(out, len(value))
        out += value
    elif ttype in (LIST, SET):
        etype, items = value
        if len(items) < 15:
            out.append(len(items) << 4 | etype)
        else:
            out.append(0xF0 | etype)
            _put_varint(out, len(items))
        for item in items:
            if etype in (TRUE, FALSE):
                out.append(item)
            else:
                _write_value(out, etype, item)
    elif ttype == MAP:
        kt, vt, pairs = value
        _put_varint(out, len(pairs))
        if pairs:
            out.append(kt << 4 | vt)
            for k, v in pairs:
                _write_value(out, kt, k)
                _write_value(out, vt, v)
    elif ttype == STRUCT:
        _write_struct(out, value)
    else:
        raise ThriftError(f"unknown compact type {ttype}")
