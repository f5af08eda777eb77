"""Draw the home-screen icons (static/icons/*.png) from static/icons/favicon.svg, with Debian's
Chromium through Playwright (both already used by the browser tests), so the PNGs need nothing
new and always match the SVG.

Run ``python scripts/make_icons.py`` after changing the SVG. The Apple touch icon is drawn on the
felt colour to its edges: iOS rounds the corners itself and would show the SVG's transparent
corners in black.
"""

from __future__ import annotations

import base64
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parent.parent / "static" / "icons"
CHROMIUM = "/usr/bin/chromium"
FELT = "#0f4d32"

# name: (size in pixels, background behind the SVG, or None for a transparent one)
OUTPUTS: dict[str, tuple[int, str | None]] = {
    "apple-touch-icon.png": (180, FELT),
    "icon-192.png": (192, None),
    "icon-512.png": (512, None),
}


def page_html(svg: bytes, size: int, background: str | None) -> str:
    source = "data:image/svg+xml;base64," + base64.b64encode(svg).decode()
    fill = background or "transparent"
    return (
        f'<html><body style="margin:0;background:{fill}">'
        f'<img src="{source}" width="{size}" height="{size}" style="display:block">'
        "</body></html>"
    )


def main() -> None:
    svg = (ICONS / "favicon.svg").read_bytes()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        for name, (size, background) in OUTPUTS.items():
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(page_html(svg, size, background))
            page.wait_for_function("document.images[0].complete")
            page.screenshot(
                path=str(ICONS / name),
                omit_background=background is None,
                clip={"x": 0, "y": 0, "width": size, "height": size},
            )
            page.close()
            print(f"wrote static/icons/{name} ({size}×{size})")
        browser.close()


if __name__ == "__main__":
    main()
