"""Spoken calls: one more output of the table's cues, beside the LEDs and the buzzer.

The voice lives in ``tables/`` and not in ``devices/`` because it is not gpiozero: it runs
two outside programs (espeak-ng to render, a player such as ``aplay`` to play), which is
a table's I/O like its journal; and it is shared by the CHOMP! and Get Bit! tables, as
their ``[web]`` settings are. A cue's phrase is found by its :class:`Signal` and player
(the same meanings the LEDs and the buzzer show, hardware/SIGNALS.md), never by a verdict.

Every phrase a table can say (its seats' names in each per-player phrase) is rendered once,
when the table opens, into WAV files in a cache (``$XDG_CACHE_HOME/companion/voice/``,
keyed by the phrase, voice and speed), so a call is only a player process started on a
file already there. :meth:`VoiceOutput.render` never waits: the phrases go to one thread of
their own, which plays them one after the other; a new decision with something to say cuts
the call that is playing and replaces the ones waiting (as a new sound cuts the buzzer).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading
import wave
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from time import monotonic_ns
from typing import Any, Protocol

from companion import data
from companion.errors import ConfigError, InputError
from companion.signals import Cue, Signal

log = logging.getLogger(__name__)

ESPEAK = "espeak-ng"
DEFAULT_PLAYER = ("aplay", "-q")
VOICE_KEYS = ("enabled", "voice", "speed", "player", "phrases")
VOICE_NAME = re.compile(r"[A-Za-z0-9_/-]{1,40}(\+[A-Za-z0-9_-]{1,24})?")  # "en", "gmw/en+f3"
OTHER_LANGUAGE = re.compile(r"\((\S+) \d+\)")  # espeak-ng --voices' last column
RENDER_TIMEOUT_S = 30.0
CACHE_FORMAT = "1"  # part of every cache key: bump it when the rendering changes

# What each signal says, per language; "{name}" is the cue's player (a seat or a robot).
# Signals not listed are left to the LEDs and the buzzer (the countdown and the reveal
# keep their beeps: a spoken "now" would start later than a beep).
PHRASES: dict[str, dict[Signal, str]] = {
    "en": {
        Signal.WIN: "{name}",
        Signal.FRENZY: "{name}, feeding frenzy",
        Signal.BAD_CHOMP: "bad chomp, {name}",
        Signal.FALSE_START: "false start, {name}",
        Signal.TIE: "tie",
        Signal.INK_OUT: "ink out",
        Signal.ALL_SAME: "all the same",
        Signal.WAR: "war",
        Signal.NO_WINNER: "no winner",
        Signal.ELIMINATED: "{name} is out",
        Signal.GAME_OVER: "{name} wins the game",
        Signal.STUCK: "{name}, let go of your button",
        Signal.BITTEN: "the shark bites {name}",
        Signal.FAULT: "the table stopped",
    },
    "fr": {
        Signal.WIN: "{name}",
        Signal.FRENZY: "{name}, frénésie",
        Signal.BAD_CHOMP: "mauvais chomp, {name}",
        Signal.FALSE_START: "faux départ, {name}",
        Signal.TIE: "égalité",
        Signal.INK_OUT: "encre",
        Signal.ALL_SAME: "toutes pareilles",
        Signal.WAR: "bataille",
        Signal.NO_WINNER: "personne",
        Signal.ELIMINATED: "{name} est éliminé",
        Signal.GAME_OVER: "{name} gagne la partie",
        Signal.STUCK: "{name}, lâche ton bouton",
        Signal.BITTEN: "le requin mord {name}",
        Signal.FAULT: "la table s'est arrêtée",
    },
}
DRAW = {"en": "a draw", "fr": "match nul"}  # game_over for nobody
# What each table can show (a table renders only these phrases at start).
CHOMP_SIGNALS = frozenset(
    {Signal.WIN, Signal.FRENZY, Signal.BAD_CHOMP, Signal.FALSE_START, Signal.TIE,
     Signal.INK_OUT, Signal.ALL_SAME, Signal.WAR, Signal.NO_WINNER, Signal.ELIMINATED,
     Signal.GAME_OVER, Signal.STUCK, Signal.FAULT}
)  # fmt: skip
GETBIT_SIGNALS = frozenset({Signal.BITTEN, Signal.ELIMINATED, Signal.GAME_OVER})


@dataclass(frozen=True)
class VoiceConfig:
    """The ``[voice]`` table of a table's config (off unless ``enabled = true``)."""

    enabled: bool = False
    voice: str = "en"  # an espeak-ng language or voice (espeak-ng --voices)
    speed: int = 165  # words per minute (espeak-ng -s)
    player: tuple[str, ...] = DEFAULT_PLAYER  # the WAV file's path is added at the end
    phrases: Mapping[Signal, str] = field(default_factory=dict)  # the config's own wording

    @property
    def language(self) -> str:
        """ "en" of "en", "en-us", "gmw/en-US+f3": the key of the built-in wording."""
        return self.voice.split("+")[0].split("/")[-1].split("-")[0].lower()

    def wording(self) -> dict[Signal, str]:
        """The phrases in this voice's language (English where there is no table for it),
        with the config's own wording over them."""
        return {**PHRASES.get(self.language, PHRASES["en"]), **self.phrases}

    def draw(self) -> str:
        """What a game over without a winner says."""
        return DRAW.get(self.language, DRAW["en"])


