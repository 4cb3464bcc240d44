"""``java.lang.String#split`` and ``#trim`` where their results differ from Python's ``str.split`` and ``str.strip``.

Java: java.lang.String (the JDK; RocketMQ relies on these semantics when it parses route configs, subscription
expressions, store paths and config values)

- ``split`` with a literal separator and no limit drops *trailing* empty parts (``"a;b;".split(";")`` is
  ``["a", "b"]``, ``";"`` gives no part at all), while a string without the separator stays one part (``""`` is
  ``[""]``). Python keeps every part.
- ``trim`` removes characters up to U+0020 (spaces and every control character) from both ends, and nothing else;
  Python's ``strip`` removes Unicode white space (U+00A0, U+3000, ...) but not, say, U+0001.
"""

from __future__ import annotations


def java_split(text: str, separator: str) -> list[str]:
    """``text.split(separator)`` as Java computes it for a literal separator (trailing empty parts dropped)."""
    if separator not in text:
        return [text]
    parts = text.split(separator)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def java_trim(text: str) -> str:
    """``text.trim()``: characters at or below U+0020 removed from both ends."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]
