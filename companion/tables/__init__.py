"""The apps at the table.

Each package assembles config, devices, card sources, a journal or save file and screens.
"""
