"""What a player is told when the server refuses them: an action, or a seat in a room."""

from __future__ import annotations

from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from accounts.selectors import lowest_open_room_minimum
from accounts.templatetags.accounts_tags import coins

from .. import decisions
from ..models import Room
from ..presentation import presentation_for


def refusal_message(code: str, game: str | None = None) -> str:
    """What to tell a player whose action was refused, by the refusal's code: the game's own
    words for its codes (its presentation's ``refusal_message``; ``game``: its key), else the
    platform's."""
    if game is not None:
        own = presentation_for(game).refusal_message(code)
        if own is not None:
            return own
    messages = {
        "stale": _("The table changed before your action arrived. Please look again."),
        "not_your_turn": _("It is not your turn."),
        "game_over": _("This game is over."),
        "not_seated": _("You are not playing at this table."),
        "no_game": _("No game is being played at this table."),
        "no_selection": _("Choose the cards to play first."),
        "choose_meaning": _("These cards can be played in more than one way: choose one."),
        "bad_action": _("That action was not understood."),
        "too_fast": _("Too many actions at once. Please slow down."),
    }
    return messages.get(code, _("That action is not allowed now."))


def room_suggestion(*, room: Room, balance: int, rooms: list[Room]) -> Room | None:
    """The open room nearest to ``room`` in the lobby whose range admits ``balance``."""
    fitting = [other for other in rooms if other.is_open and other.admits(balance)]
    if not fitting:
        return None
    return min(fitting, key=lambda other: (abs(other.position - room.position), other.base))


def room_entry_refusal(*, room: Room, balance: int) -> SafeString | None:
    """Why a player with ``balance`` coins may not enter ``room`` (``decisions.admission_refused``
    decides), with the way out: relief coins for a player who can afford no room, or the
    nearest room they can afford. ``None`` when they may enter."""
    refused = decisions.admission_refused(room=room, balance=balance)
    if refused is None:
        return None
    if refused.code == "room_closed":
        return format_html(
            _("{room} is closed for now. Please choose another room."), room=room.name
        )
    if refused.code == "balance_too_low":
        refusal = format_html(
            _("{room} needs at least {minimum} coins to enter; you have {balance}."),
            room=room.name,
            minimum=coins(room.min_coins),
            balance=coins(balance),
        )
        lowest = lowest_open_room_minimum()
        if lowest is not None and balance < lowest:
            profile = format_html(
                '<a href="{}">{}</a>', reverse("accounts:profile"), _("your profile")
            )
            return format_html(
                _("{refusal} You can claim relief coins on {profile}."),
                refusal=refusal,
                profile=profile,
            )
    else:
        assert room.max_coins is not None
        refusal = format_html(
            _("{room} admits at most {maximum} coins; you have {balance}."),
            room=room.name,
            maximum=coins(room.max_coins),
            balance=coins(balance),
        )
    suggestion = room_suggestion(room=room, balance=balance, rooms=list(Room.objects.all()))
    if suggestion is None:
        return refusal
    link = format_html(
        '<a href="{}">{}</a>', reverse("games:room", args=[suggestion.code]), suggestion.name
    )
    return format_html(_("{refusal} Try {room}."), refusal=refusal, room=link)
