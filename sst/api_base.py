"""The base view of every SST endpoint: roles per method, faults, If-Match and Idempotency-Key.

Order, after DRF has authenticated the request and checked the role:
1. fault injection (sst.faults) — an injected answer records nothing anywhere;
2. writes: `If-Match: <revision>` is parsed into `self.expected_revision` for the service to check
   under its row lock (409 REVISION_MISMATCH);
3. writes with `Idempotency-Key`: the key is claimed (sst.idempotency) or its first answer replayed.
   The handler then runs inside one transaction that also stores its 2xx answer, so an effect is
   never committed without the record that makes a retry replay it.

Domain errors from services (sst.errors) become 404 / 409 / 422 answers with a stable `code` and
a `detail` in the request's language; serializer errors keep the shared 400 shape.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.http import QueryDict
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import SAFE_METHODS
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tenancy.data_epoch import data_changed
from tenancy.models import Role, Tenant
from tenancy.permissions import tenant_context

from . import errors
from .changes import request_topics
from .faults import fault_apply, without_effect
from .idempotency import (
    IdempotencyInProgress,
    idempotency_claim,
    idempotency_complete,
    idempotency_release,
    is_recordable,
    request_hash,
)
from .messages import message
from .models import IdempotencyRecord

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
REPLAYED_HEADER = "Idempotent-Replayed"
_KEPT_HEADERS = ("ETag", "Location")

WRITE_HEADER_PARAMETERS = [
    OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER, required=False,
                     description="Replays the first completed answer to the same request."),
    OpenApiParameter("If-Match", str, OpenApiParameter.HEADER, required=False,
                     description="The permit's or inspection's revision this write expects "
                                 "(409 REVISION_MISMATCH otherwise)."),
]


class CodedError(exceptions.APIException):
    """An API error whose body is `{"code", "detail", ...extra}`, extra values kept as typed."""

    def __init__(self, status_code: int, code: str, detail: str, **extra: Any) -> None:
        self.status_code = status_code
        self.body = {"code": code, "detail": detail, **extra}
        super().__init__(detail, code)


class _ShortCircuit(Exception):
    """Answer now without running the handler (an injected fault or an idempotent replay)."""

    def __init__(self, response: Response) -> None:
        self.response = response


def parse_if_match(value: str | None) -> int | None:
    """`3`, `"3"` and `W/"3"` name revision 3; `*` or no header means "any revision"."""
    if value is None or value.strip() == "*":
        return None
    text = value.strip().removeprefix("W/").strip('"')
    if not text.isdigit() or len(text) > 9:
        raise CodedError(400, "INVALID_IF_MATCH", message("INVALID_IF_MATCH"))
    return int(text)


def _valid_key(value: str) -> str:
    if not 1 <= len(value) <= 255 or not value.isascii() or not value.isprintable():
        raise CodedError(400, "INVALID_IDEMPOTENCY_KEY", message("INVALID_IDEMPOTENCY_KEY"))
    return value


def _domain_error(exc: errors.SstError) -> exceptions.APIException:
    if isinstance(exc, errors.ObjectNotFound):
        return CodedError(404, "not_found", message("not_found"))
    if isinstance(exc, errors.InvalidReference):
        return exceptions.ValidationError({exc.field: [message("not_found")]})
    if isinstance(exc, errors.RevisionMismatch):
        current = exc.params["current"]
        return CodedError(409, exc.code, message(exc.code, current=current), current_revision=current)
    if isinstance(exc, IdempotencyInProgress):
        return CodedError(409, exc.code, message(exc.code))
    return CodedError(422, exc.code, message(exc.code, **exc.params))


def etag(revision: int) -> str:
    return f'"{revision}"'


class SstApi(APIView):
    """Base of the SST endpoints. `required_roles` maps a method to its minimum role."""

    required_roles: dict[str, str] = {}
    expected_revision: int | None = None
    _claim: IdempotencyRecord | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Name nested Input/Output/Filter serializers after their view for the OpenAPI components,
        # which would otherwise all be called "Input" and "Output" and collide.
        super().__init_subclass__(**kwargs)
        for attr in ("InputSerializer", "OutputSerializer", "FilterSerializer"):
            nested = cls.__dict__.get(attr)
            if nested is not None and "Meta" not in nested.__dict__:
                suffix = attr.removesuffix("Serializer")
                nested.Meta = type("Meta", (), {"ref_name": cls.__name__.removesuffix("Api") + suffix})

    @property
    def required_role(self) -> str:
        method = self.request.method
        return self.required_roles.get(method) or (Role.VIEWER if method in SAFE_METHODS else Role.OPERATOR)

    @property
    def tenant(self) -> Tenant:
        return tenant_context(self.request).tenant

    def serializer_context(self) -> dict[str, Any]:
        return {"request": self.request, "tenant": self.tenant, "view": self}

    def parse(self, serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
        serializer = serializer_class(data=data, context=self.serializer_context())
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    # -- the guards -------------------------------------------------------------------------

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # authentication, role, throttles
        fault = fault_apply(
            tenant=self.tenant,
            route=request.resolver_match.view_name,
            method=request.method,
            body=lambda: request.data,
            url_kwargs=kwargs,
        )
        if fault is not None and fault.noop:  # before the key's wrapper: the answer is stored, the effect is not
            name = request.method.lower()
            setattr(self, name, without_effect(getattr(self, name, self.http_method_not_allowed)))
        elif fault is not None:
            raise _ShortCircuit(Response({"code": "INJECTED_FAULT", "detail": message("INJECTED_FAULT")},
                                         status=fault.status))
        if request.method not in WRITE_METHODS:
            return
        self.expected_revision = parse_if_match(request.headers.get("If-Match"))
        key = request.headers.get("Idempotency-Key")
        if key is not None:
            self._claim_key(request, _valid_key(key))

    def _claim_key(self, request: Request, key: str) -> None:
        body = request.data.dict() if isinstance(request.data, QueryDict) else request.data
        digest = request_hash(method=request.method, path=request.get_full_path(), body=body)
        try:
            claim = idempotency_claim(tenant=self.tenant, key=key, request_hash=digest)
        except errors.SstError as exc:
            raise _domain_error(exc) from exc
        if claim.replay:
            raise _ShortCircuit(self._replay(claim.record))
        self._claim = claim.record
        # DRF looks the handler up after initial(): run this request's handler in one transaction
        # with the storing of its answer. The view instance lives for this request only.
        handler_name = request.method.lower()
        setattr(self, handler_name, self._recorded(getattr(self, handler_name, self.http_method_not_allowed)))

    def _recorded(self, handler: Callable[..., Response]) -> Callable[..., Response]:
        def run(request: Request, *args: Any, **kwargs: Any) -> Response:
            with transaction.atomic():
                response = handler(request, *args, **kwargs)
                if 200 <= response.status_code < 300:
                    self._store(response)
            self._claim = None  # committed together with the effect
            return response

        return run

    def _store(self, response: Response) -> None:
        record = self._claim
        body = "" if response.data is None else JSONRenderer().render(response.data).decode()
        headers = {name: response[name] for name in _KEPT_HEADERS if response.has_header(name)}
        idempotency_complete(record=record, status=response.status_code, body=body, headers=headers)

    @staticmethod
    def _replay(record: IdempotencyRecord) -> Response:
        data = json.loads(record.response_body) if record.response_body else None
        response = Response(data, status=record.response_status, headers=dict(record.response_headers))
        response[REPLAYED_HEADER] = "true"
        return response

    def _release(self) -> None:
        record, self._claim = self._claim, None
        if record is not None:
            idempotency_release(record=record)

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, _ShortCircuit):
            return exc.response
        if isinstance(exc, errors.SstError):
            exc = _domain_error(exc)
        if isinstance(exc, CodedError):
            return Response(exc.body, status=exc.status_code)
        try:
            return super().handle_exception(exc)
        except Exception:
            self._release()  # an unexpected error (500): a retry with the same key must run
            raise

    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        if self._claim is not None:
            if is_recordable(response.status_code):
                self._store(response)  # a 4xx answer: the handler's transaction rolled back already
                self._claim = None
            else:
                self._release()
        if request.method in WRITE_METHODS and 200 <= response.status_code < 300:
            # sst.changes: bulk statements send no row signal
            data_changed(self.tenant.pk, request_topics(request.path))
        return response


def created(data: Any, *, revision: int | None = None) -> Response:
    response = Response(data, status=status.HTTP_201_CREATED)
    if revision is not None:
        response["ETag"] = etag(revision)
    return response


def ok(data: Any, *, revision: int | None = None, status_code: int = status.HTTP_200_OK) -> Response:
    response = Response(data, status=status_code)
    if revision is not None:
        response["ETag"] = etag(revision)
    return response
