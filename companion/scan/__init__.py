"""Reading a photo of a Chomp land through fiducial markers stuck on the cards (docs/scan.md).

Every card quarter carries one small ArUco marker whose id says which card and which
quarter it is (:mod:`companion.scan.markers`, which also prints the sticker sheet).
:mod:`companion.scan.reader` finds the markers in a photo, fits the quarter grid under
perspective, turns them into cards placed with a rotation and builds the land through
the catalog; a cell it cannot read is listed, never guessed.
:mod:`companion.scan.land` builds the land from what was read (and ``--patch``), and
:mod:`companion.scan.report` says what was read, as JSON and as lines.
:mod:`companion.scan.synth` (a package apart from the reader, which never imports it)
renders synthetic photos with their ground truth for the tests and for
:mod:`companion.scan.bench`, the benchmark (a package of its own too).

OpenCV and Pillow come with the ``scan`` extra and are imported only here, below this
package: nothing else in companion needs them, and ``companion --help`` stays fast.
"""

from __future__ import annotations

from types import ModuleType

from companion.errors import CompanionError

INSTALL_HINT = (
    "photo scanning needs the scan extra: .venv/bin/pip install -e '.[scan]' "
    "in the project's folder (docs/scan.md)"
)


class ScanUnavailable(CompanionError, ImportError):
    """OpenCV (or Pillow) is not installed: the scan extra is missing."""

    def __init__(self) -> None:
        super().__init__(INSTALL_HINT)


def require_cv2() -> ModuleType:
    """``cv2`` with ArUco's ``ArucoDetector`` API (OpenCV >= 4.7), or ScanUnavailable."""
    try:
        import cv2
    except ImportError:
        raise ScanUnavailable() from None
    aruco = getattr(cv2, "aruco", None)
    if aruco is None or not hasattr(aruco, "ArucoDetector"):
        raise ScanUnavailable()
    return cv2


def require_scan() -> ModuleType:
    """OpenCV with ArUco and Pillow (what reading, rendering and the sheet need), or
    ScanUnavailable: one line saying how to get them."""
    cv2 = require_cv2()
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise ScanUnavailable() from None
    return cv2