def voice_from(raw: Mapping[str, Any]) -> VoiceConfig:
    """The ``[voice]`` table of a parsed config (every key checked here, once)."""
    if "voice" not in raw:
        return VoiceConfig()
    v = data.obj(raw["voice"], "voice", optional=VOICE_KEYS)
    enabled = data.boolean(v.get("enabled", False), "voice.enabled")
    voice = data.name(v.get("voice", "en"), "voice.voice", "voice")
    if not VOICE_NAME.fullmatch(voice):
        raise data.fail("voice.voice", f"{voice!r} is not an espeak-ng voice name such as 'en'")
    speed = data.integer(v.get("speed", VoiceConfig.speed), "voice.speed", 80, 450)
    player: tuple[str, ...] = DEFAULT_PLAYER
    if "player" in v:
        items = data.lst(v["player"], "voice.player")
        if not 1 <= len(items) <= 16:
            raise data.fail("voice.player", "a command and its arguments, e.g. ['aplay', '-q']")
        player = tuple(
            data.name(item, data.at("voice.player", i), "command") for i, item in enumerate(items)
        )
    phrases: dict[Signal, str] = {}
    known = {str(s): s for s in PHRASES["en"]}
    for key, text in data.mapping(v.get("phrases", {}), "voice.phrases").items():
        where = data.at("voice.phrases", key)
        if key not in known:
            raise data.fail(where, f"no phrase for {key!r} (these have one: {', '.join(known)})")
        phrase = data.name(text, where, "phrase")
        if len(phrase) > 80 or re.search(r"[{}]", phrase.replace("{name}", "")):
            raise data.fail(where, "at most 80 characters; {name} is the only placeholder")
        phrases[known[key]] = phrase
    return VoiceConfig(enabled, voice, speed, player, phrases)


PALETTE_NAMES = {"standard": "standard", "okabe-ito": "okabe-ito"}  # devices.outputs.PALETTES


def palette_from(raw: Mapping[str, Any]) -> str:
    """``[leds] palette``: the RGB LEDs' colours, "standard" or "okabe-ito" (colour-blind
    safe). Read beside ``[voice]``: both are how a table shows its signals."""
    leds = data.obj(raw.get("leds", {}), "leds", optional=("palette",))
    return data.choice(leds.get("palette", "standard"), "leds.palette", PALETTE_NAMES, "palette")


# -- phrases ------------------------------------------------------------------------------


def phrase_for(cue: Cue, wording: Mapping[Signal, str], draw: str) -> str | None:
    """What ``cue`` says (None: nothing)."""
    template = wording.get(cue.signal)
    if template is None:
        return None
    if "{name}" in template:
        if cue.player is None:
            return draw if cue.signal is Signal.GAME_OVER else None
        return template.replace("{name}", cue.player)
    return template


def phrases_for(cues: Iterable[Cue], wording: Mapping[Signal, str], draw: str) -> list[str]:
    """One render's phrases in cue order, each once (a tie of three says "tie" once)."""
    found = (phrase_for(cue, wording, draw) for cue in cues)
    return list(dict.fromkeys(p for p in found if p is not None))


def every_phrase(
    seats: Sequence[str],
    wording: Mapping[Signal, str],
    draw: str,
    signals: Collection[Signal] | None = None,
) -> list[str]:
    """Everything a table with these seats can say (of ``signals``, the ones it shows):
    what is rendered at start."""
    said = [s for s in wording if signals is None or s in signals]
    cues = [Cue(s) for s in said] + [Cue(s, seat) for seat in seats for s in said]
    return phrases_for(cues, wording, draw)


# -- the cache ----------------------------------------------------------------------------


