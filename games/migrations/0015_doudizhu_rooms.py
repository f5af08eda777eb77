from django.db import migrations

# 斗地主's ladder: a game's multiplier (抢, 明牌, bombs, spring) and each pair's 加倍 reach well
# beyond 干瞪眼's, so the bases are lower for the same coins, and 加倍 needs forty bases.
ROOMS = [
    # code, Chinese name, English name, base, min coins, max coins (None: no limit), threshold
    ("ddz-novice", "新手场", "Novice", 50, 1_000, 50_000, 2_000),
    ("ddz-junior", "初级场", "Junior", 200, 4_000, 250_000, 8_000),
    ("ddz-intermediate", "中级场", "Intermediate", 800, 16_000, 1_000_000, 32_000),
    ("ddz-senior", "高级场", "Senior", 3_000, 60_000, 10_000_000, 120_000),
    ("ddz-master", "大师场", "Master", 10_000, 200_000, None, 400_000),
]


def create_rooms(apps, schema_editor):
    Room = apps.get_model("games", "Room")
    for position, (code, name_zh, name_en, base, low, high, threshold) in enumerate(ROOMS):
        Room.objects.update_or_create(
            code=code,
            defaults={
                "game": "doudizhu",
                "name_zh": name_zh,
                "name_en": name_en,
                "base": base,
                "min_coins": low,
                "max_coins": high,
                "rules": {"double_threshold": threshold},
                "position": 100 + position,
            },
        )


def remove_rooms(apps, schema_editor):
    apps.get_model("games", "Room").objects.filter(code__in=[r[0] for r in ROOMS]).delete()


class Migration(migrations.Migration):
    dependencies = [("games", "0014_game_deal_and_clock")]

    operations = [migrations.RunPython(create_rooms, remove_rooms)]
