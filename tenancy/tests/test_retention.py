"""tenancy.retention: who may redact, and the JSON helper."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from tenancy.retention import REDACTED, MaintainerWindowUnavailable, maintainer_window_check, redacted_key


def test_every_text_key_at_any_depth_is_redacted_and_nothing_else():
    intent = {"id": "i1", "text": "troca o responsável pela Ana", "slots": {"who": [{"label": "Ana", "text": "ana"}]},
              "batch": [{"text": "a 802"}, "text"], "empty": {"text": ""}, "number": {"text": 3}}
    assert redacted_key(intent) == {"id": "i1", "text": REDACTED,
                                    "slots": {"who": [{"label": "Ana", "text": REDACTED}]},
                                    "batch": [{"text": REDACTED}, "text"], "empty": {"text": ""},
                                    "number": {"text": 3}}
    assert intent["text"] == "troca o responsável pela Ana"  # a copy
    assert redacted_key(None) is None


@pytest.mark.skipif(connection.vendor != "postgresql", reason="roles are PostgreSQL's")
@pytest.mark.django_db
def test_a_login_that_is_not_a_maintainer_is_told_so_before_anything_is_read(settings):
    maintainer_window_check()  # the test login (the cluster owner) may act as the maintainer
    runtime = settings.DATABASE_RUNTIME_ROLE or "agent_runtime"
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL ROLE NONE")
            cursor.execute(f"SET LOCAL SESSION AUTHORIZATION {runtime}")  # as a production runtime login
        with pytest.raises(MaintainerWindowUnavailable, match="agent_maintainer"):
            maintainer_window_check()
        transaction.set_rollback(True)
