"""What the manifest schema cannot say about a write's `verification` block (registry/manifest_schema.py,
checked by registry.manifest after the schema): only writes are verified; the input fields its
assertions name (`${input.x}`, `when_input`) exist; a re-read without a `capability` has an entity
whose registered reader can do it.
"""

from __future__ import annotations

import re
from typing import Any

_REFERENCE = re.compile(r"\$\{([^}]*)\}")


def verification_problems(entry: dict[str, Any], spec: dict[str, Any]) -> list[tuple[str, str]]:
    """What a schema cannot say about a write's verification: only writes have one; `${input.x}` and
    `when_input` name input fields; a re-read through the entity's reader needs an entity to read."""
    found = []
    if entry["kind"] != "write":
        found.append(("verification", "only write capabilities are verified"))
    fields = set((entry.get("input") or {}).get("properties") or {})
    rereads = "expect" in spec or any(a.get("subject", "target") == "target" for a in spec.get("assertions", ()))
    if "capability" not in spec and rereads and not (entry.get("language") or {}).get("entity"):
        found.append(("verification", "no capability to re-read with, and no entity whose reader could"))
    for index, assertion in enumerate(spec.get("assertions", [])):
        where = f"verification.assertions[{index}]"
        named = [ref.split(".")[1] for ref in _REFERENCE.findall(str(assertion.get("value", "")))
                 if ref.startswith("input.")]
        if assertion.get("when_input"):
            named.append(assertion["when_input"])
        found += [(where, f"{name!r} is not an input property") for name in named if name not in fields]
    return found
