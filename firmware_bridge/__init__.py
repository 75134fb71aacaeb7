"""Wire protocol, host client and MicroPython firmware for the Pico bridge."""
