"""The Get Bit! table: ``app`` puts it together from the command's options, ``session``
opens it (``saved`` game, ``config`` and ``hardware`` for the lights and lock-in buttons,
``tags`` for cards read from their tags), ``table`` is what both faces share, ``screen``
the faces, ``web`` the page beside them, ``entry`` the typing (the words are
``games/getbit_text``)."""
