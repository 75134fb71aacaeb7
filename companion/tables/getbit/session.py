"""A Get Bit! table put together: the saved game, the optional lights and lock-in buttons,
the optional card tags and their readers, all released by one ExitStack.

Options, pins and readers are opened before the saved game, so a mistake in any of them
does not leave a new game file behind.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack, closing
from pathlib import Path

from companion.games.getbit import Setup
from companion.tables.camera import set_frames_aside
from companion.tables.getbit.camera import GetBitCamera
from companion.tables.getbit.config import GetBitConfig
from companion.tables.getbit.hardware import TableHardware
from companion.tables.getbit.saved import SavedGame
from companion.tables.getbit.table import GetBitTable
from companion.tables.getbit.tags import TableTags
from companion.tags.readers import TagReader
from companion.tags.specs import open_reader
from companion.tags.tagfile import TagFile

# robot per reader index (None: one reader for the table), and robot -> card colour
TagOptions = Callable[[Setup], tuple[dict[int, str] | None, dict[str, str]]]


class _Readers:
    """The tag readers, closed by the tags' runner once it has them, else one by one."""

    def __init__(self) -> None:
        self.readers: list[TagReader] = []
        self.tags: TableTags | None = None

    def close(self) -> None:
        if self.tags is not None:
            self.tags.close()
        else:
            for reader in self.readers:
                reader.close()


def open_getbit_table(
    save: Path,
    setup: Setup | None,
    *,
    resume: bool = False,
    new: bool = False,
    secret: bool = False,
    config: GetBitConfig | None = None,
    pin_factory: str | None = None,
    tagfile: TagFile | None = None,
    reader_specs: Sequence[str] = (),
    tag_options: TagOptions | None = None,
) -> GetBitTable:
    """The table for a new game saved at ``save`` (``setup``), or the one saved there
    (``resume``). Close it with :meth:`GetBitTable.close`."""
    with ExitStack() as stack:
        if tagfile is not None and setup is not None and tag_options is not None:
            tag_options(setup)  # its mistakes before anything is opened
        hardware = None
        if config is not None and setup is not None:
            hardware = stack.enter_context(closing(TableHardware(config, setup, pin_factory)))
        sources = stack.enter_context(closing(_Readers()))
        for i, spec in enumerate(reader_specs):
            sources.readers.append(open_reader(spec, sys.stdin, index=i))
        camera = None  # opened before the save: one that cannot be is one line, no new game
        if config is not None and config.camera is not None:
            camera = GetBitCamera(config.camera, save).start()
            stack.callback(camera.close)
        saved, messages = SavedGame.open(save, setup, resume, new)
        stack.callback(saved.release)
        if config is not None and hardware is None:
            hardware = stack.enter_context(closing(TableHardware(config, saved.setup, pin_factory)))
        if hardware is not None:
            messages.append(f"pins: {hardware.opened.detail}")
        tags = None
        if tagfile is not None:
            seats, colours = tag_options(saved.setup) if tag_options else (None, {})
            tags = sources.tags = TableTags(tagfile, sources.readers, saved, seats, colours)
            messages += tags.describe(saved.setup)
        if camera is not None:
            if not resume:
                set_frames_aside(saved.path)  # a new game: round 1 is not an old game's
            messages += camera.describe()
        table = GetBitTable(saved, secret, hardware, tags, camera)  # arms the first round
        table.messages = messages
        if tags is not None:
            tags.start()
        table.closing = stack.pop_all()
    return table
