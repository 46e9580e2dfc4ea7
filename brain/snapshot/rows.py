"""Dataclasses to plain rows and back, driven by their type hints: the snapshot's codec.

A snapshot must hold whatever the graph holds, including node kinds added later, without
pickle (which runs code on load). So a value is turned into lists, dicts, strings and
numbers by looking at the declared type of each field: a dataclass becomes the list of its
fields in order, an enum its value, a tuple or set a list. Decoding walks the same types
back, so nothing in the data decides which class is built: only brain's own declarations
do. A type this module does not know raises `TypeError` when its codec is asked for, so a
snapshot of something it cannot hold is refused instead of written wrong.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import operator
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from brain.model import JSONValue, made_in_c

Convert = Callable[[Any], Any]
Codec = tuple[Convert, Convert] | None  # (to plain, from plain); None: the value is plain already

_PLAIN = (str, int, float, bool, type(None), bytes)


@functools.cache
def codec(tp: Any) -> Codec:
    """The codec of values of type `tp` (a type hint)."""
    if tp in _PLAIN or tp is Any or tp == JSONValue or _is_json(tp):
        return None
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        # A dict lookup, not `tp(value)`: 20x faster, and an unknown value is a KeyError too.
        return (operator.attrgetter("value"), tp._value2member_map_.__getitem__)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _dataclass_codec(tp)
    if _is_named_tuple(tp):
        return _named_tuple_codec(tp)
    if origin in (typing.Union, types.UnionType):
        return _union_codec(args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _sequence_codec(args[0], tuple)
        inner = [codec(a) for a in args]
        if all(c is None for c in inner):
            return (list, tuple)
        return (
            lambda v: [c[0](x) if c else x for c, x in zip(inner, v, strict=True)],
            lambda v: tuple(c[1](x) if c else x for c, x in zip(inner, v, strict=True)),
        )
    if origin is list:
        return _sequence_codec(args[0], list)
    if origin in (set, frozenset):
        return _sequence_codec(args[0], origin)
    if origin in (dict, Mapping) or origin is getattr(typing, "Mapping", None):
        if args[0] is not str:
            raise TypeError(f"rows: only str keys are supported, not {args[0]!r}")
        value = codec(args[1])
        if value is None:
            return (dict, dict)
        enc, dec = value
        return (
            lambda v: {k: enc(x) for k, x in v.items()},
            lambda v: {k: dec(x) for k, x in v.items()},
        )
    raise TypeError(f"rows: no codec for {tp!r}")


def _is_json(tp: Any) -> bool:
    """`JSONValue` as `get_type_hints` gives it (its recursion stays a ForwardRef): plain."""
    if isinstance(tp, typing.ForwardRef):
        return tp.__forward_arg__ == "JSONValue"
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType, list, dict):
        return all(a in _PLAIN or _is_json(a) for a in typing.get_args(tp))
    return False


def _sequence_codec(item: Any, build: Callable[[Any], Any]) -> Codec:
    inner = codec(item)
    if inner is None:
        return (list, build)
    enc, dec = inner
    return (lambda v: [enc(x) for x in v], lambda v: build([dec(x) for x in v]))


def _union_codec(args: tuple[Any, ...]) -> Codec:
    options = [a for a in args if a is not type(None)]
    if len(options) == 1:
        inner = codec(options[0])
        if inner is None:
            return None
        to_plain, from_plain = inner
        return (
            lambda v: None if v is None else to_plain(v),
            lambda v: None if v is None else from_plain(v),
        )
    if all(codec(a) is None for a in options):
        return None  # e.g. `str | int`: plain either way
    if not all(dataclasses.is_dataclass(a) for a in options):
        raise TypeError(f"rows: a union must be plain values or dataclasses: {args!r}")
    # Several dataclasses (e.g. `Node`): the row starts with the index of its class.
    index = {cls: i for i, cls in enumerate(options)}
    codecs = [codec(a) for a in options]

    def enc(v: Any) -> Any:
        if v is None:
            return None
        i = index[type(v)]
        c = codecs[i]
        assert c is not None
        return [i, c[0](v)]

    def dec(v: Any) -> Any:
        if v is None:
            return None
        c = codecs[v[0]]
        assert c is not None
        return c[1](v[1])

    return (enc, dec)


def _dataclass_codec(cls: type) -> Codec:
    fields = [f for f in dataclasses.fields(cls) if f.init]
    if any(f.kw_only for f in fields):
        raise TypeError(f"rows: keyword-only fields of {cls.__name__} are not supported")
    names = [f.name for f in fields]
    getter = operator.attrgetter(*names) if len(names) > 1 else None

    def values(v: Any) -> list[Any]:
        return list(getter(v)) if getter is not None else [getattr(v, names[0])]

    return _fields_codec(cls, names, values, lambda row: cls(*row))


def _is_named_tuple(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def _named_tuple_codec(cls: type) -> Codec:
    """A named tuple as the list of its fields, as a dataclass is."""
    names: tuple[str, ...] = cls._fields  # type: ignore[attr-defined]
    return _fields_codec(cls, names, list, made_in_c(cls))


def _fields_codec(
    cls: type, names: Sequence[str], values: Callable[[Any], list[Any]], build: Callable[[list[Any]], Any],
) -> Codec:
    """The codec of a class sent as the list of its `names` fields (`values` of an instance),
    each converted by its hint's codec, and built again from that list by `build`."""
    hints = typing.get_type_hints(cls)
    converts = [(i, c) for i, name in enumerate(names) if (c := codec(hints[name])) is not None]
    width = len(names)

    def enc(v: Any) -> list[Any]:
        row = values(v)
        for i, (to_plain, _) in converts:
            row[i] = to_plain(row[i])
        return row

    def dec(row: Any) -> Any:
        if type(row) is not list or len(row) != width:
            raise ValueError(f"rows: a {cls.__name__} needs {width} fields")
        for i, (_, from_plain) in converts:
            row[i] = from_plain(row[i])
        return build(row)

    return (enc, dec)


