import io

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from demo.seeding.knowledge import seed
from knowledge.markdown import DocumentError
from knowledge.models import KnowledgePackage, KnowledgeSection
from knowledge.services import knowledge_package_activate, knowledge_package_create

DOCS = [{"title": "Trabalho em Altura", "body": "Regulamentado pela NR-35."}]


def test_each_import_is_a_new_version_and_the_only_active_one(tenant):
    first = knowledge_package_create(tenant=tenant, documents=DOCS)
    second = knowledge_package_create(tenant=tenant, documents=DOCS + [{"title": "Hot Work", "body": "Sparks."}])
    packages = KnowledgePackage.objects.for_tenant(tenant)
    assert (first.version, second.version) == (1, 2)
    assert list(packages.filter(is_active=True).values_list("version", flat=True)) == [2]
    assert KnowledgeSection.objects.for_tenant(tenant).filter(package=second).count() == 2
    assert second.label.endswith(".2")


def test_versions_are_counted_per_tenant(tenant, other_tenant):
    knowledge_package_create(tenant=tenant, documents=DOCS)
    assert knowledge_package_create(tenant=other_tenant, documents=DOCS).version == 1


def test_the_database_refuses_a_second_active_package(tenant):
    package = knowledge_package_create(tenant=tenant, documents=DOCS)
    with pytest.raises(IntegrityError), transaction.atomic():
        KnowledgePackage.objects.create(tenant=tenant, version=package.version + 1, label="x", is_active=True,
                                        content_hash="0" * 64)


def test_an_earlier_version_can_be_activated_again(tenant):
    knowledge_package_create(tenant=tenant, documents=DOCS)
    knowledge_package_create(tenant=tenant, documents=DOCS)
    knowledge_package_activate(tenant=tenant, version=1)
    active = KnowledgePackage.objects.for_tenant(tenant).filter(is_active=True)
    assert list(active.values_list("version", flat=True)) == [1]


def test_a_bad_document_imports_nothing(tenant):
    with pytest.raises(DocumentError):
        knowledge_package_create(tenant=tenant, documents=[{"title": "A", "body": "x", "owner": "evil"}])
    with pytest.raises(DocumentError):
        twins = [{"title": "Same", "body": "a"}, {"title": "same", "body": "b"}]
        knowledge_package_create(tenant=tenant, documents=twins)
    assert not KnowledgePackage.objects.for_tenant(tenant).exists()


def test_load_knowledge_command_imports_the_shipped_corpus(tenant):
    out = io.StringIO()
    call_command("load_knowledge", "knowledge/corpus", "--tenant", tenant.slug, stdout=out)
    package = KnowledgePackage.objects.for_tenant(tenant).get(is_active=True)
    sections = KnowledgeSection.objects.for_tenant(tenant).filter(package=package)
    ids = set().union(*sections.values_list("semantic_ids", flat=True))
    for key in ("workingAtHeight", "hotWork", "confinedSpace", "electricity", "excavation", "loadLifting"):
        assert f"component:{key}" in ids
    assert sections.filter(language="en").exists() and sections.filter(language="pt").exists()
    assert "active" in out.getvalue()


def test_seeding_imports_the_corpus_once_and_is_idempotent(tenant):
    seed(tenant=tenant, stdout=io.StringIO())
    out = io.StringIO()
    seed(tenant=tenant, stdout=out)
    assert KnowledgePackage.objects.for_tenant(tenant).count() == 1
    assert "already loaded" in out.getvalue()


def test_seeding_adds_a_version_when_the_active_one_differs(tenant):
    knowledge_package_create(tenant=tenant, documents=DOCS)
    seed(tenant=tenant, stdout=io.StringIO())
    assert KnowledgePackage.objects.for_tenant(tenant).get(is_active=True).version == 2


def test_load_knowledge_refuses_an_unknown_tenant(db):
    with pytest.raises(CommandError):
        call_command("load_knowledge", "knowledge/corpus", "--tenant", "no-such-tenant", stdout=io.StringIO())
