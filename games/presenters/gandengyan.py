"""How 干瞪眼 looks on the game page and the admin's replay (see ``games.presenters``): card
faces, the combination on the table with its label, and the cards each seat drew."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext_lazy

from games.frames import card_faces
from games.rules import parse_cards

__all__ = ["COMBO_KIND_LABELS", "PRESENTER", "GandengyanPresenter"]

COMBO_KIND_LABELS = {
    "single": gettext_lazy("single"),
    "pair": gettext_lazy("pair"),
    "straight": gettext_lazy("straight"),
    "pair_straight": gettext_lazy("pair straight"),
    "soft_bomb": gettext_lazy("soft bomb"),
    "hard_bomb": gettext_lazy("hard bomb"),
    "rocket": gettext_lazy("rocket"),
}


class GandengyanPresenter:
    def replay_step(
        self,
        *,
        action: Mapping[str, Any] | None,
        views: Sequence[Mapping[str, Any]],
        public: Mapping[str, Any],
        previous: Sequence[Mapping[str, Any]] | None,
    ) -> dict[str, Any]:
        """``kind`` ("deal", "play" or "pass"), ``cards`` played, the ranks they stand for
        (``meaning``) and whether the cards alone do not tell it (``wild``: a joker, or several
        meanings); every seat's ``hands`` and what each ``drawn`` from the stock; the ``table``
        with its label, ``multiplier``, ``stock`` (cards left), ``to_move`` and ``winner``."""
        table = public["table"]
        if table is not None:
            table = {**table, "label": COMBO_KIND_LABELS[table["kind"]]}
        kind, cards, meaning, wild = "deal", "", "", False
        if action is not None and "play" in action:
            assert table is not None
            kind, cards, meaning = "play", action["play"], table["as"]
            wild = "as" in action or any(card.rank.is_joker for card in parse_cards(cards))
        elif action is not None:
            kind = "pass"
        hands = [view["hand"] for view in views]
        before = hands if previous is None else [view["hand"] for view in previous]
        return {
            "kind": kind,
            "cards": cards,
            "meaning": meaning,
            "wild": wild,
            "hands": tuple(" ".join(hand) for hand in hands),
            "drawn": tuple(
                " ".join(card for card in hand if card not in set(old))
                for hand, old in zip(hands, before, strict=True)
            ),
            "table": table,
            "multiplier": public["multiplier"],
            "stock": public["stock"],
            "to_move": public["to_move"],
            "winner": public["winner"],
        }

    def game_page(self, context: dict[str, Any]) -> None:
        """Each seat's ``hand_count`` and, once the game is over, ``final_hand`` (card faces);
        each action's ``is_pass``, ``cards`` and ``meaning``; the reader's ``view`` with its
        ``hand_faces`` and the table's faces and label; the ``multiplier``."""
        public = context["public"]
        for seat in context["seats"]:
            seat["hand_count"] = public["hand_counts"][seat["seat"]]
            final = seat["view"]
            seat["final_hand"] = None if final is None else card_faces(" ".join(final["hand"]))
        for action in context["actions"]:
            play = action["action"].get("play")
            action["is_pass"] = play is None
            action["cards"] = card_faces(play) if play else []
            action["meaning"] = action["action"].get("as", "")
        view = context["view"]
        if view is not None:
            view["hand_faces"] = card_faces(" ".join(view.get("hand", [])))
            if view["table"] is not None:
                view["table"]["faces"] = card_faces(view["table"]["cards"])
                view["table"]["label"] = COMBO_KIND_LABELS.get(view["table"]["kind"], "")
        context["multiplier"] = public["multiplier"]


PRESENTER = GandengyanPresenter()
