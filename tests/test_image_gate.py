"""The image gate (companion/photo_gate.py, docs/scan.md "The image gate"): every photo's
format and size are read from its header before anything decodes it, so a header that
claims gigapixels is one line, never gigabytes; and the gate's ``decode`` is the only
door from outside bytes to OpenCV's decoder (``dino scan``, one photo or several, and
the web page's upload)."""

from __future__ import annotations

import io
import re
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import RunCli, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import photo_gate as gate
from companion.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
CATALOG = str(EXAMPLES / "dino-catalog.example.json")
TAKEN = "JPEG, PNG, WebP, TIFF, BMP or GIF"


# --------------------------------------------------------------------------------------
# Headers built by hand: each claims a size and holds no pixels at all
# --------------------------------------------------------------------------------------


def png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (
        b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
    )


def jpeg_header(width: int, height: int, sof: int = 0xC0, sampling: int = 0x22) -> bytes:
    """SOI, an APP0, a frame header of three components, a scan header: no data."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0"
    comps = bytes([1, sampling, 0, 2, 0x11, 1, 3, 0x11, 1])
    frame = struct.pack(">BHHB", 8, height, width, 3) + comps
    sof_segment = bytes([0xFF, sof]) + struct.pack(">H", 2 + len(frame)) + frame
    scan = b"\x03\x01\x00\x02\x11\x03\x11\x00\x3f\x00"
    return b"\xff\xd8" + app0 + sof_segment + b"\xff\xda" + struct.pack(">H", 12) + scan


def webp_vp8x(width: int, height: int) -> bytes:
    body = b"\x10\0\0\0" + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    chunk = b"VP8X" + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def webp_vp8(width: int, height: int) -> bytes:
    frame = b"\x10\x02\x00" + b"\x9d\x01\x2a" + struct.pack("<HH", width, height)
    chunk = b"VP8 " + struct.pack("<I", len(frame)) + frame
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def webp_vp8l(width: int, height: int) -> bytes:
    bits = (width - 1) | ((height - 1) << 14)
    frame = b"\x2f" + bits.to_bytes(4, "little")
    chunk = b"VP8L" + struct.pack("<I", len(frame)) + frame
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def tiff_header(width: int, height: int, order: str = "<") -> bytes:
    mark = b"II*\0" if order == "<" else b"MM\0*"
    entries = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 8), (277, 3, 1, 3)]
    ifd = struct.pack(order + "H", len(entries))
    for tag, kind, count, value in entries:
        packed = (
            struct.pack(order + "HH", value, 0) if kind == 3 else struct.pack(order + "I", value)
        )
        ifd += struct.pack(order + "HHI", tag, kind, count) + packed
    return mark + struct.pack(order + "I", 8) + ifd + b"\0\0\0\0"


def bmp_header(width: int, height: int, version: int = 40) -> bytes:
    if version == 12:
        dib = struct.pack("<IHHHH", 12, width, height, 1, 24)
    else:
        dib = struct.pack("<IiiHH", version, width, height, 1, 24) + b"\0" * (version - 16)
    return b"BM" + struct.pack("<IHHI", 14 + len(dib), 0, 0, 14 + len(dib)) + dib


def gif_header(width: int, height: int, frame: tuple[int, int] | None = None) -> bytes:
    fw, fh = frame or (width, height)
    screen = struct.pack("<HHBBB", width, height, 0, 0, 0)
    descriptor = b"\x2c" + struct.pack("<HHHHB", 0, 0, fw, fh, 0)
    return b"GIF89a" + screen + b"\x21\xf9\x04\0\0\0\0\0" + descriptor


# --------------------------------------------------------------------------------------
# Real files, made in the test
# --------------------------------------------------------------------------------------


def pillow(fmt: str, size: tuple[int, int] = (320, 240), mode: str = "RGB", **kw: Any) -> bytes:
    image = pytest.importorskip("PIL.Image")
    picture = image.new(mode, size, (40, 160, 90) if mode == "RGB" else (40, 160, 90, 200))
    out = io.BytesIO()
    picture.save(out, fmt, **kw)
    return out.getvalue()


REAL = {
    "baseline JPEG": lambda: pillow("JPEG"),
    "progressive JPEG": lambda: pillow("JPEG", progressive=True),
    "PNG": lambda: pillow("PNG"),
    "WebP": lambda: pillow("WEBP"),  # lossy: VP8
    "WebP lossless": lambda: pillow("WEBP", lossless=True),  # VP8L
    "WebP alpha": lambda: pillow("WEBP", mode="RGBA"),  # VP8X
    "TIFF": lambda: pillow("TIFF"),
    "TIFF deflate": lambda: pillow("TIFF", compression="tiff_adobe_deflate"),
    "BMP": lambda: pillow("BMP"),
    "GIF": lambda: pillow("GIF"),
}


@pytest.fixture()
def no_decoder(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """OpenCV's decoder replaced by one that counts its calls and decodes nothing."""
    cv2 = pytest.importorskip("cv2")
    calls: list[int] = []

    def counted(*args: object) -> None:
        calls.append(1)
        return None

    monkeypatch.setattr(cv2, "imdecode", counted)
    yield calls


