"""django-mailer's app, the queue of the site's mail, under names in the site's languages."""

from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop
from mailer.apps import MailerConfig

# The strings of django-mailer's admin that it has no Chinese for (its models' names and a
# notice): marked here so that makemessages keeps them in this app's catalogue, where the admin
# finds their translations. "message" is left out: the games' catalogue says it (消息) for a
# report's message, and one word has one translation across the site.
ADMIN_STRINGS = (
    gettext_noop("messages"),
    gettext_noop("message log"),
    gettext_noop("message logs"),
    gettext_noop("don't send entry"),
    gettext_noop("don't send entries"),
    gettext_noop("Message(s) sent."),
)


class MailQueueConfig(MailerConfig):
    verbose_name = _("Mail queue")
