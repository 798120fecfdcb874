"""Server-side reads a turn needs (reference checks, slot resolution, policy facts), made through
registered read capabilities and the Tool Runtime — never by importing the business app (§54).

The reader acts as the authenticated (user, tenant): the business API re-checks the user's own
rights on each call, so an entity the user may not see simply is not found. Results are cached
for the length of one turn; only lists read to find names (catalogs, children) are reused across
turns, while the tenant's data is unchanged (list_cache.py), and so are searches while neither what
they list nor any entity they found changed (`found`).
Which capability reads or lists an entity type is found in the registry's language metadata
(`entity`, `intent`, slot resolvers), not named here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import structlog

from execution.runtime import session_for
from execution.tool_runtime import ToolSession, build_request
from registry.selectors import CapabilitySpec, RegistrySnapshot
from tenancy.data_epoch import data_epoch, topics_of
from tenancy.models import Tenant

from .grammar import Grammar, SlotSpec
from .list_cache import keep_seconds, lists, searches

log = structlog.get_logger(__name__)

# A search that found more than a few entities is a list the turn shows, not a reference it resolves.
KNOWN_FROM_LIST_MAX = 5


@dataclass(frozen=True)
class ReadResult:
    ok: bool
    status_code: int | None
    body: Any
    error_code: str | None = None

    @property
    def not_found(self) -> bool:
        return self.status_code in (403, 404)


@dataclass
class Reader:
    user: Any
    tenant: Tenant
    snapshot: RegistrySnapshot
    grammar: Grammar
    calls: list[dict[str, Any]] = field(default_factory=list)
    _session: ToolSession | None = None
    _cache: dict[str, ReadResult] = field(default_factory=dict)
    _epochs: dict[tuple[str, ...], str] = field(default_factory=dict)  # data epochs read this turn, by topics
    _read_caps: dict[str, tuple[str, str] | None] = field(default_factory=dict)  # read_capability, this turn

    def close(self) -> None:
        """Sessions are the execution runtime's per-thread ones (a token reused across turns): kept open."""
        self._session = None

    def session(self) -> ToolSession:
        if self._session is None:
            self._session = session_for(user_id=self.user.pk, tenant=self.tenant)
        return self._session

    def spec(self, capability_id: str) -> CapabilitySpec | None:
        return self.snapshot.get(capability_id, tenant=self.tenant)

    @staticmethod
    def _key(capability_id: str, input: Mapping[str, Any]) -> str:  # noqa: A002
        return f"{capability_id}:{sorted(input.items())}"

    def call(self, capability_id: str, input: Mapping[str, Any]) -> ReadResult:  # noqa: A002
        key = self._key(capability_id, input)
        if key in self._cache:
            return self._cache[key]
        spec = self.spec(capability_id)
        if spec is None or spec.kind != "read":
            return ReadResult(False, None, None, "CAPABILITY_UNAVAILABLE")
        result = self.session().invoke(capability=spec, input=dict(input))
        read = ReadResult(result.status_code is not None and 200 <= result.status_code < 300, result.status_code,
                          result.body, result.error_code)
        self.calls.append({"capability": capability_id, "status": result.status_code})
        self._cache[key] = read
        return read

    def listing(self, capability_id: str, input: Mapping[str, Any], *,  # noqa: A002
                names_only: bool = False) -> ReadResult:
        """A list read to find names: reused across turns while the tenant's data is unchanged. `names_only`:
        only its items' names, states and references are looked at — kept while only plain values change
        (tenancy.data_epoch.PLAIN), and never served in this turn as the list itself."""
        seconds, this_turn = keep_seconds(), self._key(capability_id, input)
        kept_here = this_turn + ("#names" if names_only else "")
        if seconds <= 0 or this_turn in self._cache or kept_here in self._cache:
            return self._cache.get(kept_here) or self.call(capability_id, input)
        key = (str(self.tenant.pk), self.user.pk, self.snapshot.version, kept_here)
        # before the read: a change meanwhile makes it stale, not wrong
        epoch = self._data_epoch(capability_id, input, names_only)
        kept = lists.get(key, epoch)
        if kept is not None:
            self._cache[kept_here] = ReadResult(True, 200, json.loads(kept))
            return self._cache[kept_here]
        read = self.call(capability_id, input)
        if read.ok:
            lists.put(key, epoch, json.dumps(read.body), seconds)
        return read

    def found(self, capability_id: str, input: Mapping[str, Any], entity_type: str) -> ReadResult:  # noqa: A002
        """A search for a few `entity_type` (by number, by name), reused across turns while neither its
        collection's names nor any entity it found changed: under load every turn names its entity and
        that search was about a quarter of the web workers' CPU at K=50, while a write moves only the entity it wrote.

        The epoch is read before the read it guards, so a change meanwhile can only make it stale. Which
        entities' topics guard it is known only from a first answer: that one is kept as a hint, and the
        entry counts from the next read that finds the same entities."""
        seconds, here = keep_seconds(), self._key(capability_id, input)
        if seconds <= 0 or here in self._cache or not self._lists_entities(capability_id, entity_type):
            return self.call(capability_id, input)
        key = (str(self.tenant.pk), self.user.pk, self.snapshot.version, "found:" + here)
        hint = searches.peek(key)
        guess = hint[1][0] if hint else None
        epoch = None if guess is None else self._found_epoch(capability_id, input, entity_type, guess)
        if hint is not None and epoch is not None and hint[0] == epoch:
            self._cache[here] = ReadResult(True, 200, json.loads(hint[1][1]))
            return self._cache[here]
        read = self.call(capability_id, input)
        items = read.body if read.ok and isinstance(read.body, list) else None
        if items is not None and len(items) <= KNOWN_FROM_LIST_MAX and all(isinstance(i, dict) for i in items):
            ids = [i.get("id") for i in items]
            searches.put(key, epoch if ids == guess else None, (ids, json.dumps(items)), seconds)
        return read

    def _found_epoch(self, capability_id: str, input: Mapping[str, Any], entity_type: str,  # noqa: A002
                     ids: list[Any]) -> str:
        read, id_field = self.read_capability(entity_type) or ("", "")
        topics = list(self._topics(capability_id, input, names_only=True))
        for ident in ids:
            topics += self._topics(read, {id_field: ident})
        return self._epoch_of(tuple(topics))

    def _data_epoch(self, capability_id: str, input: Mapping[str, Any], names_only: bool = False) -> str:  # noqa: A002
        """The epoch of what this list is about (its API path's topic), read once per turn and topic."""
        return self._epoch_of(self._topics(capability_id, input, names_only))

    def _topics(self, capability_id: str, input: Mapping[str, Any], names_only: bool = False) -> tuple[str, ...]:  # noqa: A002
        spec = self.spec(capability_id)
        if spec is None:
            return ()
        template = str(spec.call.get("path") or spec.path_template)
        parts = template.strip("/").split("/")
        path = build_request(spec, dict(input), None).path
        return topics_of(path, entity_at_second=len(parts) > 1 and parts[1].startswith("{"), names_only=names_only)

    def _epoch_of(self, topics: tuple[str, ...]) -> str:
        if topics not in self._epochs:
            self._epochs[topics] = data_epoch(self.tenant.pk, topics)
        return self._epochs[topics]

    # --- capabilities by role, from the language metadata -------------------------------------

    def read_capability(self, entity_type: str) -> tuple[str, str] | None:
        """(capability id, id field) of the read of one `entity_type` by id ("workPermit.read", "permit_id"):
        a read whose output is the entity itself (it has an `id`), the `show` intent first."""
        if entity_type in self._read_caps:
            return self._read_caps[entity_type]
        found = []
        for cap in self.grammar.capabilities.values():
            if cap.kind != "read" or cap.entity != entity_type or (spec := self.spec(cap.id)) is None:
                continue
            required = list(spec.input_schema.get("required") or ())
            own = [s for s in cap.slots if s.type == entity_type and s.field in required]
            returns_entity = "id" in (spec.output_schema.get("properties") or {})
            if len(required) == 1 and own and returns_entity:
                found.append((cap.intent != "show", cap.id, own[0].field))
        self._read_caps[entity_type] = (min(found)[1], min(found)[2]) if found else None
        return self._read_caps[entity_type]

    def list_capability(self, entity_type: str) -> str | None:
        """A read that lists every `entity_type` with no required input (catalogs, people, companies)."""
        best = None
        for cap in self.grammar.capabilities.values():
            if cap.kind != "read" or cap.entity != entity_type or (spec := self.spec(cap.id)) is None:
                continue
            if spec.input_schema.get("required") or spec.output_schema.get("type") != "array":
                continue
            if cap.intent == "list":
                return cap.id
            best = best or cap.id
        return best

    def count_capability(self, entity_type: str) -> str | None:
        for cap in self.grammar.capabilities.values():
            if cap.kind == "read" and cap.entity == entity_type and cap.intent == "count" and self.spec(cap.id):
                return cap.id
        return None

    # --- entities -----------------------------------------------------------------------------

    def entity(self, entity_type: str, entity_id: Any) -> dict[str, Any] | None:
        """The entity as the user may see it now, or None (missing, other tenant, not allowed)."""
        found = self.read_capability(entity_type)
        try:
            ident = int(entity_id)
        except (TypeError, ValueError):
            return None
        if found is None or ident < 1:
            return None
        capability, id_field = found
        result = self.call(capability, {id_field: ident})
        return result.body if result.ok and isinstance(result.body, dict) else None

    def already_read(self, entity_type: str, entity_id: Any) -> dict[str, Any] | None:
        """The entity as this turn already read it (by its read or a search answering the same), or None."""
        found = self.read_capability(entity_type)
        try:
            key = self._key(found[0], {found[1]: int(entity_id)}) if found else None
        except (TypeError, ValueError):
            return None
        read = self._cache.get(key) if key else None
        return read.body if read is not None and read.ok and isinstance(read.body, dict) else None

    def catalog(self, slot: SlotSpec) -> list[dict[str, Any]]:
        """Every value a resolver-backed slot can take in this tenant (names the user might say)."""
        resolver = slot.resolver or {}
        capability = str(resolver.get("capability", ""))
        spec = self.spec(capability)
        if spec is not None and not spec.input_schema.get("required"):
            result = self.listing(capability, {}, names_only=True)
        else:
            # the entity the resolver searches, which a filter slot's own type ("the person responsible")
            # need not name
            searched = self.grammar.capabilities.get(capability)
            listing = self.list_capability(slot.type) or (searched and self.list_capability(searched.entity))
            result = self.listing(listing, {}, names_only=True) if listing else ReadResult(False, None, None)
        return result.body if result.ok and isinstance(result.body, list) else []

    def search(self, slot: SlotSpec, value: Any, extra: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """The resolver's search for one raw value (a permit number...)."""
        resolver = slot.resolver or {}
        field_name = resolver.get("query_field")
        if not field_name:
            return []
        capability = str(resolver.get("capability"))
        searched = self.grammar.capabilities.get(capability)
        result = self.found(capability, {field_name: value, **(extra or {})}, searched.entity if searched else "")
        items = result.body if result.ok and isinstance(result.body, list) else []
        self._known_from(capability, slot.type, items)
        return items

    def _known_from(self, listing: str, entity_type: str, items: list[Any]) -> None:
        """A list whose items are the entity exactly as its read answers it (the same output schema)
        answers that read for this turn too: a found entity is not read a second time."""
        found = self.read_capability(entity_type)
        if found is None or not items or len(items) > KNOWN_FROM_LIST_MAX or not self._lists_entities(listing,
                                                                                                    entity_type):
            return
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("id"), int):
                self._cache.setdefault(self._key(found[0], {found[1]: item["id"]}), ReadResult(True, 200, item))

    def _lists_entities(self, listing: str, entity_type: str) -> bool:
        """Whether `listing` answers items exactly as the read of one `entity_type` does (the same schema)."""
        found, spec = self.read_capability(entity_type), self.spec(listing)
        read = self.spec(found[0]) if found else None
        return spec is not None and read is not None and (spec.output_schema.get("items") or {}) == read.output_schema

    def children(self, capability_id: str, input: Mapping[str, Any]) -> list[dict[str, Any]]:  # noqa: A002
        result = self.listing(capability_id, input)
        return result.body if result.ok and isinstance(result.body, list) else []


def entity_ref(entity_type: str, body: Mapping[str, Any], *, label_field: str = "name") -> dict[str, Any]:
    """The compact reference kept in conversation state: type, id, label and a company if any."""
    label = body.get(label_field) or body.get("number") or body.get("name") or body.get("key") or body.get("id")
    ref: dict[str, Any] = {"type": entity_type, "id": body.get("id"), "label": str(label)}
    for key in ("key", "status", "revision"):
        if body.get(key) is not None:
            ref[key] = body[key]
    company = body.get("company")
    if isinstance(company, Mapping) and company.get("name"):
        ref["company"] = {"id": company.get("id"), "name": company["name"]}
    return ref
