"""QR codes of a game's link: SVG for screens, text for the terminal; each with the quiet
zone the QR standard asks for (4 modules), which scanners need to find the code."""
import os
from functools import lru_cache

import qrcode
import qrcode.image.svg

QUIET_ZONE = 4  # modules of light margin around the code


@lru_cache(maxsize=256)  # a game's join link, drawn once for all its screens
def qr_svg(url: str) -> bytes:
    """An SVG QR code (no Pillow needed)."""
    image = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathImage, border=QUIET_ZONE)
    return image.to_string(encoding="unicode").encode()


def print_qr(url: str, out) -> None:
    """A QR code drawn with block characters on `out`. On a terminal that takes colors,
    dark modules are drawn black on white whatever the terminal's theme (a code drawn in
    a dark theme's light text would be inverted, which many scanners cannot read)."""
    code = qrcode.QRCode(border=QUIET_ZONE)
    code.add_data(url)
    code.print_ascii(out=out, tty=_takes_colors(out))


def _takes_colors(out) -> bool:
    """Whether `out` is a terminal that draws ANSI colors (on Windows, Windows Terminal;
    the older console shows the codes as text)."""
    return out.isatty() and (os.name != "nt" or "WT_SESSION" in os.environ)
