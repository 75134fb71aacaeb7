"""Which numbers of a wrapping sequence arrived: new ones, duplicates, gaps, late arrivals."""

from __future__ import annotations

from firmware_bridge import codec


class SeqTracker:
    """Which numbers of a sequence arrived: new ones, duplicates, gaps, late arrivals.

    ``bits`` is the width of the numbers on the wire; they are extended (unwrapped) against
    the highest number seen, so a 16-bit per-button count can run for ever.
    """

    KEEP = 4096  # missing numbers older than this are given up as lost

    def __init__(self, bits: int = 32) -> None:
        self.bits = bits
        # A number this far ahead is not believed at once: a frame whose CRC passed by
        # chance (or a bug) would otherwise make every later number a "duplicate". It is
        # refused; a second one right after it proves the jump real, and the count
        # resynchronises there.
        self.far = min(1 << 16, (1 << bits) >> 3)
        self.suspect: int | None = None
        self.refused = 0  # numbers refused as too far ahead
        self.resyncs = 0  # jumps proved real
        self.top: int | None = None
        self.missing: set[int] = set()
        self.gaps = 0  # numbers skipped when a later one arrived
        self.recovered = 0  # skipped numbers that arrived after all
        self.abandoned = 0  # skipped numbers given up for lost
        self.duplicates = 0

    def accept(self, raw: int) -> bool:
        """True the first time a number is seen."""
        if self.top is None:
            self.top = raw
            return True
        n = codec.unwrap(raw, self.top, self.bits)
        if n - self.top > self.far:
            if self.suspect is not None and n == self.suspect + 1:
                self.start_after(n)
                self.resyncs += 1
                self.suspect = None
                return True
            self.suspect = n
            self.refused += 1
            return False
        if n > self.top:
            skipped = n - self.top - 1
            if skipped:
                self.gaps += skipped
                self.missing.update(range(max(self.top + 1, n - self.KEEP), n))
            self.top = n
            if self.missing and min(self.missing) < n - self.KEEP:
                self.missing = {m for m in self.missing if m >= n - self.KEEP}
            return True
        if n in self.missing:
            self.missing.discard(n)
            self.recovered += 1
            return True
        self.duplicates += 1
        return False

    def start_after(self, n: int) -> None:
        """Numbers up to ``n`` belong to before our time: expect ``n + 1`` next."""
        self.top = n
        self.missing.clear()

    def give_up(self, numbers: set[int]) -> int:
        """Stop waiting for these missing numbers; how many were still missing."""
        gone = self.missing & numbers
        self.missing -= gone
        self.abandoned += len(gone)
        return len(gone)

    def would_accept(self, raw: int) -> bool:
        if self.top is None:
            return True
        n = codec.unwrap(raw, self.top, self.bits)
        if n - self.top > self.far:
            return self.suspect is not None and n == self.suspect + 1
        return n > self.top or n in self.missing

    @property
    def contiguous(self) -> int | None:
        """Every number up to this one has arrived (since the first)."""
        if self.top is None:
            return None
        return min(self.missing) - 1 if self.missing else self.top

    @property
    def lost(self) -> int:
        """Skipped numbers still missing."""
        return len(self.missing)
