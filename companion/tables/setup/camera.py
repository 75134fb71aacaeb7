"""``companion camera setup``: each seat's zone on the picture, from one card per seat.

The seats are named (or taken from the table's config), each seat puts down the card it is
told (the deck's kinds one a seat, so a seat is known by its card, never by where people
are guessed to sit), and frames are read until every seat's card has been seen in two
frames. The zones are printed and written into the table config's ``[camera.zones]``:
only that section changes, every other line (comments included) is kept, existing zones
are replaced only with a yes, and the result is parsed before it is written.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from companion import data
from companion.camera.model import Frame, FrameSource, Seen, Sighting, Zone
from companion.camera.zones import (
    CardBook,
    config_lines,
    setup_cards,
    zones_from_cards,
    zones_from_config,
)
from companion.errors import ConfigError, InputError
from companion.files import write_atomic
from companion.tables.setup.console import Console
from companion.tables.setup.wizard import seat_names

SETUP_AGREE = 2  # frames in which every seat's card must be seen
SETUP_SECONDS = 10.0  # of frames read before a card still not seen is one line
SECTION = "[camera.zones]"
_HEADER = re.compile(r"^\s*\[")


@dataclass(frozen=True)
class CameraSetup:
    """What ``companion camera setup`` was given."""

    config: Path
    seats: tuple[str, ...] = ()  # --seats; empty: asked (the config's players offered)


def read_cards(
    source: FrameSource,
    see: Callable[[Frame], Seen],
    seats: Sequence[str],
    deck: CardBook,
    agree: int = SETUP_AGREE,
    most_frames: int | None = None,
) -> list[Zone]:
    """Frames until each seat's card is seen alone (one of its kind) in ``agree`` frames,
    then its zone around the place it was last seen; a card still missing after
    ``most_frames`` (or the recording's end) is one InputError naming the seat."""
    shows = setup_cards(deck, seats)
    fps = source.fps if source.fps > 0 else 30.0
    most = most_frames if most_frames is not None else max(agree, int(fps * SETUP_SECONDS))
    counts = dict.fromkeys(seats, 0)
    last: dict[str, Sighting] = {}
    size: tuple[int, int] | None = None
    latest: Seen | None = None
    for _ in range(most):
        frame = source.read()
        if frame is None:
            break
        latest = see(frame)
        size = latest.size
        for seat in seats:
            mine = [s for s in latest.sightings if deck.card_of(s.marker) == shows[seat]]
            if len(mine) == 1:
                counts[seat] += 1
                last[seat] = mine[0]
        if all(n >= agree for n in counts.values()):
            break
    if latest is None or size is None:
        raise InputError(source.describe, "no frame came from the camera")
    if not all(n >= agree for n in counts.values()):
        zones_from_cards(latest, seats, deck, shows)  # names the missing or doubled card
        waiting = [s for s, n in counts.items() if n < agree]
        raise InputError(waiting[0], f"{waiting[0]}'s card was not seen in {agree} frames")
    gathered = Seen(latest.index, latest.t_ns, size, tuple(last[s] for s in seats))
    return zones_from_cards(gathered, seats, deck, shows)


def with_zones(text: str, zones: Sequence[Zone]) -> str:
    """``text`` (a table config) with its ``[camera.zones]`` section set to ``zones``.

    Every other line is kept as it is; the section is added at the end when missing. The
    result is parsed (and its zones read back) before it is returned, so a file this would
    break is never written.
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == SECTION), None)
    new = config_lines(zones)
    if start is None:
        while lines and not lines[-1].strip():
            lines.pop()
        lines += ["", *new] if lines else new
    else:
        end = next((i for i in range(start + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
        kept = lines[start + 1 : end]
        tail: list[str] = []  # blank lines and comments before the next section stay with it
        while kept and (not kept[-1].strip() or kept[-1].lstrip().startswith("#")):
            tail.insert(0, kept.pop())
        lines[start:end] = [*new, *tail]
    result = "\n".join(lines) + "\n"
    try:
        parsed = tomllib.loads(result)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(
            "camera.zones", f"cannot be set in this file ({exc}): edit it by hand"
        ) from None
    written = parsed.get("camera", {}).get("zones", {})
    if zones_from_config(written) != list(zones):
        raise InputError("camera.zones", "the file holds zones elsewhere: edit it by hand")
    return result


def write_zones(path: Path, updated: str) -> list[Zone]:
    """Write ``updated`` (the config :func:`with_zones` made) atomically and read its
    zones back: the terminal's setup and the web page's drag both save through here."""
    write_atomic(path, updated, safe=f"{path} is unchanged")
    try:
        return zones_from_config(data.read_toml(path)["camera"]["zones"])
    except (InputError, KeyError) as exc:
        raise ConfigError("camera.zones", f"written but not read back: {exc}", str(path)) from None


def save_zones(path: Path, zones: Sequence[Zone]) -> list[Zone]:
    """``[camera.zones]`` of the config at ``path`` set to ``zones`` (every other line
    kept, comments too), written atomically and read back."""
    _check_config(path)
    data.read_toml(path)  # a file that is no TOML (or no UTF-8) is one line, left as it is
    text = data.read_bytes(path, what="config file").decode("utf-8")
    return write_zones(path, with_zones(text, zones))


def zone_lines(zones: Sequence[Zone]) -> list[str]:
    """The zones as a person reads them: each seat's box in percent of the picture."""
    lines = []
    for zone in zones:
        xs = [x for x, _ in zone.polygon]
        ys = [y for _, y in zone.polygon]
        lines.append(
            f"{zone.seat}: {min(xs):.0%}-{max(xs):.0%} across, {min(ys):.0%}-{max(ys):.0%} down "
            f"({len(zone.polygon)} corners)"
        )
    return lines


def _config_seats(raw: dict[str, object]) -> list[str]:
    players = raw.get("players")
    if not isinstance(players, list):
        return []
    names = [p.get("name") for p in players if isinstance(p, dict)]
    return [n for n in names if isinstance(n, str)]


def ask_seats(console: Console, offered: Sequence[str]) -> list[str]:
    """Seat names in seat order; Enter takes the config's players when it names them."""
    hint = f" (Enter: {' '.join(offered)})" if offered else ""
    while True:
        answer = console.ask(f"seat names, in seat order{hint}: ")
        words = answer.replace(",", " ").split() if answer else list(offered)
        try:
            return seat_names(words)
        except InputError as exc:
            console.say(f"refused: {exc}")


def _check_config(path: Path) -> None:
    if not path.is_file():
        raise InputError(
            str(path), "no table config there: `companion setup` writes one (--config names it)"
        )


def camera_setup(
    options: CameraSetup,
    console: Console,
    source: FrameSource,
    see: Callable[[Frame], Seen],
    deck: CardBook,
) -> int:
    """The whole run on an opened camera (the tests' entry): 0 when written, 1 when the
    person kept the file as it was."""
    path = options.config
    _check_config(path)
    raw = data.read_toml(path)  # a file that is no TOML is one line before anything is asked
    text = data.read_bytes(path, what="config file").decode("utf-8")
    if options.seats:
        seats = seat_names(options.seats, "--seats")
    else:
        seats = ask_seats(console, _config_seats(raw))
    shows = setup_cards(deck, seats)
    console.say(
        "put one card face up where each seat reveals: "
        + ", ".join(f"{seat} a {card}" for seat, card in shows.items())
    )
    console.ask(f"then press Enter (the camera is {source.describe}) ")
    zones = read_cards(source, see, seats, deck)
    for line in zone_lines(zones):
        console.say(line)
    updated = with_zones(text, zones)
    old = raw.get("camera", {}).get("zones") if isinstance(raw.get("camera"), dict) else None
    if old:
        question = f"{path} has zones for {', '.join(map(str, old))}: replace them?"
        if not console.yes(question, False):
            console.say(f"{path} left as it was")
            return 1
    elif not console.yes(f"write these zones into {path}?", True):
        console.say(f"{path} left as it was")
        return 1
    read_back = write_zones(path, updated)
    console.say(f"{path}: [camera.zones] written for {len(read_back)} seats and read back")
    return 0


def run_camera_setup(
    options: CameraSetup, console: Console, camera: str | None, deck_file: Path | None, game: str
) -> int:
    """Open what the command line names (the camera, the deck, the detector) and run."""
    _check_config(options.config)  # before the camera's modules (and OpenCV) load
    import importlib

    from companion.camera.deck import StickerDeck, load_deck
    from companion.camera.detect import Detector

    # the sources are built beside this (cam-synth): looked up when used, as `learn` does
    sources = importlib.import_module("companion.camera.sources")

    section: object = data.read_toml(options.config).get("camera", {})
    section = section if isinstance(section, dict) else {}
    spec = camera
    if spec is None and "source" in section:
        spec = data.name(section["source"], "camera.source", "camera source")
    if deck_file is None and "deck" in section:
        deck_file = options.config.resolve().parent / data.name(section["deck"], "camera.deck")
    deck = load_deck(deck_file) if deck_file is not None else StickerDeck.default(game)
    source: FrameSource = sources.open_camera(spec or "picamera2")
    try:
        return camera_setup(options, console, source, Detector().see, deck)
    finally:
        source.close()
