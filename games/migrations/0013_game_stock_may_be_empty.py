from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0012_room_and_game_know_their_game"),
    ]

    operations = [
        migrations.AlterField(
            model_name="game",
            name="stock",
            field=models.TextField(blank=True, verbose_name="stock, top first"),
        ),
    ]
