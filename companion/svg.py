"""SVG written by the project: no plotting library needed on a Pi.

The few pieces every picture shares (the document, a text label, a frame with its ticks, a
rounded scale) so the history's plots and the round picture of a CHOMP! verdict look alike,
and the one way a picture is built: :func:`element`, which escapes every attribute value
and every text child itself. No markup is written around outside text anywhere else, so a
player called ``<img src=x onerror=...>`` is drawn as those characters, never run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

COLOURS = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666")
WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 60, 20, 40, 50

Value = str | int | float  # an attribute's value; a float is written with one decimal
_XML_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]*\Z")
# Characters XML 1.0 cannot hold at all (controls, lone surrogates, U+FFFE/U+FFFF):
# drawn as U+FFFD, so a picture is well-formed whatever text it is given.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_TEXT_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_ATTR_ESCAPES = {**_TEXT_ESCAPES, '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}


def _escaped(value: str, escapes: Mapping[str, str]) -> str:
    value = _NOT_XML.sub("\ufffd", value)
    return "".join(escapes.get(c, c) for c in value) if any(c in escapes for c in value) else value


@dataclass(frozen=True)
class Element:
    """One SVG element: its tag, attributes and children (elements or text). Text and
    attribute values are escaped when written, so whatever a name holds it stays text:
    the only way markup gets into a picture is as an Element."""

    tag: str
    attributes: tuple[tuple[str, str], ...]
    children: tuple[Element | str, ...]

    def start(self) -> str:
        """The start tag alone (a document writes its children a line each)."""
        attrs = "".join(f' {k}="{_escaped(v, _ATTR_ESCAPES)}"' for k, v in self.attributes)
        return f"<{self.tag}{attrs}>"

    def __str__(self) -> str:
        if not self.children:
            return self.start()[:-1] + "/>"
        inner = "".join(
            str(c) if isinstance(c, Element) else _escaped(c, _TEXT_ESCAPES) for c in self.children
        )
        return f"{self.start()}{inner}</{self.tag}>"


def _written(value: Value) -> str:
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def element(
    tag: str, attributes: Mapping[str, Value] | None = None, *children: Element | str
) -> Element:
    """An element; attribute values are written as given (a float with one decimal) and,
    like the text children, escaped. Tags and attribute names are the code's own words:
    anything else is a ValueError (a bug, never outside text)."""
    attributes = attributes or {}
    for word in (tag, *attributes):
        if not _XML_NAME.match(word):
            raise ValueError(f"not an XML name: {word!r}")
    for child in children:
        if not isinstance(child, Element | str):
            raise TypeError(f"an element holds elements or text, not {type(child).__name__}")
    pairs = tuple((k, _written(v)) for k, v in attributes.items())
    return Element(tag, pairs, tuple(children))


def title(words: str) -> Element:
    """A tooltip: the ``<title>`` a mark or the picture holds."""
    return element("title", {}, words)


def document(
    heading: str, body: Sequence[Element], width: int = WIDTH, height: int = HEIGHT
) -> str:
    """A whole picture: white ground, the heading on top, then ``body``; one element a
    line, so a picture reads and diffs well."""
    head = element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "width": width,
            "height": height,
            "viewBox": f"0 0 {width} {height}",
            "font-family": "sans-serif",
            "font-size": "12",
        },
    )
    lines = [
        head.start(),
        str(title(heading)),
        str(element("rect", {"width": width, "height": height, "fill": "white"})),
        str(text(width / 2, 22, heading, attributes={"font-size": "15"})),
        *(str(part) for part in body),
        "</svg>",
        "",
    ]
    return "\n".join(lines)


def text(
    x: float,
    y: float,
    words: str,
    anchor: str = "middle",
    attributes: Mapping[str, Value] | None = None,
) -> Element:
    """A label at (x, y); ``words`` stay text whatever they hold."""
    place: dict[str, Value] = {"x": float(x), "y": float(y), "text-anchor": anchor}
    return element("text", {**place, **(attributes or {})}, words)


def line(x1: Value, y1: Value, x2: Value, y2: Value, **more: Value) -> Element:
    """A line; ``more`` are further attributes, ``_`` in a keyword written as ``-``."""
    ends: dict[str, Value] = {"x1": x1, "y1": y1, "x2": x2, "y2": y2}
    return element("line", {**ends, **{k.replace("_", "-"): v for k, v in more.items()}})


def axes(y_label: str, ticks: Sequence[tuple[float, str]], x_label: str) -> list[Element]:
    """The frame, the y ticks (already placed: pixel y, label) and both labels."""
    bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
    out = [
        line(LEFT, TOP, LEFT, bottom, stroke="black"),
        line(LEFT, bottom, right, bottom, stroke="black"),
    ]
    for y, label in ticks:
        out.append(line(LEFT - 4, float(y), right, float(y), stroke="#ddd"))
        out.append(text(LEFT - 6, y + 4, label, "end"))
    middle = (TOP + bottom) / 2
    out.append(text(14, middle, y_label, attributes={"transform": f"rotate(-90 14 {middle})"}))
    out.append(text((LEFT + right) / 2, HEIGHT - 10, x_label))
    return out


def nice_scale(low: float, high: float) -> tuple[float, float, list[float]]:
    """A rounded range and about five tick values covering [low, high]."""
    if high <= low:
        high = low + 1
    raw = (high - low) / 5
    step = next(s * 10**e for e in range(-3, 9) for s in (1, 2, 5) if s * 10**e >= raw)
    start = (low // step) * step
    ticks = []
    value = start
    while value <= high + step * 0.999:
        ticks.append(value)
        value += step
    return ticks[0], ticks[-1], ticks
