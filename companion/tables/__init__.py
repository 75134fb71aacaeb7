"""The apps at the table: each assembles config, devices, card sources, a journal or a
save file and outputs into a session, with its screens (and, for CHOMP!, its demo).

* :mod:`companion.tables.chomp`: the CHOMP! referee's table and the simulated demo;
* :mod:`companion.tables.getbit`: the Get Bit! table;
* :mod:`companion.tables.shell`: the curses and line-mode loops every table runs in;
* :mod:`companion.tables.bridge_source`: the one door to the Pico bridge's buttons.
"""
