"""The camera at a table: the ``[camera]`` config and what the table does at a reveal.

Shared by CHOMP! and Get Bit!: at each reveal the table arms the camera with the seats in
play and how many cards each shows; the frames read since the reveal's stamp go through
the :class:`~companion.camera.reader.RevealReader` in the worker's process and thread
(:mod:`companion.camera.worker`), never on the referee's loop. Then:

* every seat read the same in two frames: the round's cards go to the table as typed
  cards do, saying ``"source": "camera"`` and the frames' stamps;
* at the deadline, the seats read are kept and the others asked (one line each); the
  person types only those, and the completed round goes in as one entry with ``asked``;
* the frame that gave the cards is saved beside the journal, the markers outlined
  (``<journal stem>.frames/round-NNNN.jpg``) for a dispute to be settled by looking;
* the camera failing (unplugged) is one line on the screen and in the log; the table
  goes on with typed cards, nothing recorded lost.

The camera never stamps a slap or a reveal: the pins and the reveal button do.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from companion import data
from companion.camera.model import Zone
from companion.camera.worker import NICE, is_live
from companion.data import archive
from companion.errors import CompanionError, InputError
from companion.files import check_path, write_atomic

if TYPE_CHECKING:
    from companion.camera.model import Seen
    from companion.camera.reader import Ask, ReadUpdate
    from companion.camera.worker import CameraReading, Opener
    from companion.camera.zones import Zones

log = logging.getLogger(__name__)

CAMERA_KEYS = ("source", "deck", "deadline_ms", "zones")
DEADLINE_MS = 1500.0
NO_DEADLINE_NS = 24 * 3600 * 10**9  # Get Bit!: no hurry, the cards can be typed any time


@dataclass(frozen=True)
class CameraConfig:
    """``[camera]``: where the frames come from, the deck file, how long to wait after the
    reveal before asking, and each seat's zone on the picture."""

    source: str
    deck: Path | None = None  # None: the printed sheet's own binding
    deadline_ms: float = DEADLINE_MS
    zones: tuple[Zone, ...] = ()

    def relative_to(self, folder: Path) -> CameraConfig:
        """A deck file or a recording named relative to the config's folder."""
        deck = self.deck
        if deck is not None and not deck.is_absolute():
            deck = folder / deck
        source = self.source
        if not is_live(source) and not Path(source).is_absolute():
            source = str(folder / source)
        return CameraConfig(source, deck, self.deadline_ms, self.zones)


def camera_from(
    raw: Mapping[str, object], seats: Sequence[str] | None
) -> tuple[CameraConfig, list[str]]:
    """The parsed config's ``[camera]`` and the warnings for the table (a seat without a
    zone is always asked); a bad value is one InputError naming ``camera.<key>``.
    ``seats``: the table's seats (None: not known until the game is set up)."""
    c = data.obj(raw["camera"], "camera", required=("source",), optional=CAMERA_KEYS)
    source = data.name(c["source"], "camera.source", "camera")
    try:
        check_path(source)
    except InputError as exc:
        raise data.fail("camera.source", exc.message) from None
    deck = None
    if "deck" in c:
        deck_text = data.name(c["deck"], "camera.deck", "file")
        try:
            deck = Path(check_path(deck_text))
        except InputError as exc:
            raise data.fail("camera.deck", exc.message) from None
    deadline = data.number(c.get("deadline_ms", DEADLINE_MS), "camera.deadline_ms", 100, 30_000)
    zones: list[Zone] = []
    if "zones" in c:
        from companion.camera.zones import Zones, zones_from_config

        zones = zones_from_config(c["zones"], "camera.zones")
        Zones(zones, "camera.zones")  # overlapping or degenerate: one line now, not mid-game
        for zone in zones:
            if seats is not None and zone.seat not in seats:
                raise data.fail(data.at("camera.zones", zone.seat), f"no seat {zone.seat!r}")
    warnings = []
    missing = [s for s in seats or () if s not in {z.seat for z in zones}]
    if missing:
        warnings.append(
            f"camera.zones: no zone for {', '.join(missing)}: the camera cannot read "
            "their cards, they are asked every round (companion camera setup finds the zones)"
        )
    return CameraConfig(source, deck, deadline, tuple(zones)), warnings


def frames_folder(journal: Path) -> Path:
    """Where a journal's evidence frames are kept: ``<journal stem>.frames`` beside it."""
    return journal.with_name(f"{journal.stem}.frames")


def frame_path(journal: Path, n: int) -> Path:
    return frames_folder(journal) / f"round-{n:04d}.jpg"


def set_frames_aside(journal: Path) -> Path | None:
    """A new game at this journal: the old game's frames are kept under a dated name
    (never deleted) so the new game's round 1 is not the old one's."""
    folder = frames_folder(journal)
    if not folder.is_dir() or not any(folder.iterdir()):
        return None
    return archive(folder)