@pytest.mark.parametrize("kind", sorted(REAL))
def test_a_real_photo_of_each_format_is_measured_and_decoded_at_its_size(kind: str) -> None:
    pytest.importorskip("cv2")
    raw = REAL[kind]()
    header = gate.read_header(raw, "photo")
    assert (header.width, header.height) == (320, 240)
    assert header.format.split()[-1] == kind.split()[0] or kind.endswith("JPEG")
    image = gate.decode(raw, "photo")
    assert image.shape == (240, 320, 3)


@pytest.mark.parametrize(
    ("raw", "size"),
    [
        (tiff_header(4000, 3000, ">"), (4000, 3000)),
        (tiff_header(3000, 4000, "<"), (3000, 4000)),
        (bmp_header(4000, -3000), (4000, 3000)),  # a top-down bitmap
        (bmp_header(4000, 3000, 12), (4000, 3000)),  # the oldest header (OS/2 1.x)
        (bmp_header(4000, 3000, 124), (4000, 3000)),  # version 5
        (webp_vp8(4000, 3000), (4000, 3000)),
        (webp_vp8l(4000, 3000), (4000, 3000)),
        (gif_header(300, 300, (4000, 3000)), (4000, 3000)),  # a frame past the screen
        (jpeg_header(4000, 3000, 0xC9), (4000, 3000)),  # arithmetic coding
        (jpeg_header(4000, 3000, 0xCA), (4000, 3000)),  # progressive arithmetic
    ],
)
def test_hand_built_headers_say_their_size(raw: bytes, size: tuple[int, int]) -> None:
    header = gate.read_header(raw, "photo")
    assert (header.width, header.height) == size


# --------------------------------------------------------------------------------------
# Bombs and slivers: one line each, and the decoder is never called
# --------------------------------------------------------------------------------------

