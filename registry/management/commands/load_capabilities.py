"""`manage.py load_capabilities [--dir capabilities] [--author USER] [--submit]`."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from registry.manifest import ManifestInvalid
from registry.services import manifest_load


class Command(BaseCommand):
    help = "Validate capabilities/*.yaml and load changed definitions as new DRAFT versions."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--dir", default=str(Path(settings.BASE_DIR) / "capabilities"))
        parser.add_argument("--author", help="username recorded as the author of new versions")
        parser.add_argument("--submit", action="store_true", help="submit new drafts for approval")

    def handle(self, *args, **options) -> None:
        author = None
        if options["author"]:
            author = get_user_model().objects.filter(username=options["author"]).first()
            if author is None:
                raise CommandError(f"unknown user {options['author']!r}")
        try:
            report = manifest_load(directory=Path(options["dir"]), author=author, submit=options["submit"])
        except ManifestInvalid as exc:
            for error in exc.errors:
                self.stderr.write(str(error))
            raise CommandError(f"manifest invalid: {len(exc.errors)} error(s)") from None
        for label, items in (("new version", report.created), ("draft updated", report.updated_drafts)):
            for capability_id, version in items:
                self.stdout.write(f"{label}: {capability_id} v{version}")
        self.stdout.write(f"{len(report.created)} new, {len(report.updated_drafts)} drafts updated, "
                          f"{len(report.unchanged)} unchanged, {len(report.resources)} resources")
