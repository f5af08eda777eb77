"""Names that look alike: usernames and nicknames are stored in Unicode's NFKC form, and a name is
refused when it looks like another player's username or nickname.

Two names look alike when their skeletons are equal. A name's skeleton is its NFKC form with each
character replaced by one representative of the characters that look like it (Cyrillic р, Greek
ρ and Latin p are one), ignoring case, from the confusables data of the
`confusable-homoglyphs <https://pypi.org/project/confusable-homoglyphs/>`_ package (Unicode's
confusables.txt). Each user's skeletons are stored in indexed columns (``User.username_skeleton``,
``User.nickname_skeleton``), so that a check is one indexed query, not a read of every user.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from confusable_homoglyphs.confusables import confusables_data
from django.utils.translation import gettext as _


def normalise_name(name: str) -> str:
    """The form a name is stored in: NFKC folds full-width and other compatibility forms
    (ｐ1 is p1), as Django already does for usernames it cleans."""
    return unicodedata.normalize("NFKC", name)


@cache
def _representatives() -> dict[str, str]:
    """Each character that looks like another, mapped to the representative of its group (the
    lowest code point, so a Latin letter or digit where there is one). The data pairs single
    characters with their look-alikes; pairs with a sequence of characters (rn and m) are left
    out, since they cannot be replaced one character for one."""
    parent: dict[str, str] = {}

    def root(char: str) -> str:
        while parent.get(char, char) != char:
            char = parent[char]
        return char

    for char, look_alikes in confusables_data.items():
        if len(char) != 1:
            continue
        for look_alike in look_alikes:
            other = look_alike["c"]
            if len(other) != 1:
                continue
            first, second = sorted((root(char), root(other)))
            if first != second:
                parent[second] = first
    return {char: root(char) for char in parent}


def name_skeleton(name: str) -> str:
    """What ``name`` looks like: equal skeletons, look-alike names. Mapped before and after
    folding the case, so that a capital that looks like another lower-case letter (I and l)
    and a lower-case letter that looks like another capital both meet."""
    representatives = _representatives()

    def mapped(text: str) -> str:
        return "".join(representatives.get(char, char) for char in text)

    return mapped(mapped(normalise_name(name)).casefold())


def look_alike_message() -> str:
    return _("This name looks too much like another player's name.")


def name_looks_taken(name: str, *, user_id: int | None = None) -> bool:
    """Whether ``name`` looks like the username or nickname of a user other than ``user_id``."""
    from django.db.models import Q

    from .models import User

    skeleton = name_skeleton(name)
    others = User.objects.exclude(pk=user_id) if user_id is not None else User.objects.all()
    return others.filter(Q(username_skeleton=skeleton) | Q(nickname_skeleton=skeleton)).exists()
