"""Check that every PNG in a directory is a real image of sensible size (CI runs it after the demos).

A PNG passes when its signature, chunk structure and every chunk's CRC are
valid, it starts with IHDR and ends with IEND, its compressed pixel data
inflates to exactly the size the header announces, its width and height
lie within ``--min-side``..``--max-side`` pixels, it is at most
``--max-width`` pixels wide (default 2000: a picture readable without
zooming, which is why the demos draw long graphs top to bottom), and it is
not a single flat colour.  ``--expect NAME`` (repeatable) also requires that
file to exist.

    python -m demos.check_pngs out --expect decision_boundary.png --expect loss_curve.png

Exit status 0 when all pass, 1 otherwise (each problem on its own line).
"""

from __future__ import annotations

import argparse
import struct
import sys
import zlib
from pathlib import Path

SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_WIDTH = 2000  # pixels: the widest picture a demo may write
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # colour type -> samples per pixel


class PNGError(ValueError):
    """The file is not a valid PNG (the message says what is wrong)."""


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a PNG after checking it thoroughly; PNGError if it is not a valid PNG."""
    if not data.startswith(SIGNATURE):
        raise PNGError("no PNG signature")
    pos, chunks, idat = len(SIGNATURE), [], []
    while pos < len(data):
        if pos + 12 > len(data):
            raise PNGError(f"truncated chunk header at byte {pos}")
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if len(body) != length or pos + 12 + length > len(data):
            raise PNGError(f"chunk {kind!r} at byte {pos} is truncated")
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise PNGError(f"bad CRC in chunk {kind!r} at byte {pos}")
        chunks.append(kind)
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
        if kind == b"IEND":
            break
    if not chunks or chunks[0] != b"IHDR" or len(header) != 13:
        raise PNGError("the first chunk is not a valid IHDR")
    if chunks[-1] != b"IEND":
        raise PNGError("no IEND chunk at the end of the file")
    if pos != len(data):
        raise PNGError(f"{len(data) - pos} bytes of junk after the IEND chunk")
    if not idat:
        raise PNGError("no pixel data (IDAT)")
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if colour not in CHANNELS or width == 0 or height == 0:
        raise PNGError(f"bad header: {width}x{height}, colour type {colour}")
    try:
        pixels = zlib.decompress(b"".join(idat))
    except zlib.error as exc:
        raise PNGError(f"the pixel data does not inflate: {exc}") from None
    if interlace == 0:
        row = (width * CHANNELS[colour] * depth + 7) // 8 + 1  # +1: the filter byte
        if len(pixels) != row * height:
            raise PNGError(f"{len(pixels)} bytes of pixel data, the header needs {row * height}")
        # Rows after the first that all use filter 0 and repeat the first row's bytes: a flat image.
        rows = {pixels[i * row + 1 : (i + 1) * row] for i in range(height)}
        if len(rows) == 1 and len(set(next(iter(rows)))) <= CHANNELS[colour]:
            raise PNGError("the image is a single flat colour")
    return width, height


def check(path: Path, min_side: int, max_side: int, max_width: int = MAX_WIDTH) -> str | None:
    """None if ``path`` is a good PNG, else what is wrong with it."""
    try:
        width, height = png_size(path.read_bytes())
    except (OSError, PNGError) as exc:
        return f"{path}: {exc}"
    if not (min_side <= width <= max_side and min_side <= height <= max_side):
        return f"{path}: {width}x{height} pixels, outside {min_side}..{max_side} per side"
    if width > max_width:
        return f"{path}: {width} pixels wide, more than {max_width}"
    return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("directory", type=Path, help="where the demo wrote its PNGs")
    p.add_argument("--expect", action="append", default=[], metavar="NAME", help="a PNG that must be there")
    p.add_argument("--min-side", type=int, default=64, help="smallest width/height in pixels (default: 64)")
    p.add_argument(
        "--max-side", type=int, default=20000, help="largest width/height in pixels (default: 20000)"
    )
    p.add_argument(
        "--max-width",
        type=int,
        default=MAX_WIDTH,
        help=f"largest width in pixels (default: {MAX_WIDTH})",
    )
    args = p.parse_args(argv)
    if not args.directory.is_dir():
        p.error(f"{str(args.directory)!r} is not a directory")
    paths = sorted(args.directory.glob("*.png"))
    problems = [
        f"{args.directory / name}: missing" for name in args.expect if not (args.directory / name).is_file()
    ]
    if not paths:
        problems.append(f"{args.directory}: no PNG files")
    problems += [
        msg
        for path in paths
        if (msg := check(path, args.min_side, args.max_side, args.max_width)) is not None
    ]
    for msg in problems:
        print(msg, file=sys.stderr)
    if not problems:
        print(f"{len(paths)} PNGs OK in {args.directory}: {', '.join(p.name for p in paths)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
