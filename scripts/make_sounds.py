"""Write the table's sounds (static/sounds/*.wav): short tones made here from sine waves, so the
project owns them outright (CC0, see the README) and they weigh a few kilobytes each.

Run ``python scripts/make_sounds.py`` after changing a sound; the output is the same every time.
"""

from __future__ import annotations

import math
import struct
import wave
from pathlib import Path

RATE = 16_000  # samples per second: enough for tones under 4 kHz
OUT = Path(__file__).resolve().parent.parent / "static" / "sounds"

# A note: (frequency in Hz, seconds, loudness 0..1); 0 Hz is silence.
Note = tuple[float, float, float]

SOUNDS: dict[str, list[Note]] = {
    # A card slid onto the table: a short bright click.
    "deal": [(1800, 0.035, 0.35)],
    "play": [(660, 0.06, 0.5), (990, 0.07, 0.45)],
    "pass": [(330, 0.09, 0.35)],
    "bid": [(520, 0.07, 0.4), (0, 0.02, 0), (780, 0.07, 0.4)],
    "bomb": [(110, 0.18, 0.9), (82, 0.22, 0.8)],
    "rocket": [(392, 0.07, 0.6), (523, 0.07, 0.6), (659, 0.07, 0.6), (1046, 0.18, 0.7)],
    "win": [(523, 0.12, 0.55), (659, 0.12, 0.55), (784, 0.12, 0.55), (1046, 0.3, 0.6)],
    "lose": [(392, 0.16, 0.5), (330, 0.16, 0.5), (262, 0.32, 0.5)],
    # Your turn: two rising notes, unlike any other sound.
    "turn": [(880, 0.09, 0.6), (0, 0.04, 0), (1175, 0.14, 0.6)],
}


def samples(notes: list[Note]) -> list[int]:
    out: list[int] = []
    for frequency, seconds, loudness in notes:
        count = int(RATE * seconds)
        fade = max(1, int(RATE * 0.008))  # soft edges: no click at a note's start or end
        for i in range(count):
            envelope = min(1.0, i / fade, (count - i) / fade) * loudness
            value = math.sin(2 * math.pi * frequency * i / RATE) if frequency else 0.0
            out.append(round(value * envelope * 32_000))
    return out


def write(name: str, notes: list[Note]) -> Path:
    path = OUT / f"{name}.wav"
    data = samples(notes)
    with wave.open(str(path), "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(RATE)
        sound.writeframes(struct.pack(f"<{len(data)}h", *data))
    return path


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for name, notes in SOUNDS.items():
        path = write(name, notes)
        print(path.relative_to(OUT.parent.parent), f"{path.stat().st_size} bytes")
