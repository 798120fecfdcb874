"""User-facing texts of the knowledge answers, one catalogue per language, keyed by template id."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "pt": {
        "knowledge.answer": "Segundo “{title}”: {quote}",
        "knowledge.nothing_found": "Não encontrei nada sobre isso na base de conhecimento.",
        "knowledge.no_package": "Não há base de conhecimento disponível para esta organização.",
    },
    "en": {
        "knowledge.answer": "According to “{title}”: {quote}",
        "knowledge.nothing_found": "I found nothing about that in the knowledge base.",
        "knowledge.no_package": "There is no knowledge base available for this organisation.",
    },
}


def message(template: str, language: str, **values: str) -> str:
    catalogue = MESSAGES.get(language) or MESSAGES["pt"]
    return catalogue[template].format(**values)
