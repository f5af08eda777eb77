"""Open the house wallet (系统庄家), which bots play for, with its opening coins as a ledger row.

The house belongs to a system user who is inactive and has no usable password. Undone only while
the house has no other ledger row than its funding.
"""

from django.contrib.auth.hashers import make_password
from django.db import migrations

from accounts.models import HOUSE_OPENING_COINS, HOUSE_USERNAME

FUNDING_NOTE = "Opening coins of the house"


def open_house(apps, schema_editor):
    db = schema_editor.connection.alias
    User = apps.get_model("accounts", "User")
    Wallet = apps.get_model("accounts", "Wallet")
    LedgerEntry = apps.get_model("accounts", "LedgerEntry")
    if Wallet.objects.using(db).filter(is_house=True).exists():
        return
    if User.objects.using(db).filter(username__iexact=HOUSE_USERNAME).exists():
        raise RuntimeError(
            f"the username {HOUSE_USERNAME!r} is taken: rename that user, then migrate again"
        )
    user = User.objects.using(db).create(
        username=HOUSE_USERNAME, password=make_password(None), is_active=False
    )
    wallet = Wallet.objects.using(db).create(user=user, is_house=True, balance=HOUSE_OPENING_COINS)
    LedgerEntry.objects.using(db).create(
        wallet=wallet,
        amount=HOUSE_OPENING_COINS,
        balance_after=HOUSE_OPENING_COINS,
        reason="house_funding",
        note=FUNDING_NOTE,
    )


def close_house(apps, schema_editor):
    db = schema_editor.connection.alias
    Wallet = apps.get_model("accounts", "Wallet")
    LedgerEntry = apps.get_model("accounts", "LedgerEntry")
    wallet = Wallet.objects.using(db).filter(is_house=True).select_related("user").first()
    if wallet is None:
        return
    entries = LedgerEntry.objects.using(db).filter(wallet=wallet)
    if entries.exclude(reason="house_funding").exists():
        raise RuntimeError("the house has played: its wallet and ledger rows are kept")
    user = wallet.user
    entries.delete()
    wallet.delete()
    user.delete()


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_wallet_is_house")]

    operations = [migrations.RunPython(open_house, close_house)]
