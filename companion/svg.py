"""SVG written by the project: no plotting library needed on a Pi.

The few pieces every picture shares (the document, a text label, a frame with its ticks, a
rounded scale) so the history's plots and the round picture of a CHOMP! verdict look alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

COLOURS = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666")
WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 60, 20, 40, 50


def document(title: str, body: Sequence[str], width: int = WIDTH, height: int = HEIGHT) -> str:
    """A whole picture: white ground, the title on top, then ``body``."""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">'
    )
    return "\n".join(
        [
            head,
            f"<title>{escape(title)}</title>",
            f'<rect width="{width}" height="{height}" fill="white"/>',
            text(width / 2, 22, title, extra=' font-size="15"'),
            *body,
            "</svg>",
            "",
        ]
    )


def text(x: float, y: float, words: str, anchor: str = "middle", extra: str = "") -> str:
    """A label at (x, y), escaped."""
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{escape(words)}</text>'


def axes(y_label: str, ticks: Sequence[tuple[float, str]], x_label: str) -> list[str]:
    """The frame, the y ticks (already placed: pixel y, label) and both labels."""
    bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
    out = [
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="black"/>',
        f'<line x1="{LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="black"/>',
    ]
    for y, label in ticks:
        out.append(f'<line x1="{LEFT - 4}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(text(LEFT - 6, y + 4, label, "end"))
    out.append(
        text(
            14,
            (TOP + bottom) / 2,
            y_label,
            extra=f' transform="rotate(-90 14 {(TOP + bottom) / 2})"',
        )
    )
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
