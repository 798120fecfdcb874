"""Serializers shared by every SST endpoint module: strict request bodies, references, counts, numbers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.validators import RegexValidator
from rest_framework import serializers

from .models import NAME_MAX_LENGTH, NUMBER_MAX_LENGTH

MAX_ID = 2**63 - 1
number_validator = RegexValidator(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$", "Use letters, digits and . _ / - only.")


class StrictSerializer(serializers.Serializer):
    """A request body: unknown fields are an error, not silently ignored."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name[:100]: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)


def no_duplicates(values: list[Any]) -> list[Any]:
    if len({value.pk for value in values}) != len(values):
        raise serializers.ValidationError("Duplicate items.")
    return values


class NamedRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class CountOutputSerializer(serializers.Serializer):
    count = serializers.IntegerField()


class SearchFilterSerializer(serializers.Serializer):
    q = serializers.CharField(required=False, max_length=NAME_MAX_LENGTH)


class NumberedFilterSerializer(serializers.Serializer):
    """Query filters of a list of numbered records (permits, inspections); each adds its `status` choices."""

    number = serializers.CharField(required=False, max_length=NUMBER_MAX_LENGTH)
    company = serializers.IntegerField(source="company_id", required=False, min_value=1, max_value=MAX_ID)
    company_name = serializers.CharField(required=False, max_length=NAME_MAX_LENGTH)
    q = serializers.CharField(required=False, max_length=NAME_MAX_LENGTH)
