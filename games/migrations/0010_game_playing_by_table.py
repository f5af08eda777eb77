from django.db import migrations, models

# Room left free on each page of games_game, so that a move's update of a game's row can be
# written on the row's own page (a heap-only update, which writes no index entry).
GAME_FILLFACTOR = 50


def leave_room_on_game_pages(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE games_game SET (fillfactor = {GAME_FILLFACTOR})")


def fill_game_pages(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE games_game RESET (fillfactor)")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_drop_indexes_covered_by_unique"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="game",
            name="game_playing_deadline_idx",
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                condition=models.Q(("status", "playing")),
                fields=["table"],
                name="game_playing_table_idx",
            ),
        ),
        migrations.RunPython(leave_room_on_game_pages, fill_game_pages, elidable=False),
    ]
