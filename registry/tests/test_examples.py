"""The chat's welcome examples come from the registry's phrasings, for what the user's role may do."""

from __future__ import annotations

from registry.examples import examples_for
from registry.selectors import registry_snapshot, snapshot_clear
from tests.registry_fixtures import activate_manifest


def test_examples_are_sendable_phrasings_of_capabilities_the_role_may_use(db, tenant):
    activate_manifest()
    examples = examples_for(tenant=tenant, role="operator", language="pt-BR")
    assert 3 <= len(examples) <= 6 and len(set(examples)) == len(examples)
    assert not [e for e in examples if "{" in e]
    phrasings = {p for spec in registry_snapshot().discoverable_for(tenant=tenant, role="operator")
                 for p in spec.language.get("phrasings", {}).get("pt-BR", [])}
    assert set(examples) <= phrasings


def test_a_viewer_gets_no_example_of_what_only_an_operator_may_do(db, tenant):
    activate_manifest()
    snapshot_clear()
    viewer = set(examples_for(tenant=tenant, role="viewer", language="en", limit=100))
    allowed = {p for spec in registry_snapshot().discoverable_for(tenant=tenant, role="viewer")
               for p in spec.language.get("phrasings", {}).get("en", [])}
    assert viewer and viewer <= allowed
