"""The registry's user-facing messages (admins see them), one catalogue per language."""

from __future__ import annotations

from django.utils.translation import get_language

MESSAGES: dict[str, dict[str, str]] = {
    "ILLEGAL_TRANSITION": {
        "pt-BR": "Transição não permitida: {from_status} → {to_status}.",
        "en": "Transition not allowed: {from_status} → {to_status}.",
    },
    "NOT_STAFF": {
        "pt-BR": "Somente membros da equipe ativos podem fazer isso.",
        "en": "Only active staff users can do this.",
    },
    "MISSING_PERMISSION": {
        "pt-BR": "Você não tem a permissão {permission}.",
        "en": "You do not have the {permission} permission.",
    },
    "AUTHOR_CANNOT_APPROVE": {
        "pt-BR": "O autor de uma versão não pode aprová-la.",
        "en": "The author of a version cannot approve it.",
    },
    "SAME_PERSON_TWICE": {
        "pt-BR": "A aprovação técnica e a de negócio precisam ser de duas pessoas diferentes; "
                 "você já aprovou esta versão.",
        "en": "The technical and the business approval must come from two different people; "
              "you already approved this version.",
    },
    "ALREADY_APPROVED": {
        "pt-BR": "Esta versão já tem a aprovação {kind}.",
        "en": "This version already has its {kind} approval.",
    },
    "NOT_PENDING": {
        "pt-BR": "Só uma versão aguardando aprovação pode ser aprovada (esta está {status}).",
        "en": "Only a version pending approval can be approved (this one is {status}).",
    },
    "REASON_REQUIRED": {
        "pt-BR": "Informe o motivo.",
        "en": "Give a reason.",
    },
    "APPROVAL_RECORDED_WAITING": {
        "pt-BR": "Aprovação {kind} registrada para {capability} v{version}. Ainda falta: aprovação {missing}, "
                 "de outra pessoa. A versão continua aguardando aprovação.",
        "en": "Approval ({kind}) recorded for {capability} v{version}. Still needed: the {missing} approval, from "
              "another person. The version is still pending approval.",
    },
    "APPROVAL_RECORDED_ACTIVE": {
        "pt-BR": "Aprovação {kind} registrada: {capability} v{version} tem as duas aprovações e está ATIVA "
                 "(ACTIVE); o agente já pode usá-la.",
        "en": "Approval ({kind}) recorded: {capability} v{version} has both approvals and is now ACTIVE; the agent "
              "may use it.",
    },
    "UNKNOWN_CAPABILITY": {
        "pt-BR": "Capacidade desconhecida: {capability}.",
        "en": "Unknown capability: {capability}.",
    },
}


KIND_LABELS: dict[str, dict[str, str]] = {
    "technical": {"pt-BR": "técnica", "en": "technical"},
    "business": {"pt-BR": "de negócio", "en": "business"},
}


def kind_label(kind: str, language: str | None = None) -> str:
    """An approval kind's name in `language` (default: the active one)."""
    language = language or get_language() or "pt-BR"
    return KIND_LABELS[kind]["en" if language.lower().startswith("en") else "pt-BR"]


def message(code: str, language: str | None = None, **params: object) -> str:
    """The message for `code` in `language` (default: the active one), pt-BR when unknown."""
    language = language or get_language() or "pt-BR"
    catalogue = MESSAGES[code]
    text = catalogue["en"] if language.lower().startswith("en") else catalogue["pt-BR"]
    return text.format(**params)
