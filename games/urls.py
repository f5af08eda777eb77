from django.urls import path

from . import game_views, views

app_name = "games"

urlpatterns = [
    path("", views.lobby, name="home"),
    path("rules/", views.rules, name="rules"),
    path("rooms/<slug:code>/", views.room_enter, name="room"),
    path("games/<int:game_id>/", game_views.game_detail, name="game"),
    path("games/<int:game_id>/dispute/", game_views.dispute_open, name="dispute_open"),
]
