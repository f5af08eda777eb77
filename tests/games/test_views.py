"""The home page and the rules page, in both languages."""

import os
import re
import time
from pathlib import Path

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

pytestmark = pytest.mark.django_db


def test_home_page_is_chinese_by_default(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="zh-hans">' in html
    assert "干瞪眼 Online" in html
    assert "注册" in html  # Sign up
    assert "登录" in html  # Log in
    assert 'href="/rules/"' in html
    assert 'href="/accounts/signup/"' in html
    assert 'href="/accounts/login/"' in html


def test_home_page_in_english(english_client: Client) -> None:
    html = english_client.get("/").content.decode()
    assert '<html lang="en">' in html
    assert "Sign up" in html
    assert "Read the rules" in html


def test_home_page_greets_a_signed_in_user(client: Client, django_user_model: type) -> None:
    user = django_user_model.objects.create_user(username="laowang", password="pw-123456")
    client.force_login(user)
    html = client.get("/").content.decode()
    assert "laowang" in html
    assert 'href="/accounts/signup/"' not in html


def test_rules_page_renders_the_chinese_doc_by_default(client: Client) -> None:
    response = client.get("/rules/")
    assert response.status_code == 200
    html = response.content.decode()
    assert re.search(r"<h1[^>]*>干瞪眼规则", html)
    assert '<table tabindex="0">' in html
    assert "<title>干瞪眼规则" in html


def test_rules_page_in_english_by_accept_language(english_client: Client) -> None:
    html = english_client.get("/rules/").content.decode()
    assert re.search(r"<h1[^>]*>Gan Deng Yan rules", html)
    assert '<table tabindex="0">' in html


def test_rules_page_in_english_after_switching_language(client: Client) -> None:
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/rules/"})
    assert response.status_code == 302
    assert response["Location"] == "/rules/"
    html = client.get("/rules/").content.decode()
    assert re.search(r"<h1[^>]*>Gan Deng Yan rules", html)

    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/rules/"})
    assert re.search(r"<h1[^>]*>干瞪眼规则", client.get("/rules/").content.decode())


@pytest.mark.parametrize("accept_language", ["fr", "de-DE,de;q=0.9", "xx", ""])
def test_an_unavailable_language_falls_back_to_chinese(accept_language: str) -> None:
    client = Client(headers={"accept-language": accept_language})
    response = client.get("/rules/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="zh-hans">' in html
    assert re.search(r"<h1[^>]*>干瞪眼规则", html)


def test_a_regional_english_gets_english(client: Client) -> None:
    html = client.get("/rules/", headers={"accept-language": "en-GB,en;q=0.8"}).content.decode()
    assert re.search(r"<h1[^>]*>Gan Deng Yan rules", html)


def test_rules_headings_get_anchors_and_a_table_of_contents(client: Client) -> None:
    html = client.get("/rules/").content.decode()
    anchors = re.findall(r'<h2 id="([^"]+)"', html)
    assert anchors, "the rules should have second-level headings with ids"
    for anchor in anchors:
        assert f'href="#{anchor}"' in html


def test_missing_rules_doc_is_a_clear_404(
    client: Client, settings: Settings, tmp_path: Path
) -> None:
    settings.DOCS_DIR = tmp_path
    settings.DEBUG = True  # so that the 404 page shows the message
    response = client.get("/rules/", headers={"accept-language": "en"})
    assert response.status_code == 404
    assert "docs/rules.md" in response.content.decode()


def test_rules_doc_is_rerendered_when_the_file_changes(
    client: Client, settings: Settings, tmp_path: Path
) -> None:
    settings.DOCS_DIR = tmp_path
    doc = tmp_path / "rules.zh-hans.md"
    doc.write_text("# 第一版\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", encoding="utf-8")
    assert "第一版" in client.get("/rules/").content.decode()

    doc.write_text("# 第二版\n", encoding="utf-8")
    later = time.time() + 5
    os.utime(doc, (later, later))
    html = client.get("/rules/").content.decode()
    assert "第二版" in html
    assert "第一版" not in html


def test_htmx_is_served_from_our_static_files(client: Client) -> None:
    html = client.get("/").content.decode()
    scripts = re.findall(r'<script src="([^"]+)"', html)
    htmx = [src for src in scripts if re.search(r"/htmx-2(\.min)?\.js$", src)]
    assert htmx == ["/static/django_htmx/htmx-2.min.js"]
    assert all(src.startswith("/static/") for src in scripts), scripts

    response = client.get(htmx[0])
    assert response.status_code == 200
    body = b"".join(response.streaming_content)  # type: ignore[attr-defined]
    assert b"htmx" in body


def test_site_css_is_served(client: Client) -> None:
    response = client.get("/static/css/site.css")
    assert response.status_code == 200


def test_language_switcher_posts_to_set_language(client: Client) -> None:
    html = client.get("/").content.decode()
    assert 'action="/i18n/setlang/"' in html
    assert 'name="language" value="en"' in html
    assert 'name="language" value="zh-hans"' in html
    # Each language is offered under its own name, whatever the page's language.
    assert ">English</button>" in html
    assert ">简体中文</button>" in html
