"""Serializer fields shared by the SST endpoints: tenant-scoped references and strict text.

A reference to another tenant's company, employee or component answers exactly like a reference
to one that does not exist (a 400 field error), because the lookup only sees the caller's tenant.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Model, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .models import ComponentType


def _encodable(value: str) -> None:
    # JSON admits lone surrogates ("\ud800"); the database cannot store them.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise serializers.ValidationError("Invalid characters (lone surrogate).") from None


class TextField(serializers.CharField):
    """A CharField that rejects text the database could not store (NUL is refused by DRF already)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators.append(_encodable)


@extend_schema_field(OpenApiTypes.INT)
class TenantReferenceField(serializers.PrimaryKeyRelatedField):
    """An integer id of a `model` row of the request's tenant."""

    def __init__(self, model: type[Model], **kwargs: Any) -> None:
        self.model = model
        super().__init__(**kwargs)

    def get_queryset(self) -> QuerySet:
        return self.model.objects.for_tenant(self.context["tenant"])

    def to_internal_value(self, data: Any) -> Model:
        if isinstance(data, str) and data.isascii() and data.isdigit() and len(data) < 20:
            data = int(data)
        # Only integers: Django would read 1.5 as id 1.
        if not isinstance(data, int) or isinstance(data, bool):
            self.fail("incorrect_type", data_type=type(data).__name__)
        # Ids beyond a bigint cannot exist; answering "does not exist" avoids sending them to SQL.
        if not 0 < data < 2**63:
            self.fail("does_not_exist", pk_value=data)
        return super().to_internal_value(data)


@extend_schema_field(OpenApiTypes.STR)
class ComponentKeyField(serializers.SlugRelatedField):
    """A component catalog key ("workingAtHeight") of the request's tenant."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(slug_field="key", **kwargs)

    def get_queryset(self) -> QuerySet:
        return ComponentType.objects.for_tenant(self.context["tenant"])

    def to_internal_value(self, data: Any) -> ComponentType:
        if not isinstance(data, str) or not 0 < len(data) <= 64:
            self.fail("invalid")
        return super().to_internal_value(data)