BOMBS = {
    "jpeg 32000x32000": (jpeg_header(32000, 32000), "32000 x 32000 pixels: too big"),
    "webp 16383x16383": (webp_vp8x(16383, 16383), "16383 x 16383 pixels: too big"),
    "png 1 gigapixel": (png_header(32768, 32768), "32768 x 32768 pixels: too big"),
    "png 65535x65535": (png_header(65535, 65535), "65535 x 65535 pixels: too big"),
    "jpeg 65535x65535": (jpeg_header(65535, 65535), "65535 x 65535 pixels: too big"),
    "tiff 65535x65535": (tiff_header(65535, 65535, ">"), "too big for a photo"),
    "bmp 2^31 rows": (bmp_header(40000, -(2**31)), "too big for a photo"),
    "gif 65535x65535": (gif_header(65535, 65535), "too big for a photo"),
    "png 1x20000": (png_header(1, 20000), "1 x 20000 pixels: not a photo of a land"),
    "jpeg 20000x1": (jpeg_header(20000, 1), "not a photo of a land"),
    "png 8000x1000": (png_header(8000, 1000), "not a photo of a land"),
    "png 200x150": (png_header(200, 150), "not a photo of a land"),
    "png 150 MP": (png_header(14142, 10607), "decoding it would take about"),
    "webp 30 MP": (webp_vp8x(6400, 4800), "decoding it would take about"),
    "progressive jpeg 100 MP": (jpeg_header(11547, 8660, 0xC2), "decoding it would take"),
    "progressive jpeg 64 MP": (jpeg_header(9248, 6936, 0xC2), "about 216 MB, more than"),
    "empty": (b"", f"the file is empty: send a photo ({TAKEN})"),
    "garbage": (b"\x00\x01garbage" * 10, TAKEN),
    "jpeg 2000": (b"\0\0\0\x0cjP  \r\n\x87\n" + b"\0" * 40, TAKEN),
    "openexr": (b"\x76\x2f\x31\x01" + b"\0" * 40, TAKEN),
    "radiance hdr": (b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 30000 +X 30000\n", TAKEN),
    "pnm": (b"P6\n30000 30000\n255\n", TAKEN),
    "sun raster": (b"\x59\xa6\x6a\x95" + struct.pack(">II", 30000, 30000) + b"\0" * 24, TAKEN),
    "pfm": (b"PF\n30000 30000\n-1.0\n", TAKEN),
    "svg": (b'<svg xmlns="http://www.w3.org/2000/svg" width="99999" height="99999"/>', TAKEN),
    "heic": (b"\0\0\0\x18ftypheic\0\0\0\0mif1heic", TAKEN),
    "bigtiff": (b"II+\0\x08\0\0\0" + b"\0" * 16, "a BigTIFF"),
    "lossless jpeg": (jpeg_header(4000, 3000, 0xC3), "a lossless or hierarchical JPEG"),
    "jpeg no size": (jpeg_header(4000, 0), "does not say its size"),
    "jpeg 12 bits": (jpeg_header(4000, 3000, 0xC1).replace(b"\x11\x08", b"\x11\x0c", 1), "12-bit"),
    "jpeg two frames": (
        jpeg_header(400, 300)[:-14] + jpeg_header(40000, 30000)[20:],
        "two frame headers",
    ),
}


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_a_bomb_or_no_photo_is_one_line_before_any_decoding(
    no_decoder: list[int], name: str
) -> None:
    raw, expected = BOMBS[name]
    with pytest.raises(InputError) as caught:
        gate.decode(raw, "photo")
    line = str(caught.value)
    assert line.startswith("photo: ") and expected in line and "\n" not in line
    assert no_decoder == []


def test_a_200_megapixel_jpeg_is_taken_and_decoded_at_a_quarter_of_each_side() -> None:
    """The biggest phone photos are read, at a quarter of each side, by the JPEG decoder
    as it reads (its full size never exists in memory)."""
    chosen = gate.plan(jpeg_header(16320, 12240), "photo")
    assert chosen.reduce == 4 and chosen.size == (4080, 3060)
    assert chosen.decode_bytes <= gate.DECODE_BYTES


@pytest.mark.parametrize(
    ("size", "reduce"),
    [((4032, 3024), 1), ((4000, 2250), 1), ((6000, 4000), 2), ((8160, 6120), 2), ((9248, 6936), 2)],
)
def test_every_phone_photo_size_is_taken(size: tuple[int, int], reduce: int) -> None:
    """12 MP 4:3 and 16:9, 24 MP 3:2, 50 and 64 MP: taken as cameras write them
    (baseline JPEG); a progressive JPEG up to 50 MP (its coefficients, held at full
    size, leave less room for the image: it may be reduced more, never below 2000
    pixels a side)."""
    assert gate.plan(jpeg_header(*size), "photo").reduce == reduce
    if size[0] * size[1] <= 50_000_000:
        chosen = gate.plan(jpeg_header(*size, 0xC2), "photo")
        assert chosen.reduce >= reduce and max(chosen.size) >= gate.MIN_WORK_SIDE
    assert gate.plan(png_header(4032, 3024), "photo").reduce == 1


def test_a_reduced_photo_is_decoded_by_the_decoder_at_that_reduction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("cv2")
    monkeypatch.setattr(gate, "WORK_PIXELS", 320 * 240 // 16)
    for kind in ("baseline JPEG", "PNG"):
        assert gate.decode(REAL[kind](), "photo").shape == (60, 80, 3)


@pytest.mark.parametrize("kind", ["baseline JPEG", "PNG", "WebP", "WebP alpha", "GIF", "BMP"])
def test_a_header_cut_at_every_byte_is_one_line(no_decoder: list[int], kind: str) -> None:
    raw = REAL[kind]()
    end = {"PNG": 29, "BMP": 26, "GIF": 30}.get(kind, 30)
    if kind.endswith("JPEG"):
        end = raw.index(b"\xff\xda") + 4
    for cut in range(end):
        with pytest.raises(InputError) as caught:
            gate.decode(raw[:cut], "photo")
        assert str(caught.value).startswith("photo: ") and "\n" not in str(caught.value)
    assert no_decoder == []


def test_a_whole_file_with_its_pixels_cut_off_is_one_line() -> None:
    pytest.importorskip("cv2")
    raw = REAL["PNG"]()
    with pytest.raises(InputError, match="whose pixels cannot be read"):
        gate.decode(raw[: len(raw) // 2], "photo")


# --------------------------------------------------------------------------------------
# Fuzz: random bytes and mutated real headers
# --------------------------------------------------------------------------------------


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_fuzz_random_bytes_are_read_or_refused_in_one_line(raw: bytes) -> None:
    try:
        gate.plan(raw, "photo")
    except InputError as exc:
        assert "\n" not in str(exc)


MUTABLE = ["baseline JPEG", "progressive JPEG", "PNG", "WebP", "WebP alpha", "TIFF", "BMP", "GIF"]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(MUTABLE),
    st.lists(st.tuples(st.integers(0, 400), st.integers(0, 255)), max_size=6),
    st.integers(0, 10_000),
)
def test_fuzz_mutated_real_photos_are_decoded_or_refused_in_one_line(
    kind: str, changes: list[tuple[int, int]], keep: int
) -> None:
    """Bytes changed in and after the header, the file cut anywhere: decoded (whatever
    OpenCV makes of it) or one InputError; nothing else escapes."""
    pytest.importorskip("cv2")
    raw = bytearray(_real(kind))
    for at, value in changes:
        if at < len(raw):
            raw[at] = value
    try:
        image = gate.decode(bytes(raw[: max(keep, 1)]), "photo")
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        height, width = image.shape[:2]
        assert width * height <= gate.WORK_PIXELS


_CACHE: dict[str, bytes] = {}


def _real(kind: str) -> bytes:
    if kind not in _CACHE:
        _CACHE[kind] = REAL[kind]()
    return _CACHE[kind]


@settings(max_examples=examples(300), deadline=None)
@given(
    st.sampled_from([png_header, jpeg_header, webp_vp8x, tiff_header, bmp_header, gif_header]),
    st.integers(1, 65535),
    st.integers(1, 16383),
)
def test_every_accepted_header_fits_the_decoding_budget(
    build: Any, width: int, height: int
) -> None:
    """The invariant the memory figure rests on: whatever is taken is decoded to at most
    WORK_PIXELS and holds at most DECODE_BYTES while decoding."""
    try:
        chosen = gate.plan(build(width, height), "photo")
    except InputError:
        return
    assert (chosen.header.width, chosen.header.height) == (width, height)
    out_width, out_height = chosen.size
    assert out_width * out_height <= gate.WORK_PIXELS
    assert chosen.decode_bytes <= gate.DECODE_BYTES
    assert width * height <= gate.MAX_PIXELS
    if chosen.reduce > 1:  # reduced for the scan's size, or for memory down to 2000 px
        half = gate.Plan(chosen.header, chosen.reduce // 2)
        too_big = half.size[0] * half.size[1] > gate.WORK_PIXELS
        assert too_big or max(chosen.size) >= gate.MIN_WORK_SIDE


def test_the_gate_is_the_only_door_to_the_decoder() -> None:
    """No other module hands a file to cv2.imdecode or cv2.imread (the synthesizer's
    own round-trip through JPEG is not an outside file)."""
    calls = re.compile(r"\bimdecode\(|\bimread\(")
    found = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "companion").rglob("*.py")
        if "synth" not in path.parts and calls.search(path.read_text())
    ]
    assert found == ["companion/photo_gate.py"]


# --------------------------------------------------------------------------------------
# dino scan and the web page
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "body", "expected"),
    [
        ("empty.jpg", b"", "empty.jpg: the file is empty"),
        ("bomb.jpg", jpeg_header(32000, 32000), "bomb.jpg: 32000 x 32000 pixels: too big"),
        ("bomb.webp", webp_vp8x(16383, 16383), "bomb.webp: 16383 x 16383 pixels: too big"),
        ("strip.png", png_header(1, 20000), "strip.png: 1 x 20000 pixels: not a photo"),
    ],
)
def test_dino_scan_of_a_bomb_or_an_empty_file_is_one_line_status_2(
    run_cli: RunCli, tmp_path: Path, name: str, body: bytes, expected: str
) -> None:
    pytest.importorskip("cv2")
    photo = tmp_path / name
    photo.write_bytes(body)
    for photos in ([str(photo)], [str(EXAMPLES / "dino-land-photo.jpg"), str(photo)]):
        status, out, err = run_cli("dino", "scan", *photos, "--catalog", CATALOG, "--no-annotated")
        assert (status, out) == (2, "")
        assert err.count("\n") == 1 and "Traceback" not in err
        assert err.startswith("companion: ") and f"{tmp_path}/{expected}" in err


