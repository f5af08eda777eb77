"""The table as each viewer sees it: what a seat may see (``views``), how cards look
(``cards``), the HTML of the page and of every websocket frame (``render``, with the Jinja2
environment of the fragments in ``jinja2``), and what a refused player is told (``refusals``).
What each game adds to them is its presentation (``games.presentation``).
"""

from .cards import CardFace, card_face, card_faces, cards_html
from .refusals import refusal_message, room_entry_refusal
from .render import (
    frame_context,
    frames_of_table,
    render_frame,
    render_frame_and_version,
    render_frame_for_user,
    render_notice,
    render_player_frames,
    render_prompt,
    render_spectator_frame,
    seat_html,
)
from .views import SharedView, table_view, table_view_shared

__all__ = [
    "CardFace",
    "SharedView",
    "card_face",
    "card_faces",
    "cards_html",
    "frame_context",
    "frames_of_table",
    "refusal_message",
    "render_frame",
    "render_frame_and_version",
    "render_frame_for_user",
    "render_notice",
    "render_player_frames",
    "render_prompt",
    "render_spectator_frame",
    "room_entry_refusal",
    "seat_html",
    "table_view",
    "table_view_shared",
]
