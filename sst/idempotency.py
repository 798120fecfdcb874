"""Idempotency-Key for the SST API's writes (per tenant), in the manner of Stripe's and the IETF draft.

A write with a key first *claims* it by inserting an IN_PROGRESS row (unique per tenant + key;
the insert commits on its own, so a concurrent request with the same key sees it and gets 409
IDEMPOTENCY_IN_PROGRESS instead of running twice). The completed answer — 2xx, or a 4xx that
is the same on every retry — is stored and replayed byte for byte; a 5xx, a crash or a timeout
releases the claim (or leaves it to go stale), so a retry with the same key really runs. The key
is bound to a canonical hash (RFC 8785 JSON) of method, path and body: the same key with another
request is refused with 422 IDEMPOTENCY_KEY_REUSED.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import rfc8785
from django.db import IntegrityError, transaction
from django.utils import timezone

from tenancy.models import Tenant

from .errors import BusinessRuleError, SstError
from .models import IdempotencyRecord, IdempotencyState

# An IN_PROGRESS claim older than this belongs to a request that died; a retry may take it over.
STALE_AFTER = timedelta(seconds=60)
# Transient 4xx answers are not final: a retry may well succeed, so they are not recorded.
_NOT_RECORDED_4XX = frozenset({408, 425, 429})


class IdempotencyInProgress(SstError):
    code = "IDEMPOTENCY_IN_PROGRESS"


@dataclass(frozen=True)
class Claim:
    record: IdempotencyRecord
    replay: bool


def request_hash(*, method: str, path: str, body: Any) -> str:
    try:
        canonical = rfc8785.dumps({"method": method.upper(), "path": path, "body": body})
    except (rfc8785.CanonicalizationError, TypeError, ValueError):
        # Outside I-JSON (e.g. integers beyond 2**53): still deterministic, just not RFC 8785.
        canonical = json.dumps([method.upper(), path, body], sort_keys=True, default=str).encode()
    return hashlib.sha256(canonical).hexdigest()


def idempotency_claim(*, tenant: Tenant, key: str, request_hash: str) -> Claim:
    """Claim `key` for this request, or say that its first answer must be replayed."""
    for _attempt in range(3):  # the row may be released between our insert and our read
        try:
            with transaction.atomic():
                record = IdempotencyRecord.objects.create(tenant=tenant, key=key, request_hash=request_hash)
            return Claim(record=record, replay=False)
        except IntegrityError:
            pass
        record = IdempotencyRecord.objects.for_tenant(tenant).filter(key=key).first()
        if record is None:
            continue
        if record.request_hash != request_hash:
            raise BusinessRuleError("IDEMPOTENCY_KEY_REUSED")
        if record.state == IdempotencyState.COMPLETED:
            return Claim(record=record, replay=True)
        if _take_over_stale(tenant, record):
            return Claim(record=record, replay=False)
        raise IdempotencyInProgress()
    raise IdempotencyInProgress()


def _take_over_stale(tenant: Tenant, record: IdempotencyRecord) -> bool:
    now = timezone.now()
    taken = (
        IdempotencyRecord.objects.for_tenant(tenant)
        .filter(pk=record.pk, state=IdempotencyState.IN_PROGRESS, updated_at__lt=now - STALE_AFTER)
        .update(updated_at=now)
    )
    return taken == 1


def is_recordable(status: int) -> bool:
    return 200 <= status < 300 or (400 <= status < 500 and status not in _NOT_RECORDED_4XX)


def idempotency_complete(*, record: IdempotencyRecord, status: int, body: str, headers: dict[str, str]) -> None:
    IdempotencyRecord.objects.for_tenant(record.tenant_id).filter(
        pk=record.pk, state=IdempotencyState.IN_PROGRESS
    ).update(
        state=IdempotencyState.COMPLETED,
        response_status=status,
        response_body=body,
        response_headers=headers,
        updated_at=timezone.now(),
    )


def idempotency_release(*, record: IdempotencyRecord) -> None:
    """Forget an unfinished claim so that a retry with the same key runs."""
    IdempotencyRecord.objects.for_tenant(record.tenant_id).filter(
        pk=record.pk, state=IdempotencyState.IN_PROGRESS
    ).delete()
