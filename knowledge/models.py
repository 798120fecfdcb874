"""Versioned knowledge packages of a tenant and their sections.

A package is immutable once created: a change to the corpus is a new version. Exactly one package
per tenant is active (partial unique constraint), and its `label` is the `knowledgeVersion`
stamped on every answer that used it (PRD-001 §27).
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from tenancy.scoping import TenantOwnedModel


class Language(models.TextChoices):
    PT = "pt", "Português"
    EN = "en", "English"


class KnowledgePackage(TenantOwnedModel):
    version = models.PositiveIntegerField()
    label = models.CharField(max_length=64, help_text="knowledgeVersion, e.g. 2026.09.01.3")
    is_active = models.BooleanField(default=False)
    content_hash = models.CharField(max_length=64, help_text="SHA-256 of the imported documents")
    source = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "version"], name="knowledge_package_version_unique"),
            models.UniqueConstraint(
                fields=["tenant"], condition=Q(is_active=True), name="knowledge_package_one_active_per_tenant"
            ),
            models.CheckConstraint(condition=Q(version__gte=1), name="knowledge_package_version_positive"),
        ]

    def __str__(self) -> str:
        return f"knowledge {self.label} ({'active' if self.is_active else 'inactive'})"


class KnowledgeSection(TenantOwnedModel):
    package = models.ForeignKey(KnowledgePackage, on_delete=models.CASCADE, related_name="sections")
    section_id = models.CharField(max_length=300, help_text="stable id: <doc-slug>#<heading-slug>")
    document_title = models.CharField(max_length=300)
    title = models.CharField(max_length=500)
    body = models.TextField()
    semantic_ids = models.JSONField(default=list)
    keywords = models.JSONField(default=list)
    wikilinks = models.JSONField(default=list)
    language = models.CharField(max_length=2, choices=Language.choices)
    source = models.CharField(max_length=300)
    position = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["package", "section_id"], name="knowledge_section_id_unique"),
            models.CheckConstraint(condition=Q(language__in=Language.values), name="knowledge_section_language"),
        ]
        ordering = ["package", "position"]

    def __str__(self) -> str:
        return self.section_id
