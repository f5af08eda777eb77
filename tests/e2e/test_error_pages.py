"""In Chromium: the 404 page on a phone leads home, and the browser reads the web app manifest
that every page links, with its icons, without an error."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.e2e import browser

pytestmark = pytest.mark.e2e


class ErrorPagesAndManifest(browser.BrowserTestCase):
    def test_the_404_page_on_a_phone_leads_home(self) -> None:
        context = self.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        response = page.goto(self.url("/no-such-page/"))
        assert response is not None and response.status == 404
        panel = page.locator("[data-error='404']")
        expect(panel).to_be_visible()
        expect(panel.locator("p[lang='en']")).to_be_visible()
        # The panel fits the phone's width.
        box = panel.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        self.shot("404-phone", page)
        panel.locator("a.button-primary").click()
        expect(page).to_have_url(self.url("/"))

    def test_chromium_reads_the_manifest_and_its_icons(self) -> None:
        self.page.goto(self.url("/rules/"))
        cdp = self.context.new_cdp_session(self.page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["url"] == self.url("/static/icons/site.webmanifest")
        assert manifest["errors"] == []
        data = json.loads(manifest["data"])
        assert data["name"] == "干瞪眼 Online"
        for icon in data["icons"]:
            response = self.page.request.get(self.url("/static/icons/" + icon["src"]))
            assert response.ok, icon["src"]
        touch = self.page.locator("link[rel='apple-touch-icon']").get_attribute("href")
        assert touch is not None
        assert self.page.request.get(self.url(touch)).ok
