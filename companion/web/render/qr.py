"""QR codes of a game's link: SVG for screens, text for the terminal."""
import io

import qrcode
import qrcode.image.svg


def qr_svg(url: str) -> bytes:
    """An SVG QR code (no Pillow needed)."""
    image = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathImage, border=2)
    return image.to_string(encoding="unicode").encode()


def qr_text(url: str) -> str:
    """A QR code drawn with block characters, for the terminal."""
    code = qrcode.QRCode(border=2)
    code.add_data(url)
    out = io.StringIO()
    code.print_ascii(out=out)
    return out.getvalue()