def test_dino_scan_of_a_damaged_photo_is_one_line_even_from_the_c_decoders(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """libpng prints its own error to file descriptor 2 ("libpng error: ..."): the
    command's refusal stays the only line on the terminal."""
    pytest.importorskip("cv2")
    from companion.cli import main

    whole = pillow("PNG", (640, 480), compress_level=0)
    photo = tmp_path / "cut.png"
    photo.write_bytes(whole[: len(whole) // 2])
    status = main(["dino", "scan", str(photo), "--catalog", CATALOG, "--no-annotated"])
    out, err = capfd.readouterr()
    assert (status, out) == (2, "")
    assert err == f"companion: {photo}: a PNG whose pixels cannot be read (damaged or cut short?)\n"


@pytest.fixture()
def phone() -> Iterator[tuple[Any, Any]]:
    pytest.importorskip("cv2")
    pytest.importorskip("starlette", reason="the web extra is not installed")
    from starlette.testclient import TestClient

    from companion.commands.dino import read_catalog
    from companion.tables.web.app import create_app
    from companion.tables.web.serve import build_site

    site = build_site(None, None)
    site.code = "joincode"
    site.photo.catalog = read_catalog(CATALOG)
    site.photo.catalog_name = "example"
    client = TestClient(create_app(site))
    assert client.get("/?code=joincode", follow_redirects=False).status_code == 303
    yield site, client


def _upload(client: Any, body: bytes, query: str = "") -> Any:
    headers = {"origin": "http://testserver", "content-type": "image/jpeg"}
    return client.post(f"/api/photo{query}", content=body, headers=headers)


WEB_BOMBS = ["jpeg 32000x32000", "webp 16383x16383", "png 1 gigapixel", "png 65535x65535"]
WEB_BOMBS += ["png 1x20000", "garbage", "progressive jpeg 100 MP"]


def test_a_web_upload_bomb_is_a_400_of_one_line_and_the_land_read_is_kept(
    phone: tuple[Any, Any],
) -> None:
    site, client = phone
    photo = (EXAMPLES / "dino-land-photo.jpg").read_bytes()
    first = _upload(client, photo)
    assert first.status_code == 200, first.text
    read = site.photo.readings[:]
    assert read
    for name in WEB_BOMBS:
        for query in ("", "?add=1"):
            answer = _upload(client, BOMBS[name][0], query)
            assert answer.status_code == 400, (name, answer.text)
            assert answer.text.startswith("photo: ") and answer.text.count("\n") == 1
            assert BOMBS[name][1] in answer.text
    assert site.photo.readings == read and site.photo.photos == [photo]


# VmHWM, not ru_maxrss: Linux carries the parent's peak into ru_maxrss across exec.
MEASURE = """
import sys
from companion.commands.dino import read_catalog
from companion.photo_gate import open_photo
from companion.scan.reader import read_photo
image = open_photo(sys.argv[1])
reading = read_photo(image, read_catalog(sys.argv[2]))
status = open("/proc/self/status").read()
peak = status.split("VmHWM:")[1].split()[0]
print(image.shape[1], image.shape[0], len(reading.cells), peak)
"""


@pytest.mark.slow
def test_the_worst_photo_the_gate_takes_is_read_in_under_300_mb(tmp_path: Path) -> None:
    """A 59 MP progressive JPEG (its coefficients held at full size: what costs most
    among the photos a camera could write) decoded and scanned in a process of its own:
    its peak resident memory, Python and OpenCV included, stays under 300 MB."""
    import subprocess
    import sys

    cv2 = pytest.importorskip("cv2")
    if not Path("/proc/self/status").exists():
        pytest.skip("the peak is read from /proc (Linux)")
    example = cv2.imread(str(EXAMPLES / "dino-land-photo.jpg"))
    photo = tmp_path / "huge.jpg"
    big = cv2.resize(example, (8870, 6650), interpolation=cv2.INTER_LINEAR)
    assert cv2.imwrite(str(photo), big, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    del big
    assert gate.plan(photo.read_bytes(), "huge.jpg").reduce == 4
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(photo), CATALOG],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    width, height, cells, peak_kb = map(int, done.stdout.split())
    assert (width, height) == (2218, 1663) and cells > 0
    assert peak_kb < 300 * 1024, f"{peak_kb // 1024} MB"


def test_the_refusals_docs_scan_md_shows_are_the_gates_own() -> None:
    page = " ".join((ROOT / "docs" / "scan.md").read_text("utf-8").split())
    shown = {
        "bomb.jpg": jpeg_header(32000, 32000),
        "strip.png": png_header(1, 20000),
        "land.heic": BOMBS["heic"][0],
        "big.png": png_header(14142, 10607),
    }
    for name, raw in shown.items():
        with pytest.raises(InputError) as caught:
            gate.plan(raw, name)
        assert f"`companion: {caught.value}`" in page
