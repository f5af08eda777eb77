from django.urls import path

from . import chat_views, game_views, player_views, table_views, views

app_name = "games"

urlpatterns = [
    path("", views.lobby, name="home"),
    path("rules/", views.rules, name="rules"),
    path("leaderboard/", player_views.leaderboard_page, name="leaderboard"),
    path("players/<str:username>/", player_views.player_page, name="player"),
    path("rooms/<slug:code>/", views.room_enter, name="room"),
    path("rooms/<slug:code>/play/", table_views.room_play, name="room_play"),
    path("rooms/<slug:code>/private/", table_views.room_private_table, name="room_private"),
    path("tables/<int:table_id>/", table_views.table_page, name="table"),
    path("tables/<int:table_id>/leave/", table_views.table_leave, name="table_leave"),
    path("tables/<int:table_id>/people/", chat_views.table_people_panel, name="table_people"),
    path("tables/<int:table_id>/mute/", chat_views.player_mute, name="player_mute"),
    path("tables/<int:table_id>/report/", chat_views.player_report, name="player_report"),
    path("join/<str:code>/", table_views.table_join, name="table_join"),
    path("games/<int:game_id>/", game_views.game_detail, name="game"),
    path("games/<int:game_id>/record.json", game_views.game_record_download, name="game_record"),
    path("games/<int:game_id>/dispute/", game_views.dispute_open, name="dispute_open"),
    path("games/<int:game_id>/replay/", game_views.game_replay, name="replay"),
    path("games/replay/<str:token>/", game_views.game_replay_shared, name="replay_shared"),
    path(
        "games/replay/<str:token>/record.json",
        game_views.game_record_shared,
        name="record_shared",
    ),
]
