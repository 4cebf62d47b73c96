"""Arguments checked at the package's entry points, with messages that name the function,
the argument, what it must be and what it was: a wrong type is a ``TypeError``, a count out of
its range a ``ValueError``, a shape the library rejects ``xlayout.Error``. What reaches the
extension has its type (PyO3's own conversion errors, ``OverflowError: can't convert negative
int to unsigned``, name neither the function nor the argument)."""

from __future__ import annotations

import operator
from typing import Any, Optional

from ._xlayout import Error, Shape

# The largest counts the extension takes (`usize` and `u64`): a larger `top` lists all the
# same, and no buffer is larger.
_MAX_COUNT = (1 << 63) - 1
_MAX_BYTES = (1 << 64) - 1


def error(kind: str, message: str) -> Error:
    """``xlayout.Error`` of ``kind`` (the library's ``ErrorKind`` name) with ``message``, as
    the extension makes it: ``error: `` before the message, no span."""
    e = Error(f"error: {message}")
    e.kind = kind
    e.span = None
    return e


def type_name(value: Any) -> str:
    return type(value).__name__


def count(value: Any, function: str, name: str, maximum: int = _MAX_COUNT) -> int:
    """``value`` as a count (a non-negative integer: ``int``, numpy's integers), at most
    ``maximum`` (a larger count means the same as ``maximum``)."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{function}: `{name}` is a count (an int), not {type_name(value)}")
    n = operator.index(value)
    if n < 0:
        raise ValueError(f"{function}: `{name}` is a count, not {n}")
    return min(n, maximum)


def byte_count(value: Any, function: str, name: str) -> int:
    """A count of bytes (``min_bytes``): as ``count``, up to 2^64 - 1."""
    return count(value, function, name, _MAX_BYTES)


def shape(value: Any, function: str, name: str) -> Shape:
    """A ``Shape``, or text parsed as one."""
    if isinstance(value, Shape):
        return value
    if not isinstance(value, str):
        raise TypeError(
            f"{function}: `{name}` is a Shape or XLA's text of one (a str), not "
            f"{type_name(value)}"
        )
    return Shape(value)


def optional_str(value: Any, function: str, name: str) -> Optional[str]:
    """``None`` or a ``str``."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{function}: `{name}` is a str or None, not {type_name(value)}")
    return value
