"""Wire protocol, host client and MicroPython firmware for the Pico bridge.

Split as Klipper's host is: :mod:`~firmware_bridge.codec` knows bytes (and runs on the Pico
too), :mod:`~firmware_bridge.transport` knows the serial port and retries,
:mod:`~firmware_bridge.clock` knows how the Pico's microseconds map onto the host's
nanoseconds and how sure that is, :mod:`~firmware_bridge.session` is the protocol as a
declared machine (:mod:`~firmware_bridge.link`: its states and knobs;
:mod:`~firmware_bridge.messages`: decoded messages), and :mod:`~firmware_bridge.host` puts
them together as a press source and card-reveal source. It imports nothing from
``companion``: it speaks in its own terms (:mod:`~firmware_bridge.events`,
:mod:`~firmware_bridge.errors`) and the application adapts. :mod:`~firmware_bridge.sim` is a
simulated Pico running the firmware's own core; :mod:`~firmware_bridge.bench` measures.
``PROTOCOL.md`` is the wire format.
"""
