"""`manage.py redact_message_text`: the LGPD retention job, for operators (conversations/retention.py).

Run it with a login that may act as `agent_maintainer` (README: retention of message text). No
system checks: the start-up role check refuses exactly such a login, and this command is the one
place meant to use it.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from conversations.retention import message_texts_redact
from tenancy.models import Tenant
from tenancy.retention import MaintainerWindowUnavailable


class Command(BaseCommand):
    help = "Replace message texts older than N days (AGENT_MESSAGE_TEXT_RETENTION_DAYS) by '[redacted]'."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser) -> None:
        parser.add_argument("--days", type=int, default=None,
                            help=f"age in days (default AGENT_MESSAGE_TEXT_RETENTION_DAYS, now "
                                 f"{settings.AGENT_MESSAGE_TEXT_RETENTION_DAYS}; 0 keeps every text)")
        parser.add_argument("--tenant", help="the slug of one tenant (default: every tenant)")
        parser.add_argument("--batch-size", type=int, default=500, help="rows of each kind per transaction")

    def handle(self, *args, days: int | None, tenant: str | None, batch_size: int, **options) -> None:
        if days is not None and days < 0:
            raise CommandError("--days must be >= 0")
        if batch_size < 1:
            raise CommandError("--batch-size must be >= 1")
        chosen = None
        if tenant:
            chosen = Tenant.objects.filter(slug=tenant).first()
            if chosen is None:
                raise CommandError(f"no tenant with slug {tenant!r}")
        try:
            run = message_texts_redact(by="command:redact_message_text", days=days, tenant=chosen,
                                       batch_size=batch_size)
        except MaintainerWindowUnavailable as exc:
            raise CommandError(str(exc)) from None
        if run.cutoff is None:
            self.stdout.write("retention is off (0 days): nothing redacted")
            return
        counts = ", ".join(f"{kind} {count}" for kind, count in sorted(run.counts.items()) if count) or "nothing"
        self.stdout.write(f"redacted texts older than {run.cutoff.isoformat()} ({run.days} days): {counts}; "
                          f"{run.tenants} tenant(s); run {run.run_id}")