def cache_folder() -> Path:
    """``$XDG_CACHE_HOME/companion/voice`` (``~/.cache`` when it is not set)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "companion" / "voice"


def installed_voices(espeak: str = ESPEAK) -> set[str]:
    """Every name espeak-ng answers to: its languages, voice names and voice files."""
    try:
        out = subprocess.run(
            [espeak, "--voices"], capture_output=True, text=True, timeout=RENDER_TIMEOUT_S
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise ConfigError("voice", f"{espeak} --voices failed: {exc}") from None
    names: set[str] = set()
    for line in out.splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 5:
            names.update(c.lower() for c in (cols[1], cols[3], cols[4]))
            names.add(cols[4].rsplit("/", 1)[-1].lower())  # gmw/en: "en"
            names.update(m.lower() for m in OTHER_LANGUAGE.findall(line))  # (en 2): "en"
    return names


def wav_seconds(path: Path) -> float:
    """The WAV file's length; 0 for a file that is not a whole WAV (rendered again)."""
    try:
        with wave.open(str(path), "rb") as w:
            return w.getnframes() / w.getframerate() if w.getframerate() else 0.0
    except (OSError, EOFError, wave.Error):
        return 0.0


class PhraseCache:
    """WAV files of phrases, one per (phrase, voice, speed), rendered once by espeak-ng."""

    def __init__(self, config: VoiceConfig, folder: Path | None = None, espeak: str = ESPEAK):
        self.config = config
        self.folder = folder or cache_folder()
        self.espeak = espeak
        self.rendered: list[str] = []  # phrases rendered by this cache (the rest were there)

    def path(self, phrase: str) -> Path:
        key = "\0".join((CACHE_FORMAT, self.config.voice, str(self.config.speed), phrase))
        return self.folder / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.wav"

    def prepare(self, phrases: Iterable[str]) -> dict[str, Path]:
        """Each phrase's file, rendering those not in the cache (or not whole there)."""
        self._make_folder()
        paths: dict[str, Path] = {}
        for phrase in phrases:
            path = self.path(phrase)
            if not path.is_symlink() and path.is_file() and wav_seconds(path) > 0:
                paths[phrase] = path
                continue
            self._render(phrase, path)
            self.rendered.append(phrase)
            paths[phrase] = path
        return paths

    def _make_folder(self) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            mode = os.lstat(self.folder).st_mode
        except OSError as exc:
            raise ConfigError("voice", f"{self.folder}: cannot make the cache ({exc})") from None
        if not stat.S_ISDIR(mode):
            raise ConfigError("voice", f"{self.folder}: the voice cache is not a folder")

    def _render(self, phrase: str, path: Path) -> None:
        """espeak-ng reads the phrase on stdin (a name such as '-x' is never an option)
        into a temporary beside the file, renamed over it once it is a whole WAV."""
        try:
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".render-", suffix=".wav")
            os.close(fd)
        except OSError as exc:  # a read-only or full cache: one line, the table not opened
            raise ConfigError("voice", f"{self.folder}: cannot write the cache ({exc})") from None
        command = [self.espeak, "-v", self.config.voice, "-s", str(self.config.speed)]
        try:
            done = subprocess.run(
                [*command, "-w", tmp, "--stdin"],
                input=phrase.encode("utf-8"),
                capture_output=True,
                timeout=RENDER_TIMEOUT_S,
            )
            if done.returncode != 0 or wav_seconds(Path(tmp)) <= 0:
                said = " ".join(done.stderr.decode("utf-8", "replace").split())[:200]
                raise ConfigError("voice", f"{self.espeak} could not say {phrase!r}: {said}")
            if path.is_symlink() or (path.exists() and not path.is_file()):
                raise ConfigError("voice", f"{path}: not a file, left alone")
            os.replace(tmp, path)
        except (OSError, subprocess.SubprocessError) as exc:
            raise ConfigError("voice", f"{self.espeak} failed on {phrase!r}: {exc}") from None
        finally:
            Path(tmp).unlink(missing_ok=True)


# -- playing ------------------------------------------------------------------------------


class Sink(Protocol):
    """Where a phrase's file is played. ``play`` may take as long as the phrase does;
    ``stop`` (from another thread) cuts it short and must not wait."""

    def play(self, path: Path) -> None: ...

    def stop(self) -> None: ...


