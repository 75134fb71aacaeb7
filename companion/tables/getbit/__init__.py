"""The Get Bit! table: ``session`` opens it (``saved`` game, ``config`` and ``hardware``
for the lights and lock-in buttons, ``tags`` for cards read from their tags), ``table``
is what both faces share, ``screen`` the faces, ``entry`` and ``text`` the typing and the
words."""
