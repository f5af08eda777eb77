from django.db import migrations

# 上海斗地主's ladder: a game moves at most 9 points (a 大地主 lost: the landlord pays 9 × base,
# each farmer 3 × base), so a room asks for twenty bases, as 斗地主's do, which covers a few
# losses in a row.
ROOMS = [
    # code, Chinese name, English name, base, min coins, max coins (None: no limit)
    ("sh-novice", "上海斗地主 新手场", "Shanghai Novice", 50, 1_000, 50_000),
    ("sh-junior", "上海斗地主 初级场", "Shanghai Junior", 200, 4_000, 250_000),
    ("sh-intermediate", "上海斗地主 中级场", "Shanghai Intermediate", 800, 16_000, 1_000_000),
    ("sh-senior", "上海斗地主 高级场", "Shanghai Senior", 3_000, 60_000, 10_000_000),
    ("sh-master", "上海斗地主 大师场", "Shanghai Master", 10_000, 200_000, None),
]


def create_rooms(apps, schema_editor):
    Room = apps.get_model("games", "Room")
    for position, (code, name_zh, name_en, base, low, high) in enumerate(ROOMS):
        Room.objects.update_or_create(
            code=code,
            defaults={
                "game": "shanghai",
                "name_zh": name_zh,
                "name_en": name_en,
                "base": base,
                "min_coins": low,
                "max_coins": high,
                "rules": {},
                # After 斗地主's (100 on).
                "position": 200 + position,
            },
        )


def remove_rooms(apps, schema_editor):
    apps.get_model("games", "Room").objects.filter(code__in=[r[0] for r in ROOMS]).delete()


class Migration(migrations.Migration):
    dependencies = [("games", "0019_game_watch")]

    operations = [migrations.RunPython(create_rooms, remove_rooms)]
