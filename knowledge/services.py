"""Writes: import a corpus as a new knowledge package version of a tenant, activate a version.

A package is never edited: every import is a new version that becomes the tenant's only active
one in the same transaction (the partial unique constraint holds even under concurrent imports,
which the tenant row lock serialises). The in-process search index is keyed by package id, so a
new version is picked up by the next search without any explicit invalidation.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from tenancy.models import Tenant

from .markdown import DocumentError, ParsedSection, parse_document
from .models import KnowledgePackage, KnowledgeSection

_DOCUMENT_KEYS = {"title", "body", "semantic_ids", "keywords", "language", "text", "source"}


def corpus_hash(documents: Iterable[Mapping[str, Any]]) -> str:
    canonical = json.dumps(list(documents), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def folder_documents(folder: Path) -> list[dict[str, str]]:
    """Every `*.md` under `folder` (sorted, so the hash is stable) as `{text, source}` documents."""
    if not folder.is_dir():
        raise DocumentError(f"{folder} is not a folder")
    return [
        {"text": path.read_text(encoding="utf-8"), "source": path.relative_to(folder).as_posix()}
        for path in sorted(folder.rglob("*.md"))
    ]


def _parse(documents: list[Mapping[str, Any]]) -> list[ParsedSection]:
    sections: list[ParsedSection] = []
    for number, document in enumerate(documents, start=1):
        unknown = set(document) - _DOCUMENT_KEYS
        if unknown:
            raise DocumentError(f"document {number}: unknown keys {sorted(unknown)}")
        source = str(document.get("source") or f"document-{number}")
        sections.extend(parse_document(
            text=document.get("text"), title=document.get("title"), body=document.get("body"), source=source,
            semantic_ids=document.get("semantic_ids"), keywords=document.get("keywords"),
            language=document.get("language"),
        ))
    ids = [section.section_id for section in sections]
    duplicates = sorted({section_id for section_id in ids if ids.count(section_id) > 1})
    if duplicates:
        raise DocumentError(f"two documents produce the same section ids: {duplicates[:5]}")
    return sections


@transaction.atomic
def knowledge_package_create(
    *, tenant: Tenant, documents: list[Mapping[str, Any]], source: str = ""
) -> KnowledgePackage:
    """Import `documents` as the tenant's next version and make it the active one.

    A document is `{title, body, semantic_ids?, keywords?, language?}` (scenario worlds) or
    `{text, source}` (a markdown file with front matter). Raises DocumentError on bad input.
    """
    sections = _parse(documents)
    Tenant.objects.select_for_update().get(pk=tenant.pk)  # serialise version numbering per tenant
    packages = KnowledgePackage.objects.for_tenant(tenant)
    version = (packages.aggregate(last=Max("version"))["last"] or 0) + 1
    packages.filter(is_active=True).update(is_active=False)
    package = KnowledgePackage.objects.create(
        tenant=tenant, version=version, label=f"{timezone.now():%Y.%m.%d}.{version}", is_active=True,
        content_hash=corpus_hash(documents), source=source[:300],
    )
    KnowledgeSection.objects.bulk_create(
        [KnowledgeSection(tenant=tenant, package=package, **vars(section)) for section in sections],
        batch_size=1000,
    )
    return package


def knowledge_folder_load(*, tenant: Tenant, folder: Path) -> KnowledgePackage:
    return knowledge_package_create(tenant=tenant, documents=folder_documents(folder), source=str(folder))


@transaction.atomic
def knowledge_package_activate(*, tenant: Tenant, version: int) -> KnowledgePackage:
    """Make an earlier (or later) version the active one again, e.g. to roll back a bad import."""
    Tenant.objects.select_for_update().get(pk=tenant.pk)
    packages = KnowledgePackage.objects.for_tenant(tenant)
    package = packages.get(version=version)
    packages.filter(is_active=True).exclude(pk=package.pk).update(is_active=False)
    packages.filter(pk=package.pk).update(is_active=True)
    package.is_active = True
    return package
