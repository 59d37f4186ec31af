"""Text from files, for the parsers: UTF-8 or a one-line error saying where it is not, and
values quoted short (a tag UID or a 5,000-digit number is never quoted whole).

>>> decode_utf8(b"As 2s\\n")
'As 2s\\n'
>>> decode_utf8(b"ok\\nbad \\xff here")
Traceback (most recent call last):
...
controller.core.text.NotUtf8: not UTF-8 text (line 2, column 5)
>>> shorten("9" * 5000)
"'9999999999999999999999999999999... (5000 characters)'"
"""

from __future__ import annotations


class NotUtf8(ValueError):
    """Bytes that are not UTF-8; ``line`` and ``column`` (from 1) of the first bad byte, ``good``
    the text before it."""

    def __init__(self, line: int, column: int, good: str) -> None:
        super().__init__(f"not UTF-8 text (line {line}, column {column})")
        self.line, self.column, self.good = line, column, good


def decode_utf8(data: bytes) -> str:
    """``data`` as UTF-8 text, or :class:`NotUtf8` naming the line and column of the first byte
    that is not (never the bytes themselves)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8")
        line = good.count("\n") + 1
        column = len(good) - (good.rfind("\n") + 1) + 1
        raise NotUtf8(line, column, good) from None


def shorten(value: object, limit: int = 40) -> str:
    """``repr(value)``, cut to about ``limit`` characters with the full length said."""
    text = repr(value) if not isinstance(value, int) or isinstance(value, bool) or value.bit_length() < 10000 \
        else f"{value.bit_length()}-bit number"
    if len(text) <= limit:
        return text
    n = len(value) if isinstance(value, str) else len(text)
    quote = text[0] if text[0] in "'\"" else ""
    return f"{text[: limit - 8]}... ({n} characters){quote}"
