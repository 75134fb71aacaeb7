"""Files we write go only where a file is: never over or in place of a device, a FIFO, a
socket, a folder or a symbolic link, and never renamed aside (companion/files.py,
``check_target``). Before: ``write_atomic`` replaced ``/dev/full`` with a regular file (as
root), ``getbit``/``chips play --new`` renamed the node aside, ``tags learn --out`` replaced
a dangling or looping link with a file.

A character device cannot be made as a user: the FIFO and the links stand for it here, and
``/dev/null`` is only looked at (lstat), never written. Every test writes inside its tmp
folder only.
"""

from __future__ import annotations

import os
import resource
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT, RunCli, examples
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.errors import InputError, WriteError
from companion.files import check_target, lock_exclusive, make_room, write_atomic

KINDS = ("fifo", "dangling link", "link loop", "link to a file", "folder")
SAYS = {
    "fifo": "is a named pipe, not a file: give a file's path",
    "dangling link": "is a symbolic link, not a file",
    "link loop": "is a symbolic link, not a file",
    "link to a file": "is a symbolic link, not a file",
    "folder": "is a folder, not a file: give a file's path",
}


def make_node(folder: Path, kind: str) -> Path:
    """A node of ``kind`` at folder/node (a regular file beside it for the link to name)."""
    node = folder / "node"
    if kind == "fifo":
        os.mkfifo(node)
    elif kind == "dangling link":
        node.symlink_to(folder / "nowhere")
    elif kind == "link loop":
        node.symlink_to(node)
    elif kind == "link to a file":
        (folder / "real.json").write_text("kept\n")
        node.symlink_to(folder / "real.json")
    else:
        node.mkdir()
    return node


def snapshot(folder: Path) -> dict[str, tuple[int, str]]:
    """Every name in the folder with its type and what it holds or points to."""
    seen: dict[str, tuple[int, str]] = {}
    for path in sorted(folder.iterdir()):
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            what = os.readlink(path)
        elif stat.S_ISREG(mode):
            what = path.read_text()
        elif stat.S_ISDIR(mode):
            what = ",".join(sorted(p.name for p in path.iterdir()))
        else:
            what = ""
        seen[path.name] = (stat.S_IFMT(mode), what)
    return seen


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# -- the tests themselves --------------------------------------------------------------------


