"""No admin page tells staff a live game's cards: lookups on the seed, the hands, the stock and the
deal are refused by every admin (as Django refuses lookups on a password), no admin filters,
searches, orders or shows them, and a game's own pages keep them hidden until it is over."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.test import Client, RequestFactory

from accounts.models import LedgerReason, User
from accounts.services import coins_move
from games import services
from games.hidden_fields import (
    HiddenFieldsRefused,
    check_admins_hide_the_cards,
    hidden_field_errors,
)
from games.models import Dispute, Game, Room, Table
from tests.games.helpers import play_out

pytestmark = pytest.mark.django_db


@pytest.fixture
def live(room: Room, trio: list[User]) -> Game:
    """A game in play, dealt from a known seed."""
    game = services.game_start(table=Table.objects.create(room=room), players=trio, seed=77)
    assert not game.is_over
    return game


@pytest.fixture
def admin_client(client: Client, staff: User) -> Client:
    client.force_login(staff)
    return client


def is_refused(client: Client, url: str) -> bool:
    """Whether the admin refused the query string, as it refuses any lookup it does not allow
    (a 400) or cannot make (the list again with ``?e=1``)."""
    response = client.get(url)
    if response.status_code == 400:
        return True
    return response.status_code == 302 and response["Location"].endswith("?e=1")


def test_staff_cannot_binary_search_a_live_games_seed(admin_client: Client, live: Game) -> None:
    """The attack: ``?id=G&seed__lt=<hex>`` answered yes or no, so 256 questions told the seed."""
    half = "8" + "0" * 63
    for lookup in (
        f"seed__lt={half}",
        f"seed__gte={half}",
        f"seed__startswith={live.seed[:1]}",
        f"seed={live.seed}",
        f"seed__in={live.seed}",
        f"seed__regex=^{live.seed[:2]}",
        f"hands__contains={live.hands[0].split()[0]}",
        "hands__0__icontains=3",
        f"stock__gt={live.stock[:2]}",
        f"stock__startswith={live.stock[:2]}",
        "deal__has_key=hands",
        "deal__isnull=False",
    ):
        url = f"/admin/games/game/?id={live.pk}&{lookup}"
        assert is_refused(admin_client, url), lookup


def test_no_ordering_of_the_game_list_uses_a_hidden_column(
    admin_client: Client, live: Game
) -> None:
    """``?o=`` orders by the list's columns only, and none of them is a hidden column; an
    ordering or a target field named in the query string is no way round."""
    columns = len(admin.site._registry[Game].list_display)
    for number in range(columns + 2):
        for order in (str(number), f"-{number}"):
            response = admin_client.get(f"/admin/games/game/?o={order}")
            assert response.status_code == 200, order
            ordering = [
                str(field).lstrip("-") for field in response.context["cl"].queryset.query.order_by
            ]
            assert not set(ordering) & {"seed", "hands", "stock", "deal"}, (order, ordering)
    for url in (
        "/admin/games/game/?o=seed",
        "/admin/games/game/?ordering=seed",
        "/admin/games/game/?_to_field=seed",
    ):
        response = admin_client.get(url)
        if response.status_code == 200:
            ordering = [str(field) for field in response.context["cl"].queryset.query.order_by]
            assert "seed" not in " ".join(ordering), url
        else:
            assert is_refused(admin_client, url), url


def test_other_admins_refuse_lookups_through_a_game(
    admin_client: Client, live: Game, trio: list[User]
) -> None:
    wallet = trio[0].wallet
    coins_move(wallet=wallet, amount=5, reason=LedgerReason.COMPENSATION, game=live)
    half = "8" + "0" * 63
    for url in (
        f"/admin/accounts/ledgerentry/?game__seed__lt={half}",
        f"/admin/accounts/ledgerentry/?game__id__exact={live.pk}&game__seed__lt={half}",
        f"/admin/accounts/ledgerentry/?game__hands__contains={live.hands[0][:2]}",
        f"/admin/games/dispute/?game__seed__lt={half}",
        f"/admin/games/dispute/?game__stock__startswith={live.stock[:2]}",
        f"/admin/games/table/?games__seed__lt={half}",
        f"/admin/games/room/?tables__games__seed__lt={half}",
        f"/admin/accounts/user/?game_players__game__seed__lt={half}",
        f"/admin/accounts/wallet/?entries__game__seed__lt={half}",
    ):
        assert is_refused(admin_client, url), url


def test_the_usual_filters_searches_and_orderings_still_work(
    admin_client: Client, live: Game, trio: list[User]
) -> None:
    for url in (
        f"/admin/games/game/?id={live.pk}",
        "/admin/games/game/?status__exact=playing",
        "/admin/games/game/?q=zhao",
        f"/admin/games/game/?q={live.seed_commitment}",
        "/admin/games/game/?o=-7.3",
        "/admin/games/dispute/?status__exact=open",
        "/admin/accounts/wallet/?q=zhao&o=2",
        f"/admin/accounts/ledgerentry/?wallet__id__exact={trio[0].wallet.pk}",
        f"/admin/games/table/?q={live.table_id}",
    ):
        response = admin_client.get(url)
        assert response.status_code == 200, url
        assert "?e=1" not in response.get("Location", ""), url
    listed = admin_client.get("/admin/games/game/?status__exact=playing").content.decode()
    assert f"/admin/games/game/{live.pk}/change/" in listed


def test_a_live_games_pages_show_no_seed_and_no_deal(
    admin_client: Client, live: Game, room: Room, trio: list[User]
) -> None:
    for url in (
        f"/admin/games/game/{live.pk}/change/",
        f"/admin/games/game/{live.pk}/replay/",
        f"/admin/games/game/?id={live.pk}",
    ):
        page = admin_client.get(url).content.decode()
        assert live.seed not in page, url
        assert live.stock not in page, url
        for hand in live.hands:
            assert hand not in page, url
    play_out(live, seed=77)
    live.refresh_from_db()
    assert live.is_over
    assert live.seed in admin_client.get(f"/admin/games/game/{live.pk}/change/").content.decode()


def test_no_admin_of_the_site_names_a_hidden_column() -> None:
    assert check_admins_hide_the_cards() == []
    game_admin = admin.site._registry[Game]
    assert isinstance(game_admin, HiddenFieldsRefused)
    assert all(issubclass(inline, HiddenFieldsRefused) for inline in game_admin.inlines)


def test_the_check_catches_an_admin_that_could_reach_the_cards() -> None:
    class Searching(HiddenFieldsRefused, admin.ModelAdmin):  # type: ignore[type-arg]
        search_fields = ("=id", "^seed")

    class Ordering(HiddenFieldsRefused, admin.ModelAdmin):  # type: ignore[type-arg]
        ordering = ("-stock",)

    class Showing(HiddenFieldsRefused, admin.ModelAdmin):  # type: ignore[type-arg]
        list_display = ("id", "hands")
        list_filter = ("deal",)

    class DisputesByTheSeed(HiddenFieldsRefused, admin.ModelAdmin):  # type: ignore[type-arg]
        list_filter = ("game__seed",)

    class Plain(admin.ModelAdmin):  # type: ignore[type-arg]
        pass

    def ids(model_admin: object) -> list[str]:
        return [error.id or "" for error in hidden_field_errors(model_admin)]

    assert ids(Searching(Game, admin.site)) == ["games.E010"]
    assert ids(Ordering(Game, admin.site)) == ["games.E010"]
    assert ids(Showing(Game, admin.site)) == ["games.E010", "games.E010"]
    assert ids(DisputesByTheSeed(Dispute, admin.site)) == ["games.E010"]
    # Django's own admin of a game answers a lookup on each hidden column; ours does not.
    assert ids(Plain(Game, admin.site)) == ["games.E011"] * 4
    request = RequestFactory().get("/admin/games/game/")
    assert Plain(Game, admin.site).lookup_allowed("seed__lt", "8", request)
    assert not Searching(Game, admin.site).lookup_allowed("seed__lt", "8", request)
    assert not Searching(Game, admin.site).lookup_allowed("hands__0__contains", "3", request)
    assert Searching(Game, admin.site).lookup_allowed("status__exact", "playing", request)
    # Through a relation Django's own refuses, unless a filter names the way; ours refuses even
    # then.
    assert ids(Plain(Dispute, admin.site)) == []

    class PlainDisputesByTheSeed(admin.ModelAdmin):  # type: ignore[type-arg]
        list_filter = ("game__seed",)

    assert ids(PlainDisputesByTheSeed(Dispute, admin.site)) == ["games.E010"] + ["games.E011"]