@dataclass
class Pending:
    """A round the camera read in part: the seats read and the frames that agreed."""

    n: int
    cards: dict[str, tuple[str, ...]]
    frames_ns: tuple[int, ...]


@dataclass
class TableCamera:
    """The camera at one table (module docstring), in card names; a game's table turns
    them into its own terms through ``on_cards``.

    ``on_cards(n, cards, frames_ns)`` gets a round every seat of which was read;
    ``notify`` every line for people. :meth:`prefilled` and :meth:`complete` tell the
    screen and the phones what to ask for when the camera read only part of a round,
    and what the completed round says of where its cards came from.
    """

    config: CameraConfig
    game: str  # "chomp" | "getbit"
    journal: Callable[[], Path]  # the journal now (a new game may change it)
    on_cards: Callable[[int, dict[str, tuple[str, ...]], tuple[int, ...]], None]
    notify: Callable[[str], None]
    opener: Opener | None = None
    reading: CameraReading | None = None
    pending: Pending | None = None
    failed: str | None = None
    zones: Zones | None = None
    expect: dict[int, dict[str, int]] = field(default_factory=dict)  # the round armed
    busy: int | None = None  # the round being read, until its cards or its deadline
    # Called with every line said, after the state it tells of changed (the phones' page).
    watchers: list[Callable[[str | None], None]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def start(self) -> TableCamera:
        """Open the deck and zones (one line if wrong) and start the worker."""
        from companion.camera.deck import StickerDeck, load_deck
        from companion.camera.reader import RevealReader
        from companion.camera.worker import CameraReading, default_opener
        from companion.camera.zones import Zones

        deck = StickerDeck.default(self.game) if self.config.deck is None else None
        if self.config.deck is not None:
            deck = load_deck(self.config.deck)
            if deck.game != self.game:
                raise InputError(
                    "camera.deck", f"{self.config.deck} is a deck for {deck.game}, not {self.game}"
                )
        assert deck is not None
        self.zones = Zones(list(self.config.zones), "camera.zones")
        reader = RevealReader(deck, self.zones)
        self.reading = CameraReading(
            self.config.source,
            reader,
            self._cards,
            self._ask,
            self._fault,
            markers=None,  # every marker counts: one of the other game is asked about
            opener=self.opener or default_opener,
            on_log=lambda line: log.info("%s", line),
        ).start()
        return self

    # ------------------------------------------------------------- the table's calls --

    def arm(self, n: int, expect: Mapping[str, int], reveal_ns: int) -> None:
        """Round ``n``'s cards are up since ``reveal_ns`` (the reveal's stamp)."""
        with self._lock:
            if self.pending is not None and self.pending.n != n:
                self.pending = None
        self.expect = {n: dict(expect)}
        if self.reading is not None and self.failed is None:
            self.busy = n
            deadline = reveal_ns + int(self.config.deadline_ms * 1e6)
            self.reading.arm(n, expect, reveal_ns, deadline)

    def arm_when_clear(self, n: int, expect: Mapping[str, int]) -> None:
        """Round ``n`` of a game without a reveal stamp (Get Bit!): read from the first
        frame with no card in any seat's zone on, until every seat is read (the cards
        can be typed meanwhile)."""
        with self._lock:
            if self.pending is not None and self.pending.n != n:
                self.pending = None
        self.expect = {n: dict(expect)}
        if self.reading is None or self.failed is not None or self.zones is None:
            return
        zones = self.zones

        def clear(seen: Seen) -> bool:
            placed = zones.place(seen)
            return not placed.between and not any(placed.by_seat.values())

        self.reading.arm_when_clear(n, expect, clear, NO_DEADLINE_NS)

    def disarm(self) -> None:
        """The round was decided (or its cards typed first): stop reading it."""
        if self.reading is not None:
            self.reading.disarm()
        with self._lock:
            self.pending = None
        self.busy = None

    def reading_round(self, n: int) -> bool:
        """Whether the camera is still reading round ``n`` (the deadline not passed): a
        page waits for it before asking for the cards."""
        return self.busy == n and self.failed is None

    def prefilled(self, n: int) -> dict[str, tuple[str, ...]]:
        """The seats of round ``n`` the camera read, when it read only some."""
        with self._lock:
            pending = self.pending
        return dict(pending.cards) if pending is not None and pending.n == n else {}

    def complete(
        self, n: int, typed_seats: Sequence[str]
    ) -> tuple[str | None, tuple[int, ...], tuple[str, ...]]:
        """What a completed round says of where its cards came from: ("camera", frames,
        the seats typed) when the camera read part of round ``n``, else (None, (), ())."""
        with self._lock:
            pending = self.pending
        if pending is None or pending.n != n:
            return None, (), ()
        return "camera", pending.frames_ns, tuple(typed_seats)

    def preview(self, timeout_s: float = 3.0) -> bytes | None:
        """The camera's latest frame with each seat's zone drawn (and the markers seen):
        the setup's check that the zones are where the cards go. None: no frame."""
        if self.reading is None or self.failed is not None:
            return None
        got: list[bytes | None] = []
        done = threading.Event()

        def reply(jpeg: bytes | None) -> None:
            got.append(jpeg)
            done.set()

        zones = [(z.seat, z.polygon) for z in self.config.zones]
        self.reading.evidence(None, reply, zones)
        done.wait(timeout_s)
        return got[0] if got else None

    def set_zones(self, zones: Sequence[Zone]) -> None:
        """New zones (set up on the page between rounds): checked, drawn on the preview at
        once, and read with from the next round on (a round being read keeps its own)."""
        from companion.camera.zones import Zones

        checked = Zones(list(zones), "camera.zones")
        self.config = replace(self.config, zones=tuple(zones))
        self.zones = checked
        if self.reading is not None:
            self.reading.set_zones(checked)

    def show(self, placed: Mapping[str, Sequence[int]] | None) -> None:
        """The simulated camera: the markers now face up at each seat (None: none)."""
        if self.reading is not None and self.failed is None:
            self.reading.worker.show(placed)

    def close(self) -> None:
        if self.reading is not None:
            self.reading.close()

    def say(self, line: str | None) -> None:
        """A line for the table (its screen and log), then for each watcher (the page);
        None: nothing to say, but something to show changed (a round's frame saved)."""
        if line is not None:
            self.notify(line)
        for watch in list(self.watchers):
            try:
                watch(line)
            except Exception:  # noqa: BLE001 - a page's bug, kept off the camera's thread
                log.exception("camera watcher failed")

    # ------------------------------------------------------------- the camera's -------

    def _ask(self, n: int, ask: Ask) -> None:
        self.say(f"camera: {ask.why}")

    def _cards(self, n: int, update: ReadUpdate) -> None:
        if self.busy == n:
            self.busy = None
        cards = dict(update.cards or {})
        expect = self.expect.get(n, {})
        wrong = [s for s, hand in cards.items() if len(hand) != expect.get(s, len(hand))]
        for seat in wrong:  # the reader's own rule, kept here too: ask, never pass it on
            seen = len(cards.pop(seat))
            self.say(f"camera: {seen} cards seen for {seat}, who shows {expect[seat]}: type them")
        complete = update.complete and not wrong
        if update.frame_index is not None and cards:
            self._keep_evidence(n, update.frame_index)
        if complete:
            self.on_cards(n, cards, update.frames_ns)
            return
        if cards:
            with self._lock:
                self.pending = Pending(n, cards, update.frames_ns)
            read = ", ".join(f"{s} {' + '.join(c)}" for s, c in cards.items())
            self.say(f"camera read {read}: type the others' cards")
        else:
            self.say("camera read no card this round: type the cards")

    def _fault(self, line: str) -> None:
        """Unplugged (or a recording over): one line, and the table types its cards."""
        with self._lock:
            if self.failed is not None:
                return
            self.failed = line
        self.say(f"{line}: the table goes on with typed cards")

    def _keep_evidence(self, n: int, index: int) -> None:
        assert self.reading is not None
        path = frame_path(self.journal(), n)

        def save(jpeg: bytes | None) -> None:
            if jpeg is None:
                log.warning("round %d: the evidence frame %d was no longer kept", n, index)
                return
            try:
                path.parent.mkdir(exist_ok=True)
                write_atomic(path, jpeg, "the round is journalled; only its picture is lost")
            except (OSError, CompanionError) as exc:
                self.say(f"round {n}'s camera frame not saved ({exc})")
                return
            self.say(None)

        self.reading.evidence(index, save)


MAX_FRAME_BYTES = 8_000_000  # a 720p JPEG is some 100 kB; a bigger file is not ours


def evidence_of(journal: Path, n: int) -> bytes | None:
    """Round ``n``'s evidence frame (JPEG bytes), or None when there is none (or what
    is there is not a frame: a folder, a device, something huge)."""
    try:
        return data.read_bytes(frame_path(journal, n), MAX_FRAME_BYTES, "camera frame")
    except InputError:
        return None


def describe(config: CameraConfig | None) -> list[str]:
    """Lines for the table's start: the camera's source and zones."""
    if config is None:
        return []
    seats = ", ".join(z.seat for z in config.zones) or "none"
    return [
        f"camera {config.source}: zones for {seats}; the seats not read are asked "
        f"{config.deadline_ms:g} ms after the reveal; frames read in their own process "
        f"at lower priority (nice +{NICE})"
    ]