def test_temporary_files_of_a_test_stay_in_its_own_folder(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Before: a demo's journal and the benches' folders went to /tmp and stayed there
    (companion-bench-*, companion-demo-*), from every run of the suite."""
    base = tmp_path_factory.getbasetemp()
    for folder in (tempfile.gettempdir(), os.environ["TMPDIR"], tempfile.mkdtemp()):
        assert Path(folder).is_relative_to(base), folder


# -- the one check ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_check_target_refuses_every_node_that_is_not_a_file(tmp_path: Path, kind: str) -> None:
    node = make_node(tmp_path, kind)
    with pytest.raises(InputError, match=SAYS[kind]) as refused:
        check_target(node)
    assert str(refused.value).startswith(f"{node}: ")


def test_check_target_says_a_device_is_a_device_by_looking_only() -> None:
    """/dev/null is lstat'ed, never opened: no test writes to /dev."""
    with pytest.raises(InputError, match="/dev/null: is a device, not a file: give a file's"):
        check_target("/dev/null")


def test_check_target_lets_a_new_or_regular_file_through(tmp_path: Path) -> None:
    assert check_target(tmp_path / "new.json") == str(tmp_path / "new.json")
    (tmp_path / "old.json").write_text("{}")
    assert check_target(tmp_path / "old.json") == str(tmp_path / "old.json")
    for bad in ("", f"{tmp_path}/", "x" * 300, "a\0b"):
        with pytest.raises(InputError):
            check_target(bad)


# -- every writer ----------------------------------------------------------------------------


def _write_atomic(node: Path) -> None:
    write_atomic(node, "new\n")


def _lock(node: Path) -> None:
    lock_exclusive(node, "journal").release()


def _make_room(node: Path) -> None:
    make_room(node, new=True)


WRITERS: dict[str, Callable[[Path], None]] = {
    "write_atomic": _write_atomic,
    "lock_exclusive": _lock,
    "make_room": _make_room,
}


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("kind", KINDS)
def test_no_writer_writes_over_renames_or_follows_a_node(
    tmp_path: Path, kind: str, writer: str
) -> None:
    node = make_node(tmp_path, kind)
    before = snapshot(tmp_path)
    with pytest.raises(InputError, match=SAYS[kind]):
        WRITERS[writer](node)
    assert snapshot(tmp_path) == before


def test_write_atomic_replaces_a_regular_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    path.write_text("old\n")
    (tmp_path / ".out.json.tmp").write_text("left by a write cut off\n")
    write_atomic(path, "new\n")
    assert snapshot(tmp_path) == {"out.json": (stat.S_IFREG, "new\n")}


def test_write_atomic_never_follows_a_link_at_its_temporary(tmp_path: Path) -> None:
    """The temporary is created O_EXCL|O_NOFOLLOW: a link planted at its name is refused,
    and the file it names is not written."""
    (tmp_path / "victim").write_text("kept\n")
    (tmp_path / ".out.json.tmp").symlink_to(tmp_path / "victim")
    with pytest.raises(InputError, match="symbolic link"):
        write_atomic(tmp_path / "out.json", "new\n")
    assert (tmp_path / "victim").read_text() == "kept\n"
    assert not (tmp_path / "out.json").exists()


def test_an_impossible_name_to_write_is_one_write_error(tmp_path: Path) -> None:
    """252 characters fit the file but not its temporary (.NAME.tmp): ENAMETOOLONG."""
    with pytest.raises(WriteError, match="cannot write .*File name too long"):
        write_atomic(tmp_path / ("n" * 252), "x")
    assert list(tmp_path.iterdir()) == []


@settings(max_examples=examples(40), deadline=None)
@given(content=st.binary(max_size=2000), old=st.none() | st.binary(max_size=200))
def test_property_write_atomic_leaves_exactly_the_new_bytes(
    tmp_path_factory: pytest.TempPathFactory, content: bytes, old: bytes | None
) -> None:
    folder = tmp_path_factory.mktemp("atomic")
    path = folder / "f.bin"
    if old is not None:
        path.write_bytes(old)
    write_atomic(path, content)
    assert path.read_bytes() == content
    assert [p.name for p in folder.iterdir()] == ["f.bin"]


# -- the commands that write -----------------------------------------------------------------

JOURNAL = ROOT / "examples" / "chomp-journal.jsonl"


def _commands(node: Path) -> dict[str, list[str]]:
    return {
        "tags learn": ["tags", "learn", "--game", "chomp", "--out", str(node)],
        "history export": ["history", "--db", ":memory:", "export", "-o", str(node)],
        "chomp audit --svg": ["chomp", "audit", str(JOURNAL), "--round", "2", "--svg", str(node)],
        "getbit play --new": [
            "getbit", "play", "--players", "john,anne,beth,ted", "--line", "ted,anne,beth,john",
            "--save", str(node), "--new", "--no-history",
        ],
        "chips play --new": [
            "chips", "play", "--players", "ann,bob,cat", "--save", str(node), "--new",
            "--no-history",
        ],
    }  # fmt: skip


COMMANDS = tuple(_commands(Path("x")))
NOT_A_FOLDER = tuple(k for k in KINDS if k != "folder")


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("kind", KINDS)
def test_every_write_command_refuses_a_node_in_one_line_and_leaves_it(
    run_cli: RunCli, tmp_path: Path, kind: str, command: str
) -> None:
    node = make_node(tmp_path, kind)
    before = snapshot(tmp_path)
    status, _, err = run_cli(*_commands(node)[command])
    assert status == 2
    line = one_line(err)
    assert str(node) in line and SAYS[kind] in line, line
    assert snapshot(tmp_path) == before


# -- the JSON readers and names: leftovers of the last campaign -------------------------------


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b'{"game": "chomp", "tags": {"04A1B2C3": ' + b"9" * 5000 + b"}}", "5000 digits"),
        (b"[" * 100_000, "nested too deeply"),
        (b'{"game": "chomp", "tags": {"\xff": "seal"}}', "not UTF-8"),
    ],
    ids=["5000-digit integer", "deep nesting", "invalid UTF-8"],
)
@pytest.mark.parametrize("command", ["check", "read", "learn"])
def test_a_tag_file_beyond_any_of_ours_is_one_line_naming_it(
    run_cli: RunCli, tmp_path: Path, content: bytes, says: str, command: str
) -> None:
    """Before: the 5,000-digit integer was a ValueError traceback (Python's 4,300-digit
    limit), in all three commands."""
    path = tmp_path / "tags.json"
    path.write_bytes(content)
    argv = {
        "check": ["tags", "check", str(path)],
        "read": ["tags", "read", "--reader", "keyboard", "--tags", str(path), "--count", "1"],
        "learn": ["tags", "learn", "--game", "chomp", "--out", str(path)],
    }[command]
    status, _, err = run_cli(*argv)
    line = one_line(err)
    assert status == 2 and line.startswith(f"companion: {path}") and says in line, line
    assert path.read_bytes() == content


