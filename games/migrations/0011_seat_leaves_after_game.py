from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0010_game_playing_by_table"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="leaves_after_game",
            field=models.BooleanField(default=False, verbose_name="leaves after this game"),
        ),
    ]
