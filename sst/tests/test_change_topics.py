"""What the sample application says changed (sst/changes.py): the API-path topics of a write or a row,
or the whole tenant when the change shows inside other answers."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from sst.changes import request_topics, row_topics
from tenancy.data_epoch import topics_of


@pytest.mark.parametrize(("path", "expected"), [
    # a plain value of the permit: its own topic and the collection's plain one, no list of its parts
    ("/api/sst/permits/7/validity", ["permits/7", "permits~plain"]),
    ("/api/sst/permits/7/approve", ["permits", "permits/7"]),  # a state: every list of permits
    ("/api/sst/permits/7/components/3", ["permits", "permits/7", "permits/7/components"]),
    ("/api/sst/permits/7/checks/training", ["permits", "permits/7"]),  # no declared part
    ("/api/sst/permits/7", ["permits", "permits/7", "permits/7/components", "permits/7/workers"]),  # a delete
    ("/api/sst/permits", ["permits"]),
    ("/api/sst/permits/count", ["permits"]),
    ("/api/sst/inspections/52/findings", ["inspections", "inspections/52", "inspections/52/findings"]),
    ("/api/sst/employees", None),  # an employee is named inside permits and inspections
    ("/api/sst/component-types", None),
    ("/api/sst/companies", None),
])
def test_a_write_changes_the_topics_of_its_path(path, expected):
    assert request_topics(path) == expected


@pytest.mark.parametrize(("model", "row", "expected"), [
    ("WorkPermit", SimpleNamespace(pk=7), ["permits", "permits/7"]),
    ("PermitComponent", SimpleNamespace(pk=1, permit_id=7), ["permits", "permits/7", "permits/7/components"]),
    ("PermitEvaluation", SimpleNamespace(pk=1, permit_id=7), ["permits", "permits/7"]),
    ("Finding", SimpleNamespace(pk=1, inspection_id=52), ["inspections", "inspections/52", "inspections/52/findings"]),
    ("Employee", SimpleNamespace(pk=3), None),
    ("Company", SimpleNamespace(pk=3), None),
])
def test_a_row_changes_the_topics_of_its_entity(model, row, expected):
    assert row_topics(model, row) == expected


def test_a_save_of_plain_values_only_moves_the_plain_topic():
    permit = SimpleNamespace(pk=7)
    assert row_topics("WorkPermit", permit, update_fields={"validity_days", "revision", "updated_at"}) == [
        "permits~plain", "permits/7"]
    assert row_topics("WorkPermit", permit, update_fields={"status", "revision"}) == ["permits", "permits/7"]
    assert row_topics("WorkPermit", permit) == ["permits", "permits/7"]  # a save that does not say what it wrote


def test_an_entity_deleted_moves_every_part_of_it():
    assert row_topics("WorkPermit", SimpleNamespace(pk=7), deleted=True) == [
        "permits", "permits/7", "permits/7/components", "permits/7/workers"]
    assert row_topics("PermitWorker", SimpleNamespace(pk=1, permit_id=7), deleted=True) == [
        "permits", "permits/7", "permits/7/workers"]


@pytest.mark.parametrize(("path", "entity_at_second", "expected"), [
    ("permits/7003/components", True, ("permits/7003/components",)),  # a declared part: its own topic
    ("permits/7003/checks/training", True, ("permits/7003",)),  # anything else under the entity: the entity's
    ("inspections/52/findings", True, ("inspections/52/findings",)),
    ("permits/7003", True, ("permits/7003",)),
    ("employees/count", False, ("employees", "employees~plain")),
    ("component-types", False, ("component-types", "component-types~plain")),
    ("", False, ()),
])
def test_a_readers_topic_is_its_collection_or_its_entity(path, entity_at_second, expected):
    assert topics_of(path, entity_at_second=entity_at_second) == expected


def test_a_reader_of_names_only_leaves_the_plain_topic_out():
    assert topics_of("permits", entity_at_second=False, names_only=True) == ("permits",)
    assert topics_of("permits/7/components", entity_at_second=True, names_only=True) == ("permits/7/components",)
