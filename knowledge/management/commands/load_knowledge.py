"""`manage.py load_knowledge <folder> --tenant <slug>`: import a markdown folder as a new version."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from knowledge.markdown import DocumentError
from knowledge.services import knowledge_folder_load
from tenancy.models import Tenant


class Command(BaseCommand):
    help = "Import a folder of markdown documents as a new, active knowledge package version of a tenant."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", type=Path)
        parser.add_argument("--tenant", required=True, help="tenant slug")

    def handle(self, *args, folder: Path, tenant: str, **options) -> None:
        try:
            owner = Tenant.objects.get(slug=tenant)
        except Tenant.DoesNotExist:
            raise CommandError(f"no tenant with slug {tenant!r}") from None
        try:
            package = knowledge_folder_load(tenant=owner, folder=folder)
        except DocumentError as exc:
            raise CommandError(str(exc)) from None
        count = package.sections.count()
        self.stdout.write(f"knowledge {package.label} (version {package.version}): {count} sections, active")
