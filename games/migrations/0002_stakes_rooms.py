"""The six stakes rooms of the rule card, with their base and entry range."""

from django.db import migrations

ROOMS = [
    # code, Chinese name, English name, base, min coins, max coins (None: no limit)
    ("novice", "新手场", "Novice", 400, 1_000, 50_000),
    ("junior", "初级场", "Junior", 1_000, 3_000, 250_000),
    ("intermediate", "中级场", "Intermediate", 3_000, 8_000, 600_000),
    ("senior", "高级场", "Senior", 9_000, 20_000, 10_000_000),
    ("master", "大师场", "Master", 30_000, 90_000, 100_000_000),
    ("supreme", "至尊场", "Supreme", 80_000, 540_000, None),
]


def create_rooms(apps, schema_editor):
    Room = apps.get_model("games", "Room")
    for position, (code, name_zh, name_en, base, low, high) in enumerate(ROOMS):
        Room.objects.update_or_create(
            code=code,
            defaults={
                "name_zh": name_zh,
                "name_en": name_en,
                "base": base,
                "min_coins": low,
                "max_coins": high,
                "position": position,
            },
        )


def remove_rooms(apps, schema_editor):
    apps.get_model("games", "Room").objects.filter(code__in=[r[0] for r in ROOMS]).delete()


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [migrations.RunPython(create_rooms, remove_rooms)]
