"""The link as a declared machine: its states, the moves allowed between them, its knobs.

::

    DOWN --port opened, HELLO sent--> HELLO --IDENTIFY--> SYNC --enough PONGs--> READY
                                        |  (clock already synchronised) --------^
    any state --port closed, silence, refused protocol--> DOWN

A HELLO sent while READY (a request to replay lost events) does not change the state.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from firmware_bridge.errors import LinkStateError


class LinkState(StrEnum):
    DOWN = "down"  # no port, or a port we will not talk on
    HELLO = "hello"  # HELLO sent, waiting for IDENTIFY
    SYNC = "sync"  # identified; pinging until the clock holds enough samples
    READY = "ready"  # edges are mapped and delivered


TRANSITIONS: dict[LinkState, frozenset[LinkState]] = {
    LinkState.DOWN: frozenset({LinkState.HELLO}),
    LinkState.HELLO: frozenset({LinkState.SYNC, LinkState.READY, LinkState.DOWN}),
    LinkState.SYNC: frozenset({LinkState.READY, LinkState.DOWN}),
    LinkState.READY: frozenset({LinkState.DOWN}),
}


def check_move(current: LinkState, to: LinkState) -> None:
    """Raise :class:`LinkStateError` unless ``current -> to`` is in the table (or a no-op)."""
    if to is not current and to not in TRANSITIONS[current]:
        raise LinkStateError(f"bridge link: no transition {current} -> {to}")


def _ns(seconds: float) -> int:
    return int(seconds * 1e9)


@dataclass(frozen=True, slots=True)
class BridgeTiming:
    """Every timing knob of one bridge, in seconds (and counts), in one place."""

    connect_timeout_s: float = 5.0  # the constructor waits this long for a synchronised link
    ping_interval_s: float = 0.25  # clock-sync pings once the drift is fitted
    quick_interval_s: float = 0.05  # pings until the clock holds quick_samples
    quick_samples: int = 120
    sync_interval_s: float = 0.02  # pings while synchronising
    sync_samples: int = 6  # PONGs before edges are delivered
    hello_retry_s: float = 0.3
    hello_timeout_s: float = 3.0  # no IDENTIFY by then: drop and reopen the port
    silence_s: float = 2.0  # nothing heard for this long: drop and reopen
    ping_stale_s: float = 2.0  # a PING unanswered this long is forgotten
    replay_retry_s: float = 1.0  # between two requests to replay missing events
    rto_s: float = 0.05  # a command's retransmission timeout
    max_attempts: int = 6  # sends of one command before it fails
    backoff_min_s: float = 0.05  # between attempts to reopen the port, doubling
    backoff_max_s: float = 2.0
    max_queue: int = 64  # commands waiting for their turn

    @property
    def hello_retry_ns(self) -> int:
        return _ns(self.hello_retry_s)

    @property
    def hello_timeout_ns(self) -> int:
        return _ns(self.hello_timeout_s)

    @property
    def sync_interval_ns(self) -> int:
        return _ns(self.sync_interval_s)

    @property
    def quick_interval_ns(self) -> int:
        return _ns(self.quick_interval_s)

    @property
    def ping_interval_ns(self) -> int:
        return _ns(self.ping_interval_s)

    @property
    def silence_ns(self) -> int:
        return _ns(self.silence_s)

    @property
    def ping_stale_ns(self) -> int:
        return _ns(self.ping_stale_s)

    @property
    def replay_retry_ns(self) -> int:
        return _ns(self.replay_retry_s)
