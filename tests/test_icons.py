"""The favicon, the home-screen icons and the web app manifest, linked from every page and
served as static files."""

import json
import struct
from urllib.parse import urljoin

import pytest
from django.test import Client

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, which comes first."""
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def fetched(client: Client, url: str) -> bytes:
    response = client.get(url)
    assert response.status_code == 200, url
    return b"".join(response.streaming_content)  # type: ignore[attr-defined]


@pytest.mark.django_db
def test_every_page_links_the_icons_and_the_manifest() -> None:
    client = Client()
    page = client.get("/rules/").content.decode()
    assert '<link rel="icon" href="/static/icons/favicon.svg" type="image/svg+xml">' in page
    assert '<link rel="apple-touch-icon" href="/static/icons/apple-touch-icon.png">' in page
    assert '<link rel="manifest" href="/static/icons/site.webmanifest">' in page
    assert png_size(fetched(client, "/static/icons/apple-touch-icon.png")) == (180, 180)
    assert fetched(client, "/static/icons/favicon.svg").startswith(b"<svg")


def test_the_manifest_names_the_site_and_its_icons_are_served() -> None:
    client = Client()
    manifest_url = "/static/icons/site.webmanifest"
    response = client.get(manifest_url)
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(b"".join(response.streaming_content))  # type: ignore[attr-defined]
    assert manifest["name"] == "干瞪眼 Online"
    assert manifest["start_url"] == "/"
    # The felt green of the site's CSS (--felt) and of the pages' theme-color.
    assert manifest["theme_color"] == "#0f4d32"
    sizes = {}
    for icon in manifest["icons"]:
        data = fetched(client, urljoin(manifest_url, icon["src"]))
        if icon["type"] == "image/png":
            width, height = png_size(data)
            assert icon["sizes"] == f"{width}x{height}"
            sizes[icon["src"]] = width
    assert sorted(sizes.values()) == [192, 512]
