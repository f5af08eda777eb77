from django.db import migrations, models

from games.rules.gandengyan import GameState, GandengyanRules
from games.rules.gandengyan.moves import move_from_json


def fill_turns(apps, schema_editor):
    """Games being played when this runs get their seat to move, from their events."""
    Game = apps.get_model("games", "Game")
    for game in Game.objects.filter(status="playing"):
        rules = GandengyanRules.from_dict(game.rules)
        state = GameState.from_position(game.hands, game.stock, game.dealer, rules=rules)
        for action in game.events.order_by("number").values_list("action", flat=True):
            state = state.apply(state.to_move, move_from_json(action))
        game.to_move = state.to_move
        game.turn_started_at = game.started_at
        game.save(update_fields=["to_move", "turn_started_at"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_table_lifecycle"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="to_move",
            field=models.PositiveSmallIntegerField(
                blank=True, null=True, verbose_name="seat to move"
            ),
        ),
        migrations.AddField(
            model_name="game",
            name="turn_started_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="turn started at"),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                condition=models.Q(("status", "playing")),
                fields=["turn_started_at"],
                name="game_playing_turn_idx",
            ),
        ),
        migrations.RunPython(fill_turns, migrations.RunPython.noop),
    ]
