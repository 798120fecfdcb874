"""Demo seeding: the shipped pt-BR/English corpus (knowledge/corpus/) as the tenant's knowledge.

Idempotent: a new version is imported only when the corpus differs (SHA-256 of the documents)
from the tenant's active package.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from knowledge.selectors import active_package_get
from knowledge.services import corpus_hash, folder_documents, knowledge_package_create
from tenancy.models import Tenant

CORPUS = Path(__file__).resolve().parents[2] / "knowledge" / "corpus"


def seed(*, tenant: Tenant, stdout: TextIO) -> None:
    documents = folder_documents(CORPUS)
    active = active_package_get(tenant=tenant)
    if active is not None and active.content_hash == corpus_hash(documents):
        stdout.write(f"knowledge: {active.label} already loaded\n")
        return
    package = knowledge_package_create(tenant=tenant, documents=documents, source="knowledge/corpus")
    stdout.write(f"knowledge: loaded {package.label} ({len(documents)} documents)\n")
