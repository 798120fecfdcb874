import pytest

from knowledge.markdown import DocumentError, parse_document

DOC = """---
title: Trabalho em Altura
language: pt
semantic_ids: [component:workingAtHeight]
keywords: [NR-35]
sections:
  resgate:
    semantic_ids: [rescue.plan]
---
# Trabalho em Altura

Acima de 2 metros. Veja [[Permissão de Trabalho|a permissão]].

## Resgate

Plano de resgate obrigatório.
"""


def test_front_matter_and_headings_become_sections_with_stable_ids():
    lead, rescue = parse_document(text=DOC, source="altura.md")
    assert (lead.section_id, rescue.section_id) == ("trabalho-em-altura", "trabalho-em-altura#resgate")
    assert rescue.title == "Trabalho em Altura — Resgate"
    assert lead.semantic_ids == ["component:workingAtHeight"]
    assert rescue.semantic_ids == ["component:workingAtHeight", "rescue.plan"]
    assert rescue.keywords == ["NR-35"]
    assert lead.source == "altura.md" and lead.language == "pt"


def test_wikilinks_are_recorded_and_rendered_as_their_label():
    lead, _ = parse_document(text=DOC, source="altura.md")
    assert lead.wikilinks == ["Permissão de Trabalho"]
    assert "Veja a permissão." in lead.body and "[[" not in lead.body


def test_title_and_body_documents_detect_their_language():
    [section] = parse_document(title="Hot Work", body="Hot work is any work that produces sparks.", source="s")
    assert section.language == "en" and section.section_id == "hot-work"


def test_a_document_without_title_is_refused():
    with pytest.raises(DocumentError):
        parse_document(text="just text", source="x.md")


def test_bad_front_matter_is_refused():
    with pytest.raises(DocumentError):
        parse_document(text="---\ntitle: [unclosed\n---\nbody", source="x.md")
    with pytest.raises(DocumentError):
        parse_document(text="---\ntitle: T\nlanguage: fr\n---\nbody", source="x.md")
