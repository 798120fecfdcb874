"""Markdown documents → sections.

A document is optional YAML front matter (between `---` lines) and a markdown body. Front matter
keys: `title`, `language` (pt|en), `semantic_ids`, `keywords` (both apply to every section of the
document) and `sections: {<heading-slug>: {semantic_ids: [...], keywords: [...]}}` for ids that
belong to one section only. The body is split at `#`/`##`/`###` headings; the text before the
first sub-heading is the document's lead section, whose stable id is the document slug; every
other section is `<doc-slug>#<heading-slug>`. `[[Target]]` / `[[Target|label]]` wikilinks are
recorded and rendered as their label. python-frontmatter would parse the front matter, but it is
three lines with PyYAML (already pinned), so no dependency is added for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from .text import LANGUAGES, detect_language, slugify

_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.DOTALL)
_HEADING = re.compile(r"^(#{1,3})\s+(.+?)\s*#*\s*$")
_WIKILINK = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]+))?\]\]")


class DocumentError(ValueError):
    """A document that cannot be imported (bad front matter, no title, unknown language)."""


@dataclass(frozen=True)
class ParsedSection:
    section_id: str
    document_title: str
    title: str
    body: str
    semantic_ids: list[str]
    keywords: list[str]
    wikilinks: list[str]
    language: str
    source: str
    position: int


@dataclass
class _Draft:
    heading: str | None
    lines: list[str] = field(default_factory=list)


def _string_list(value: Any, name: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise DocumentError(f"{name} must be a list of non-empty strings")
    return [item.strip() for item in value]


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise DocumentError(f"invalid front matter: {exc}") from None
    if not isinstance(meta, dict):
        raise DocumentError("front matter must be a mapping")
    return meta, text[match.end():]


def render_wikilinks(text: str) -> tuple[str, list[str]]:
    targets = [match.group(1).strip() for match in _WIKILINK.finditer(text)]
    rendered = _WIKILINK.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)
    return rendered, list(dict.fromkeys(targets))


def _drafts(body: str) -> tuple[str | None, list[_Draft]]:
    """The H1 title (if the body starts with one) and the heading-delimited drafts."""
    h1: str | None = None
    drafts = [_Draft(heading=None)]
    for line in body.splitlines():
        match = _HEADING.match(line)
        if match and len(match.group(1)) == 1 and h1 is None and not any(d.lines for d in drafts):
            h1 = match.group(2).strip()
        elif match:
            drafts.append(_Draft(heading=match.group(2).strip()))
        else:
            drafts[-1].lines.append(line)
    return h1, drafts


def parse_document(
    *,
    text: str | None = None,
    title: str | None = None,
    body: str | None = None,
    source: str,
    semantic_ids: list[str] | None = None,
    keywords: list[str] | None = None,
    language: str | None = None,
) -> list[ParsedSection]:
    """Sections of one document, given as markdown `text` (with front matter) or as title + body."""
    meta, markdown = split_front_matter(text) if text is not None else ({}, body or "")
    h1, drafts = _drafts(markdown)
    doc_title = (title or meta.get("title") or h1 or "").strip()
    if not doc_title:
        raise DocumentError(f"{source}: a document needs a title (front matter `title` or a `# heading`)")
    language = language or meta.get("language") or detect_language(f"{doc_title} {markdown}")
    if language not in LANGUAGES:
        raise DocumentError(f"{source}: language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    doc_ids = _string_list(semantic_ids, "semantic_ids") + _string_list(meta.get("semantic_ids"), "semantic_ids")
    doc_keywords = _string_list(keywords, "keywords") + _string_list(meta.get("keywords"), "keywords")
    per_section = meta.get("sections") or {}
    if not isinstance(per_section, dict):
        raise DocumentError(f"{source}: `sections` must map heading slugs to metadata")
    doc_slug = slugify(doc_title)
    sections: list[ParsedSection] = []
    seen: set[str] = set()
    for draft in drafts:
        text_body, links = render_wikilinks("\n".join(draft.lines).strip())
        if not text_body and draft.heading is None:
            continue
        heading_slug = slugify(draft.heading) if draft.heading else ""
        section_id = f"{doc_slug}#{heading_slug}" if heading_slug else doc_slug
        while section_id in seen:
            section_id += "-2"
        seen.add(section_id)
        extra = per_section.get(heading_slug) or {}
        sections.append(ParsedSection(
            section_id=section_id,
            document_title=doc_title,
            title=f"{doc_title} — {draft.heading}" if draft.heading else doc_title,
            body=text_body,
            semantic_ids=list(dict.fromkeys(doc_ids + _string_list(extra.get("semantic_ids"), "semantic_ids"))),
            keywords=list(dict.fromkeys(doc_keywords + _string_list(extra.get("keywords"), "keywords"))),
            wikilinks=links,
            language=language,
            source=source,
            position=len(sections),
        ))
    return sections