def schema(tp: Any) -> str:
    """A description of every class `tp` reaches, field by field: changes when any does."""
    seen: dict[str, str] = {}

    def visit(t: Any) -> None:
        for arg in typing.get_args(t):
            visit(arg)
        if (dataclasses.is_dataclass(t) or _is_named_tuple(t)) and isinstance(t, type):
            key = f"{t.__module__}.{t.__qualname__}"
            if key in seen:
                return
            hints = typing.get_type_hints(t)
            if _is_named_tuple(t):
                names = reached = list(t._fields)  # type: ignore[attr-defined]
            else:
                names = [f.name for f in dataclasses.fields(t) if f.init]
                reached = [f.name for f in dataclasses.fields(t)]
            seen[key] = ",".join(f"{name}:{hints[name]!r}" for name in names)
            for name in reached:
                visit(hints[name])

    visit(tp)
    return ";".join(f"{k}({v})" for k, v in sorted(seen.items()))


def pack_stream(value: Any, tp: Any, packer: Any, write: Callable[[bytes], object]) -> None:
    """`packer.pack(codec(tp)[0](value))` written piece by piece: a dataclass field by field
    and a collection item by item, so a graph of 100,000 notes is never one list in memory."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = typing.get_type_hints(tp)
        names = [f.name for f in dataclasses.fields(tp) if f.init]
        write(packer.pack_array_header(len(names)))
        for name in names:
            pack_stream(getattr(value, name), hints[name], packer, write)
    elif origin in (list, set, frozenset):
        item = codec(args[0])
        write(packer.pack_array_header(len(value)))
        for x in value:
            write(packer.pack(item[0](x) if item else x))
    elif origin in (dict, Mapping):
        item = codec(args[1])
        write(packer.pack_map_header(len(value)))
        for key, x in value.items():
            write(packer.pack(key))
            write(packer.pack(item[0](x) if item else x))
    else:
        whole = codec(tp)
        write(packer.pack(whole[0](value) if whole else value))


def unpack_stream(tp: Any, unpacker: Any) -> Any:
    """What `pack_stream` wrote, read back piece by piece (raises ValueError if it does not fit)."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = typing.get_type_hints(tp)
        names = [f.name for f in dataclasses.fields(tp) if f.init]
        if unpacker.read_array_header() != len(names):
            raise ValueError(f"rows: a {tp.__name__} needs {len(names)} fields")
        return tp(*[unpack_stream(hints[name], unpacker) for name in names])
    if origin in (list, set, frozenset):
        item = codec(args[0])
        count = unpacker.read_array_header()
        if item is None:
            return origin([unpacker.unpack() for _ in range(count)])
        return origin([item[1](unpacker.unpack()) for _ in range(count)])
    if origin in (dict, Mapping):
        item = codec(args[1])
        count = unpacker.read_map_header()
        out: dict[str, Any] = {}
        for _ in range(count):
            key = unpacker.unpack()
            if type(key) is not str:
                raise ValueError("rows: a map key that is not a string")
            out[key] = item[1](unpacker.unpack()) if item else unpacker.unpack()
        return out
    whole = codec(tp)
    value = unpacker.unpack()
    return whole[1](value) if whole else value
