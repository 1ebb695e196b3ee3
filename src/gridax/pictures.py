"""Writing pictures: PNG or SVG files and animated GIFs from RGB ``uint8`` arrays."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

WHITE = (255, 255, 255)
CAPTION_HEIGHT = 18


def write(image, path: str | Path) -> Path:
    """Writes an RGB array as ``.png`` or ``.svg`` (one rectangle per run of equal pixels
    in a row, white left out)."""
    path = Path(path)
    image = np.asarray(image, np.uint8)
    if path.suffix == ".png":
        Image.fromarray(image).save(path)
    elif path.suffix == ".svg":
        path.write_text(_svg(image))
    else:
        raise ValueError(f"pictures are written as .png or .svg files; got {str(path)!r}")
    return path


def _svg(image: np.ndarray) -> str:
    height, width, _ = image.shape
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'shape-rendering="crispEdges">'
    ]
    for y in range(height):
        row = image[y]
        starts = np.flatnonzero(np.r_[True, (row[1:] != row[:-1]).any(axis=1)])
        ends = np.r_[starts[1:], width]
        for start, end in zip(starts, ends, strict=True):
            if tuple(row[start]) != WHITE:
                fill = "#" + bytes(row[start]).hex()
                parts.append(
                    f'<rect x="{start}" y="{y}" width="{end - start}" height="1" fill="{fill}"/>'
                )
    parts.append("</svg>")
    return "\n".join(parts)


def captioned(image, caption: str) -> np.ndarray:
    """The picture under a line of text."""
    image = np.asarray(image, np.uint8)
    frame = Image.new("RGB", (image.shape[1], image.shape[0] + CAPTION_HEIGHT), WHITE)
    frame.paste(Image.fromarray(image), (0, CAPTION_HEIGHT))
    ImageDraw.Draw(frame).text((4, 3), caption, fill=(0, 0, 0))
    return np.asarray(frame)


def write_gif(
    frames: Sequence, path: str | Path, captions: Sequence[str] | None = None, milliseconds=300
) -> Path:
    """An animated GIF, one frame per picture (padded with white to the largest)."""
    if not frames:
        raise ValueError("write_gif needs at least one frame")
    if captions is not None:
        frames = [captioned(f, c) for f, c in zip(frames, captions, strict=True)]
    frames = [np.asarray(f, np.uint8) for f in frames]
    height = max(f.shape[0] for f in frames)
    width = max(f.shape[1] for f in frames)
    images = []
    for frame in frames:
        padded = Image.new("RGB", (width, height), WHITE)
        padded.paste(Image.fromarray(frame), (0, 0))
        images.append(padded)
    path = Path(path)
    images[0].save(path, save_all=True, append_images=images[1:], duration=milliseconds, loop=0)
    return path
