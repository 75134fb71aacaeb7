"""The picture of a decided round: every press on a time axis from the reveal.

One row per seat; each press a mark at its stamp after the reveal, in microseconds (a
press before the reveal sits left of the zero line: a false start); the tie window shaded
from the first valid slap; bad chomps and presses that did not count marked as such; the
winner's lead written beside the winning mark; and, under the axis, which clock stamped
the presses and how finely. Drawn from an :class:`~companion.referee.audit.AuditedRound`,
so the table's page and ``companion chomp audit --svg`` show the same picture, and any
past round can be drawn again from its journal.

Every mark has a class (``press``, ``winner``, ``tie``, ``bad``, ``ignored``, ``window``,
``lead``) so a page's style sheet and the tests can find them.

Two layouts of the same picture: the wide one (640 units, what ``chomp audit --svg`` and
the docs draw) and the phone's (``width=PHONE_WIDTH``): a phone scales the picture to its
width, so the phone's layout is as wide as a 360 px screen's column, keeping every 12-unit
label at 12 px or more, with the heading, legend and ticks laid out for that width.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from companion import svg
from companion.games.chomp.text import headline
from companion.referee.audit import AuditedRound, PressRow

ROW_HEIGHT = 36
PHONE_WIDTH = 320  # a 360 px phone's column (the page's margins take the rest)
NAME_CHARS = 13  # a longer name is cut on a phone (each mark's tooltip has it whole)
TICK_ROOM = 64  # units between two tick labels: "+250,000" at 12 units, with air
MARK_CLASS = {"winner": "winner", "tie": "tie"}
MARK_COLOUR = {
    "winner": "#1b9e77",
    "tie": "#e6ab02",
    "bad": "#d62728",
    "ignored": "#999999",
    "press": "#333333",
}


def _kind(press: PressRow) -> str:
    if press.status in MARK_CLASS:
        return MARK_CLASS[press.status]
    if press.status.startswith("bad chomp"):
        return "bad"
    if press.status.startswith(("not counted", "ignored")):
        return "ignored"
    return "press"


def _span(presses: Sequence[PressRow], window_from: int | None, window_us: int) -> tuple[int, int]:
    """The axis's range in microseconds: every press and the tie window in view, and the
    reveal too unless it lies so far before them that the presses would crowd together."""
    times = [p.t_us for p in presses]
    if window_from is not None:
        times += [window_from, window_from + window_us]
    if not times:
        return -1000, 1000
    low, high = min(times), max(times)
    if low > 0 and low <= 2 * max(high - low, 1):
        low = 0
    if high < 0:
        high = 0
    pad = max((high - low) // 10, 50)
    return low - pad, high + pad


def _mark(kind: str, x: float, y: float, press: PressRow) -> svg.Element:
    colour = MARK_COLOUR[kind]
    title = svg.title(f"{press.player} {press.t_us:+d} us: {press.status} [{press.source}]")
    if kind == "bad":
        stroke = {"stroke": colour, "stroke-width": "3"}
        return svg.element(
            "g",
            {"class": "bad"},
            title,
            svg.line(x - 6, y - 6, x + 6, y + 6, **stroke),
            svg.line(x - 6, y + 6, x + 6, y - 6, **stroke),
        )
    fill = "white" if kind == "ignored" else MARK_COLOUR[kind]
    return svg.element(
        "circle",
        {
            "class": kind,
            "cx": x,
            "cy": y,
            "r": "6",
            "fill": fill,
            "stroke": colour,
            "stroke-width": "2",
        },
        title,
    )


def _window(
    x0: float, x1: float, top: int, bottom: int, window_us: int, near_right: bool
) -> list[svg.Element]:
    """The tie window shaded from the first valid slap, and its label beside it."""
    window: dict[str, svg.Value] = {
        "class": "window",
        "x": x0,
        "y": float(top),
        "width": float(max(x1 - x0, 1)),
        "height": float(bottom - top),
        "fill": "#e6ab02",
        "fill-opacity": "0.18",
    }
    label = f"tie window {window_us:,} us"
    at_x, anchor = (x1 - 3, "end") if near_right else (x0 + 3, "start")
    return [svg.element("rect", window), svg.text(at_x, top - 4, label, anchor)]


def _reveal(zero: float, top: int, bottom: int) -> list[svg.Element]:
    """The dashed line at the reveal, and its label."""
    dashed: dict[str, svg.Value] = {
        "class": "reveal",
        "x1": zero,
        "y1": float(top - 10),
        "x2": zero,
        "y2": float(bottom),
        "stroke": "black",
        "stroke-dasharray": "4 3",
    }
    return [svg.element("line", dashed), svg.text(zero, top - 14, "reveal")]


def _stamped_by(presses: Sequence[PressRow], sources: Sequence[Mapping[str, object]]) -> list[str]:
    """One entry per source that stamped this round's presses (every source when none
    did), named once: "keyboard ±10,000 us", "gpio kernel_edge ±20 us"."""
    used = {p.source for p in presses}
    shown = [s for s in sources if s.get("name") in used] or list(sources)
    entries: list[str] = []
    for source in shown:
        name, timing = source.get("name"), source.get("timing")
        words = f"{name}" if timing in (None, name) else f"{name} {timing}"
        entry = f"{words} ±{source.get('uncertainty_us')} us"
        if entry not in entries:
            entries.append(entry)
    return entries


LEGEND = ("filled: a slap that counted", "hollow: did not count", "cross: bad chomp")


def _legend(
    left: float, y: float, clocks: list[str], narrow: bool
) -> tuple[list[svg.Element], float]:
    """Which clocks stamped the presses and what the marks mean: one line each on a phone."""
    grey: dict[str, svg.Value] = {"fill": "#555555"}
    lines: list[tuple[str, dict[str, svg.Value]]]
    if not narrow:
        lines = [(f"stamped by: {'; '.join(clocks) or 'unknown clock'}", {})]
        lines.append((" · ".join(LEGEND), grey))
    else:
        lines = [(f"stamped by: {c}", {}) for c in clocks or ["unknown clock"]]
        lines += [(words, grey) for words in LEGEND]
    out = [
        svg.text(left, y + 16 * i, words, "start", more) for i, (words, more) in enumerate(lines)
    ]
    return out, y + 16 * (len(lines) - 1)


def _ticks(low: int, high: int, room: float) -> list[float]:
    """The axis's tick values, thinned until their labels have room."""
    _, _, ticks = svg.nice_scale(low, high)
    shown = [t for t in ticks if low <= t <= high]
    step = 1
    while len(shown[::step]) > 1 and room / max(len(shown[::step]) - 1, 1) < TICK_ROOM:
        step += 1
    return shown[::step]


