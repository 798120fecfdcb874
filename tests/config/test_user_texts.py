"""No internal code reaches a user (issue #17 point 2): every catalogue template and every failure
reason reads as words — no error code, step id, field type or placeholder for one."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from conversations import messages as conversation_messages
from execution import composer
from execution import messages as execution_messages
from execution.errors import ErrorClass

CODE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\bs\d+\b|\{(?:code|step_id|type)\}|\binteger\b|\bNone\b")


def _templates():
    for language, catalogue in conversation_messages.CATALOGUES.items():
        for key, text in catalogue.items():
            yield f"conversations {language} {key}", text
    for language, reasons in conversation_messages.REASONS.items():
        for key, text in reasons.items():
            yield f"reasons {language} {key}", text
    for language, catalogue in execution_messages.MESSAGES.items():
        for key, text in catalogue.items():
            yield f"execution {language} {key}", text


@pytest.mark.parametrize(("where", "text"), list(_templates()))
def test_a_template_names_no_internal_code(where, text):
    assert not CODE.search(text), f"{where}: {text!r}"


def test_an_unknown_reason_code_is_told_in_words():
    for language in ("pt-BR", "en"):
        said = conversation_messages.reason_text(["SOME_NEW_RULE_CODE"], language)
        assert said and "SOME_NEW_RULE_CODE" not in said


@pytest.mark.parametrize("kind", [*[k.value for k in ErrorClass], None])
@pytest.mark.parametrize("language", ["pt-BR", "en"])
def test_every_failure_reason_is_in_words(monkeypatch, kind, language):
    monkeypatch.setattr(composer, "_step_label", lambda execution, step_id, language: "Adicionando…")
    for code in ("COMPONENT_ALREADY_PRESENT", "CONFLICT", "STEP_UNKNOWN", "KILL_SWITCH", "VERIFICATION_FAILED"):
        for policy in (False, True):
            execution = SimpleNamespace(error={"code": code, "step_id": "s1",
                                               "step_error": {"code": code, "class": kind, "policy": policy}})
            reason = composer._failure_reason(execution, language)
            assert reason and not CODE.search(reason) and code not in reason, (code, kind, reason)
