"""Wire protocol, host client and MicroPython firmware for the Pico bridge.

Split as Klipper's host is: :mod:`~firmware_bridge.codec` knows bytes (and runs on the Pico
too), :mod:`~firmware_bridge.transport` knows the serial port and retries,
:mod:`~firmware_bridge.clock` knows how the Pico's microseconds map onto the host's
nanoseconds and how sure that is, and :mod:`~firmware_bridge.host` puts them together as
the referee's press source and card-reveal source. :mod:`~firmware_bridge.sim` is a
simulated Pico running the firmware's own core; :mod:`~firmware_bridge.bench` measures.
``PROTOCOL.md`` is the wire format.
"""
