from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.index import INDEX_CACHE
from knowledge.models import KnowledgePackage
from knowledge.services import knowledge_folder_load

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


@pytest.fixture(autouse=True)
def _empty_index_cache():
    INDEX_CACHE.clear()
    yield
    INDEX_CACHE.clear()


@pytest.fixture
def corpus_package(tenant) -> KnowledgePackage:
    """The shipped demo corpus, loaded into `tenant` as its active version."""
    return knowledge_folder_load(tenant=tenant, folder=CORPUS)
