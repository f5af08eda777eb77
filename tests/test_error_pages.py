"""The 404 and 500 pages with DEBUG off: Chinese first with a line in English, the site's style
and a way home; the 500 page renders without a request context (no database, no session)."""

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client, override_settings
from django.urls import path

from gandengyan.urls import urlpatterns as site_urlpatterns


class Broken(Exception):
    pass


def broken_view(request: HttpRequest) -> HttpResponse:
    raise Broken("a view that fails")


# The site's pages and one that fails, as the root URLconf of these tests.
urlpatterns = [path("broken/", broken_view), *site_urlpatterns]


@pytest.mark.django_db
@override_settings(DEBUG=False)
def test_a_missing_page_is_404_in_chinese_with_an_english_line() -> None:
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    assert [template.name for template in response.templates][0] == "404.html"
    page = response.content.decode()
    assert 'data-error="404"' in page
    assert '<html lang="zh-hans">' in page
    assert '<p class="helptext" lang="en">Page not found' in page
    assert "/static/css/site.css" in page
    assert 'href="/"' in page


@pytest.mark.django_db
@override_settings(DEBUG=False)
def test_in_english_the_404_page_has_no_second_english_line(english_client: Client) -> None:
    page = english_client.get("/no-such-page/").content.decode()
    assert '<html lang="en">' in page
    assert "Page not found" in page
    assert 'lang="en">Page not found' not in page


@pytest.mark.django_db
@override_settings(DEBUG=False, ROOT_URLCONF=__name__)
def test_a_failing_view_is_500_in_chinese_with_an_english_line() -> None:
    response = Client(raise_request_exception=False).get("/broken/")
    assert response.status_code == 500
    assert [template.name for template in response.templates] == ["500.html"]
    page = response.content.decode()
    assert 'data-error="500"' in page
    assert '<html lang="zh-hans">' in page
    assert '<p class="helptext" lang="en">Server error' in page
    assert '<link rel="stylesheet" href="/static/css/site.css">' in page
    assert 'href="/"' in page


@override_settings(DEBUG=False, ROOT_URLCONF=__name__)
def test_the_500_page_needs_no_database() -> None:
    """Without database access (pytest-django refuses it here) the page still renders: it is
    what a visitor sees when the database is down."""
    response = Client(raise_request_exception=False).get("/broken/")
    assert response.status_code == 500
    assert 'data-error="500"' in response.content.decode()
