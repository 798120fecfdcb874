"""Cross-app test helper: the real capability manifest, loaded and approved by two staff users.

It is the demo seeder itself (same services, same two-person approval), so tests and the demo can
never disagree about what "the active registry" is.
"""

from __future__ import annotations

import io

from demo.seeding.registry import seed
from registry.selectors import RegistrySnapshot, registry_snapshot, snapshot_clear


def activate_manifest() -> RegistrySnapshot:
    seed(tenant=None, stdout=io.StringIO())
    snapshot_clear()
    return registry_snapshot()