@pytest.mark.parametrize("length", [252, 300])
def test_tags_learn_with_an_over_long_name_is_one_line(
    run_cli: RunCli, tmp_path: Path, length: int
) -> None:
    """Before: ENAMETOOLONG from Path.exists, a traceback (300); 252 fits but its
    temporary does not."""
    status, _, err = run_cli(
        "tags", "learn", "--game", "chomp", "--out", str(tmp_path / ("t" * length))
    )
    line = one_line(err)
    assert status == 2 and ("too long" in line), line
    assert list(tmp_path.iterdir()) == []


# -- bench counts ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["bench", "dino", "--cells", "99999999999999999999"], "--cells: from 1 to 1000000, not"),
        (["bench", "dino", "--repeat", "0"], "--repeat: from 1 to 10000, not 0"),
        (["bench", "scan", "--photos", "99999999999999999999"], "--photos: from 1 to 10000"),
        (["bench", "history", "--games", "1e9"], "--games: from 1 to 100000, not 1e9"),
    ],
)
def test_a_bench_count_out_of_its_range_is_refused_at_once(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    """Before: bench dino and bench scan took 99999999999999999999 and ran for ever."""
    with pytest.raises(SystemExit) as refused:
        main(argv)
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_a_bench_count_says_its_range_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "dino", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "cells in the land, 1 to 1000000 (10000)" in out


# -- the autoplay demo on a full disk --------------------------------------------------------


@pytest.mark.slow
def test_demo_autoplay_on_a_full_disk_stops_with_its_line_and_exits_2(tmp_path: Path) -> None:
    """Before: the journal's write failed, the table said it stops, and autoplay waited for
    a deadline that never passed, for ever. The disk is full by RLIMIT_FSIZE in the child
    (the demo's journal is in TMPDIR, this test's folder); the timeout only fails a hang."""
    limit = 3000  # the start line and a few rounds

    def capped() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONDONTWRITEBYTECODE="1")
    result = subprocess.run(
        [sys.executable, "-m", "companion", "demo", "--autoplay", "--seed", "7"],
        capture_output=True, text=True, cwd=tmp_path, preexec_fn=capped, env=env, timeout=120,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert "cannot write the journal" in last and "the table stops" in last
    (journal,) = tmp_path.glob("companion-demo-*/demo-journal.jsonl")
    assert 0 < journal.stat().st_size <= limit and journal.read_bytes().endswith(b"\n")


# -- the photo commands (the scan extra) -----------------------------------------------------


@pytest.fixture(scope="module")
def land_photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A photo of the example land, beside its catalog (as tests/test_scan_cli.py makes it)."""
    cv2 = pytest.importorskip("cv2")
    import json
    import random

    from companion.games.dino.formats import catalog_from_dict, placement_from_dict
    from companion.scan.synth import Style, render

    folder = tmp_path_factory.mktemp("scan")
    catalog = json.loads((ROOT / "examples" / "dino-catalog.example.json").read_text())
    (folder / "catalog.json").write_text(json.dumps(catalog))
    log = json.loads((ROOT / "examples" / "dino-placements.json").read_text())
    placements = [placement_from_dict(p, "p") for p in log["placements"]]
    style = Style(occluders=(0,), blur_max=0.8, noise_max=4.0, margin_cells=1.0)
    photo = render(random.Random(7), catalog_from_dict(catalog), placements, (2000, 1500), style)
    cv2.imwrite(str(folder / "land.png"), photo.image)
    return folder / "land.png"


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_dino_scan_and_markers_refuse_a_node_in_one_line_and_leave_it(
    run_cli: RunCli, tmp_path: Path, land_photo: Path, kind: str
) -> None:
    """Before: cv2.imwrite and Pillow wrote through a link and into a FIFO (a hang)."""
    node = make_node(tmp_path, kind)
    before = snapshot(tmp_path)
    catalog = str(land_photo.with_name("catalog.json"))
    for argv in (
        ["dino", "scan", str(land_photo), "--catalog", catalog, "--annotated", str(node)],
        ["dino", "markers", catalog, "--dpi", "72", "-o", str(node)],
    ):
        status, _, err = run_cli(*argv)
        line = one_line(err)
        assert status == 2 and str(node) in line and SAYS[kind] in line, line
        assert snapshot(tmp_path) == before
