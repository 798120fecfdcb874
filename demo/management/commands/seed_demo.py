"""`manage.py seed_demo`: the demo tenants, their SST data and users (idempotent).

The SST seeder runs first and returns the demo tenant; each seeder in FOLLOW_UP_SEEDERS then
receives it as `seeder(tenant=..., stdout=...)` (e.g. the registry's capabilities and its one version
waiting for approval, the knowledge corpus), in order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from django.core.management.base import BaseCommand

from demo.seeding import knowledge as knowledge_seed
from demo.seeding import registry as registry_seed
from demo.seeding import sst
from tenancy.models import Tenant

FOLLOW_UP_SEEDERS: list[Callable[..., None]] = [registry_seed.seed, registry_seed.seed_pending, knowledge_seed.seed]


class Command(BaseCommand):
    help = "Seed the demo tenants (Demo SST, Outra Empresa) with SST data and one user per role. Idempotent."

    def handle(self, *args: object, **options: object) -> None:
        tenant: Tenant = sst.seed(stdout=self.stdout)
        run_follow_ups(tenant=tenant, stdout=self.stdout)
        self.stdout.write(self.style.SUCCESS(f"demo seeded: tenant {tenant.slug}"))


def run_follow_ups(*, tenant: Tenant, stdout: TextIO) -> None:
    for seeder in FOLLOW_UP_SEEDERS:
        seeder(tenant=tenant, stdout=stdout)
