"""Undo said as a verb and what it undoes (control_phrases._undo_phrasings): composed phrasings are an
undo; a verb that also means going somewhere undoes only with an object."""

from __future__ import annotations

import pytest

from conversations import lexicon
from conversations.answer_remark import control_of as _control
from conversations.undo import undo_request


@pytest.mark.parametrize("text", ["desfaz a última", "opa, volta ele", "undo that last one", "undo the last one",
                                  "desfaz essa última alteração", "put it back", "revert my last change",
                                  "volta isso", "bota ela de volta", "undo the latest step"])
def test_an_undo_verb_with_what_it_undoes_is_an_undo(text):
    assert _control(lexicon.phrase(text)) is undo_request


@pytest.mark.parametrize("text", ["volta", "volta a 310", "volta pra tela anterior", "put the worker on permit 3",
                                  "undo the validity of 311 to 20"])
def test_a_verb_without_an_object_or_with_a_request_is_no_undo(text):
    assert _control(lexicon.phrase(text)) is not undo_request
