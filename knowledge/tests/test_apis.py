import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from knowledge.services import knowledge_package_create

URL = reverse("knowledge:search")


def test_a_viewer_searches_by_semantic_id_and_gets_references_and_a_cited_answer(viewer_client, corpus_package):
    response = viewer_client.get(URL, {"q": "Explique esse componente", "semantic_id": "component:workingAtHeight"})
    assert response.status_code == 200
    body = response.json()
    assert body["knowledge_version"] == corpus_package.label
    first = body["references"][0]
    assert first["id"] == "trabalho-em-altura" and first["version"] == corpus_package.label
    assert set(first) >= {"id", "title", "source", "version", "score", "excerpt", "semantic_ids"}
    assert "component:workingAtHeight" in first["semantic_ids"]
    assert "NR-35" in body["answer"]["text"]
    assert body["answer"]["citations"] == [
        {"id": "trabalho-em-altura", "title": "Trabalho em Altura", "source": "trabalho-em-altura.md",
         "version": corpus_package.label}
    ]


def test_entity_type_qualifies_a_bare_semantic_id(viewer_client, corpus_package):
    response = viewer_client.get(URL, {"q": "", "semantic_id": "hotWork", "entity_type": "component", "limit": 1})
    assert [r["id"] for r in response.json()["references"]] == ["trabalho-a-quente"]


def test_limit_is_validated(viewer_client, corpus_package):
    response = viewer_client.get(URL, {"q": "altura", "limit": 0})
    assert response.status_code == 400 and response.json()["code"] == "invalid"


def test_an_anonymous_request_is_refused(db):
    assert APIClient().get(URL, {"q": "altura"}).status_code in (401, 403)


@pytest.mark.django_db
def test_another_tenants_user_never_sees_this_tenants_documents(other_client, corpus_package):
    knowledge_package_create(tenant=other_client.tenant, documents=[{"title": "Outro", "body": "Texto."}])
    body = other_client.get(URL, {"q": "trabalho em altura NR-35", "semantic_id": "component:workingAtHeight"}).json()
    assert body["references"] == []
    assert body["answer"]["text"].startswith("Não encontrei")