def round_svg(
    audited: AuditedRound, sources: Sequence[Mapping[str, object]] = (), width: int = svg.WIDTH
) -> str:
    """The round as a picture; ``sources`` are the journal's start entry's press sources;
    ``width`` below the wide picture's lays it out for a phone (see the module's notes)."""
    narrow = width < svg.WIDTH
    players = list(audited.cards) or sorted({p.player for p in audited.presses})
    counted = [p for p in audited.presses if _kind(p) in ("winner", "tie")]
    window_from = min((p.t_us for p in counted), default=None)
    low, high = _span(audited.presses, window_from, audited.tie_window_us)
    name_room = max((len(p) for p in players), default=3) * 7 + 12
    left = min(max(name_room, 40), 110) if narrow else svg.LEFT + 40
    right = width - (32 if narrow else svg.RIGHT)  # room for the last tick's label
    top = svg.TOP + 20
    bottom = top + ROW_HEIGHT * max(len(players), 1)

    def x_of(t_us: int) -> float:
        return left + (t_us - low) / (high - low) * (right - left)

    body: list[svg.Element] = []
    if window_from is not None:
        x0, x1 = x_of(window_from), x_of(window_from + audited.tie_window_us)
        body += _window(
            x0, x1, top, bottom, audited.tie_window_us, near_right=x0 > (left + right) / 2
        )
    if low <= 0 <= high:
        body += _reveal(x_of(0), top, bottom)
    else:
        body.append(
            svg.text(left, bottom + 30, f"<- the reveal was {low / 1000:,.1f} ms earlier", "start")
        )
    body.append(svg.line(left, bottom, right, bottom, stroke="black"))
    for t in _ticks(low, high, right - left) if narrow else svg.nice_scale(low, high)[2]:
        if low <= t <= high:
            body.append(svg.text(x_of(int(t)), bottom + 14, f"{t:+,.0f}"))
    axis = "microseconds after the reveal"
    if narrow and not low <= 0 <= high:
        body.append(svg.text(right, bottom + 46, axis, "end"))
        legend_y = bottom + 64
    else:
        body.append(svg.text(right, bottom + 30, axis, "end"))
        legend_y = bottom + 48
    for row, player in enumerate(players):
        y = top + ROW_HEIGHT * (row + 0.5)
        label = (
            player if not narrow or len(player) <= NAME_CHARS else player[: NAME_CHARS - 1] + "…"
        )
        body.append(svg.text(left - 8, y + 4, label, "end"))
        body.append(svg.line(left, y, right, y, stroke="#eeeeee"))
        for press in (p for p in audited.presses if p.player == player):
            kind = _kind(press)
            body.append(_mark(kind, x_of(press.t_us), y, press))
            if press.margin_us is not None:
                x = x_of(press.t_us)
                anchor = ("end" if x > (left + right) / 2 else "start") if narrow else "middle"
                body.append(
                    svg.text(
                        x,
                        y - 10,
                        f"first by {press.margin_us:,} us",
                        anchor,
                        attributes={"class": "lead", "font-weight": "bold"},
                    )
                )
    legend, last_y = _legend(
        left if not narrow else 8, legend_y, _stamped_by(audited.presses, sources), narrow
    )
    body += legend
    heading = f"Round {audited.n}" if narrow else f"Round {audited.n}: {headline(audited.verdict)}"
    return svg.document(heading, body, width=width, height=int(last_y + 12))