class ProcessSink:
    """A player program per phrase (``aplay -q FILE`` by default), through ALSA."""

    def __init__(self, command: Sequence[str]) -> None:
        self.command = tuple(command)
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._warned = False

    def play(self, path: Path) -> None:
        with self._lock:
            self._process = subprocess.Popen(
                [*self.command, str(path)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            process = self._process
        status = process.wait()
        if status > 0 and not self._warned:  # negative: cut short by stop()
            self._warned = True
            log.warning("%s exited with status %s", self.command[0], status)

    def stop(self) -> None:
        with self._lock:
            if self._process is not None and self._process.poll() is None:
                self._process.terminate()


class NullSink:
    """No sound: notes when each phrase would have started (the bench, the tests)."""

    def __init__(self) -> None:
        self.started: list[tuple[int, Path]] = []  # (monotonic ns, file)

    def play(self, path: Path) -> None:
        self.started.append((monotonic_ns(), path))

    def stop(self) -> None:
        pass


class VoiceOutput:
    """Cues in, phrases out on a thread of their own: :meth:`render` never waits."""

    def __init__(self, config: VoiceConfig, paths: Mapping[str, Path], sink: Sink) -> None:
        self.wording = config.wording()
        self.draw = config.draw()
        self.paths = dict(paths)
        self.sink = sink
        self.rendered = 0  # phrases rendered when the table opened (the rest were cached)
        self.folder: Path | None = None  # the cache they are in
        self._pending: list[Path] = []
        self._playing = False
        self._closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="companion-voice", daemon=True)
        self._thread.start()

    def render(self, cues: Sequence[Cue]) -> None:
        """Say the cues' phrases: a render with something to say cuts the call playing.

        Only the queue is touched here (and a running player is sent SIGTERM). A call whose
        player is being started at that very instant is not cut: it plays to its end
        (a second at most) before the new phrases, a window the size of one fork.
        """
        try:
            files = [self.paths[p] for p in phrases_for(cues, self.wording, self.draw)
                     if p in self.paths]  # fmt: skip
            if not files:
                return
            with self._cond:
                if self._closed:
                    return
                self._pending = files
                if self._playing:
                    self.sink.stop()
                self._cond.notify()
        except Exception:  # a voice must never stop a verdict
            log.warning("could not say %s", list(cues), exc_info=True)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                path = self._pending.pop(0)
                self._playing = True
            try:
                self.sink.play(path)
            except Exception:
                log.warning("could not play %s", path, exc_info=True)
            finally:
                with self._cond:
                    self._playing = False

    def idle(self) -> bool:
        """Nothing playing and nothing waiting."""
        with self._cond:
            return not self._pending and not self._playing

    def close(self) -> None:
        """Cut the call playing and stop the thread; safe twice."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._pending = []
            self.sink.stop()
            self._cond.notify()
        self._thread.join(timeout=2.0)


def check_voice(config: VoiceConfig, espeak: str = ESPEAK) -> None:
    """espeak-ng is there and has the voice; one ConfigError line otherwise."""
    if shutil.which(espeak) is None:
        raise ConfigError("voice", f"{espeak} is not installed (sudo apt install espeak-ng)")
    base = config.voice.split("+")[0].lower()
    if base not in installed_voices(espeak):
        raise ConfigError(
            "voice.voice",
            f"espeak-ng has no voice {config.voice!r} (see espeak-ng --voices)",
        )


def open_voice(
    config: VoiceConfig,
    seats: Sequence[str],
    source: str | None = None,
    sink: Sink | None = None,
    folder: Path | None = None,
    signals: Collection[Signal] | None = None,
) -> VoiceOutput | None:
    """The table's voice, every phrase rendered (None when ``[voice]`` is off).

    Checked here, at start, so a missing program or language is one line naming the key
    before anything is played: espeak-ng and its voice, the player (unless a sink is given).
    """
    if not config.enabled:
        return None
    try:
        check_voice(config)
        if sink is None:
            if shutil.which(config.player[0]) is None:
                raise ConfigError(
                    "voice.player", f"{config.player[0]!r} is not installed (alsa-utils has aplay)"
                )
            sink = ProcessSink(config.player)
        cache = PhraseCache(config, folder)
        paths = cache.prepare(every_phrase(seats, config.wording(), config.draw(), signals))
    except InputError as exc:
        raise ConfigError(exc.where, exc.message, source) from None
    voice = VoiceOutput(config, paths, sink)
    voice.rendered = len(cache.rendered)
    voice.folder = cache.folder
    return voice


def voice_test(
    config: VoiceConfig,
    seats: Sequence[str],
    signals: Collection[Signal],
    source: str | None = None,
    sink: Sink | None = None,
) -> Iterator[tuple[str, float]]:
    """``companion voice test``: every phrase of the table, one after the other.

    Yields each phrase and its length before it plays (the command prints it, so the maker
    reads what they are about to hear); a config whose voice is off is tested all the same.
    The first item is ("", phrases rendered now) so the command can say what it did.
    """
    voice = open_voice(replace(config, enabled=True), seats, source, sink, signals=signals)
    assert voice is not None
    try:
        yield "", float(voice.rendered)
        for phrase, path in voice.paths.items():
            yield phrase, wav_seconds(path)
            voice.sink.play(path)
    finally:
        voice.close()


def fan_out(*renders: Callable[[Sequence[Cue]], None]) -> Callable[[Sequence[Cue]], None]:
    """One render that hands the cues to each output in turn (the LEDs first: they are
    the first visible change; the voice only queues)."""

    def render(cues: Sequence[Cue]) -> None:
        for each in renders:
            each(cues)

    return render
