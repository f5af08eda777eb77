"""Fixtures shared by the whole test suite."""

from collections.abc import Iterator

import pytest
from django.test import Client
from django.utils import translation


@pytest.fixture
def english_client() -> Client:
    """A test client whose browser asks for English."""
    return Client(headers={"accept-language": "en"})


@pytest.fixture(autouse=True)
def _reset_language() -> Iterator[None]:
    """Leave the active language as it was, whatever a test activated."""
    language = translation.get_language()
    yield
    translation.activate(language)
