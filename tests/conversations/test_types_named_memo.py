"""Grammar.types_named_in keeps its answer per words said (a turn asks it three or four times): the kept answer is
the searched one on every message of the understanding corpus, and a caller's changes to it never reach the next."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conversations.lexicon import tokens

pytestmark = pytest.mark.django_db

_CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus"


@pytest.fixture
def grammar(registry):
    from conversations.grammar import grammar_for
    from registry.selectors import registry_snapshot

    return grammar_for(registry_snapshot())


def test_the_kept_answer_is_the_searched_one(grammar):
    said = [str(case.get("say") or "") for path in sorted(_CORPUS.glob("*/*.yaml"))
            for case in yaml.safe_load(path.read_text(encoding="utf-8")) or []]
    assert len(said) > 5000
    for text in said[::3]:
        parts = tokens(text)
        assert grammar.types_named_in(parts) == grammar._types_searched_in(parts), text
        assert grammar.types_named_in(parts) == grammar._types_searched_in(parts), text  # the kept one


def test_a_callers_change_never_reaches_the_next_caller(grammar):
    parts = tokens("abra a permissão 310")
    first = grammar.types_named_in(parts)
    assert first
    first.clear()
    assert grammar.types_named_in(parts) == grammar._types_searched_in(parts) != {}
