"""What /api/docs/ says about each operation: a summary, a description and examples, by operationId.

Kept in one table rather than on each view because many views share a base class whose docstring
drf-spectacular would otherwise repeat as the description of 42 operations ("Base of the SST
endpoints…"), and because a newcomer reads the API as one document. Applied by
`config.schema.describe_operations`; tests/contracts/test_openapi.py fails when an operation has no
entry, an entry names no operation, or an example does not match its schema. Examples use the demo
tenant's data (`seed_demo`), so they can be tried as they are.
"""

from __future__ import annotations

from typing import Any

PERMIT: dict[str, Any] = {
    "id": 1, "number": "123", "company": {"id": 1, "name": "Alfa Construções"}, "status": "DRAFT",
    "validity_days": 30, "responsible": {"id": 2, "name": "João Pereira"}, "revision": 3,
    "components": [{"id": 4, "key": "confinedSpace", "name": "Espaço Confinado", "undoable": True, "notes": ""}],
    "workers": [{"id": 2, "name": "João Pereira"}],
    "created_at": "2026-12-01T12:00:00Z", "updated_at": "2026-12-01T12:05:00Z",
}
INSPECTION: dict[str, Any] = {
    "id": 7, "number": "54", "company": {"id": 1, "name": "Alfa Construções"}, "site": "Galpão 2",
    "status": "SCHEDULED", "scheduled_for": "2026-12-10", "inspector": {"id": 3, "name": "Maria Souza"},
    "findings": [{"id": 9, "description": "Guarda-corpo solto no 2º andar", "severity": "HIGH",
                  "inspection_revision": 2}],
    "revision": 2, "created_at": "2026-12-01T12:00:00Z", "updated_at": "2026-12-01T12:00:00Z",
}
CONFIRMATION_TURN: dict[str, Any] = {
    "turn_id": "3f1c2a4e-7b1d-4c55-9a57-0f3e7c9d2b10", "conversation_id": "8d0b7a56-52a4-4d8e-b1a4-6c1f0e3d9a21",
    "status": "CONFIRMATION_REQUIRED", "version": 4,
    "response": {"type": "confirmation",
                 "message": "Deseja adicionar “Trabalho em Altura” à permissão 123 (Alfa Construções)?",
                 "confirmation": {"id": "5b9e…", "level": "soft", "risk": "medium",
                                  "summary": "adicionar “Trabalho em Altura” à permissão 123 (Alfa Construções)",
                                  "affected": [{"type": "workPermit", "id": "1", "label": "123"},
                                               {"type": "componentType", "id": "workingAtHeight",
                                                "label": "Trabalho em Altura"}]}},
    "events": [{"seq": 5, "type": "CONFIRMATION_REQUESTED", "payload": {}}],
    "metrics": {"duration_ms": 9, "llm_calls": 0},
}
ACTION = {"client_message_id": "c1d2e3f4-0000-4000-8000-000000000001"}
REASON = {"reason": "Vazamento de gás na área; parar até a inspeção"}

# operationId → summary, description, request example, response example (each optional).
DOCS: dict[str, dict[str, Any]] = {
    "agent_capabilities_list": {"response": [{
        "id": "permitComponent.add", "version": 1, "description": "Adds a component to a work permit.",
        "kind": "write", "risk_level": "medium", "required_permissions": ["sst.write"], "entity": "workPermit",
        "input_schema": {"type": "object"}}]},
    "agent_conversations_create": {
        "request": {"language": "pt-BR"},
        "response": {"id": "8d0b7a56-52a4-4d8e-b1a4-6c1f0e3d9a21", "status": "IDLE", "version": 1}},
    "agent_conversations_retrieve": {"response": {
        "id": "8d0b7a56-52a4-4d8e-b1a4-6c1f0e3d9a21", "status": "CONFIRMATION_REQUIRED", "version": 4,
        "active_entity": {"type": "workPermit", "id": "1", "label": "123"}}},
    "agent_conversations_events_retrieve": {"response": {"events": [
        {"seq": 1, "type": "MESSAGE_RECEIVED", "payload": {"text": "Abra a permissão 123"}}]}},
    "agent_conversations_messages_create": {
        "summary": "Send a message (one turn)",
        "description": "The user's sentence, with what the application is showing (`ui_context`). The agent "
                       "answers in the same call: an answer, a navigation, a clarification, a confirmation to "
                       "give, or an execution's result. `client_message_id` makes a retry safe (the same id "
                       "is one turn); `expected_version` refuses the turn (409) if the conversation moved on.",
        "request": {"text": "Adicione o componente de trabalho em altura", "client_message_id": ACTION[
            "client_message_id"], "ui_context": {"applicationId": "sst", "page": {"id": "work-permit"},
                                                 "selection": {"entityType": "workPermit", "entityId": "1"}}},
        "response": CONFIRMATION_TURN},
    "agent_conversations_confirm_create": {
        "summary": "Confirm the pending operation",
        "description": "Gives the confirmation the last turn asked for (its id, from `response.confirmation.id`); "
                       "the policy is evaluated again and the plan starts. Like typing “sim”. A confirmation "
                       "that expired or was replaced answers with the reason, and nothing runs.",
        "request": {"confirmation_id": "5b9e0d1c-2f3a-4b5c-8d7e-9f0a1b2c3d4e", **ACTION},
        "response": {**CONFIRMATION_TURN, "status": "SUCCESS", "response": {
            "type": "execution", "message": "“Trabalho em Altura” adicionado(s) à permissão 123 (Alfa Construções)."}}},
    "agent_conversations_cancel_create": {
        "summary": "Cancel what is pending or running",
        "description": "Cancels the pending confirmation or clarification, or stops a running execution before "
                       "its next step. Like typing “cancela”. What already ran stays (use undo for that).",
        "request": ACTION,
        "response": {**CONFIRMATION_TURN, "status": "CANCELLED", "response": {
            "type": "cancelled", "message": "Operação cancelada. Nada foi executado."}}},
    "agent_conversations_undo_create": {
        "summary": "Undo the last operation",
        "description": "Prepares the registered compensating operation of the last execution and asks to "
                       "confirm it. Like typing “desfaça”. Without a compensating capability the agent says "
                       "the operation cannot be undone automatically.",
        "request": ACTION, "response": CONFIRMATION_TURN},
    "agent_conversations_resume_create": {
        "summary": "Resume an interrupted operation",
        "description": "Resumes the conversation's interrupted operation from its last checkpoint, after "
                       "authorizing it again. Like typing “continue”.",
        "request": ACTION, "response": CONFIRMATION_TURN},
    "agent_executions_retrieve": {"summary": "An execution's full trace"},
    "agent_executions_kill_create": {"summary": "Kill an execution", "request": REASON,
                                     "response": {"id": "0c6f…", "status": "cancelled"}},
    "agent_executions_pause_create": {
        "summary": "Pause an execution",
        "description": "No new step or batch item starts until it is resumed; what is running finishes. Needs "
                       "the runtime-admin permission.",
        "request": REASON, "response": {"id": "0c6f…", "runtime_status": "PAUSED"}},
    "agent_executions_resume_create": {
        "summary": "Resume a paused execution",
        "description": "Continues from the last checkpoint after re-validating it (receipt, capability "
                       "versions, kill switches). Needs the runtime-admin permission.",
        "request": {"reason": "Área liberada"}, "response": {"id": "0c6f…", "runtime_status": "RUNNING"}},
    "agent_reviews_retrieve": {"response": {"reviews": [{"confirmation_id": "5b9e…", "summary":
                                                         "cancelar a permissão 124 (Beta Montagens)"}]}},
    "agent_reviews_approve_create": {"request": {"reason": "Conferido com a equipe"},
                                     "response": {"status": "approved"}},
    "agent_reviews_reject_create": {"request": {"reason": "A permissão ainda está em uso"},
                                    "response": {"status": "rejected"}},
    "api_knowledge_search_retrieve": {},
    "api_sst_companies_list": {"summary": "Companies",
                               "description": "The tenant's companies, by name.",
                               "response": [{"id": 1, "name": "Alfa Construções"}]},
    "api_sst_component_types_list": {
        "summary": "Component catalog",
        "description": "The components a permit may have (`key` is what `POST …/components` takes); "
                       "`undoable` says whether removing one is allowed.",
        "response": [{"id": 1, "key": "workingAtHeight", "name": "Trabalho em Altura", "undoable": True}]},
    "api_sst_employees_list": {"summary": "Employees", "description": "The tenant's employees with their company."},
    "api_sst_employees_retrieve": {"summary": "An employee", "description": "One employee (404 if not the tenant's)."},
    "api_sst_employees_count_retrieve": {"summary": "Count employees",
                                         "description": "How many employees match the same filters as the list.",
                                         "response": {"count": 5}},
    "api_sst_inspections_list": {"summary": "Safety inspections",
                                 "description": "The tenant's inspections, filtered by number, company or status.",
                                 "response": [INSPECTION]},
    "api_sst_inspections_create": {
        "summary": "Schedule an inspection",
        "description": "Creates a SCHEDULED inspection. Send `Idempotency-Key` to make a retry safe.",
        "request": {"company": 1, "number": "54", "site": "Galpão 2", "scheduled_for": "2026-12-10", "inspector": 3},
        "response": INSPECTION},
    "api_sst_inspections_retrieve": {"summary": "An inspection", "description": "One inspection with its findings; "
                                     "its `revision` goes in `If-Match` on changes.", "response": INSPECTION},
    "api_sst_inspections_cancel_create": {"summary": "Cancel an inspection",
                                          "description": "Cancels a scheduled inspection, with a reason.",
                                          "request": REASON, "response": {**INSPECTION, "status": "CANCELLED"}},
    "api_sst_inspections_complete_create": {"summary": "Complete an inspection",
                                            "description": "Marks a scheduled inspection as done.",
                                            "response": {**INSPECTION, "status": "DONE"}},
    "api_sst_inspections_findings_list": {"summary": "An inspection's findings",
                                          "description": "What the inspection found, with severities."},
    "api_sst_inspections_findings_create": {
        "summary": "Record a finding", "description": "Adds a finding to an inspection.",
        "request": {"description": "Guarda-corpo solto no 2º andar", "severity": "HIGH"},
        "response": INSPECTION["findings"][0]},
    "api_sst_inspections_findings_destroy": {"summary": "Remove a finding",
                                             "description": "Removes one finding from an inspection."},
    "api_sst_inspections_inspector_create": {"summary": "Assign the inspector",
                                             "description": "Sets the employee who inspects.",
                                             "request": {"inspector": 3}, "response": INSPECTION},
    "api_sst_inspections_reschedule_create": {"summary": "Reschedule an inspection",
                                              "description": "Moves a scheduled inspection to another date.",
                                              "request": {"scheduled_for": "2026-12-15"},
                                              "response": {**INSPECTION, "scheduled_for": "2026-12-15"}},
    "api_sst_inspections_count_retrieve": {"summary": "Count inspections",
                                           "description": "How many inspections match the list's filters.",
                                           "response": {"count": 3}},
    "api_sst_permits_list": {"summary": "Work permits",
                             "description": "The tenant's permits, filtered by number, company, status or text; "
                                            "`ids` reads several at once.", "response": [PERMIT]},
    "api_sst_permits_create": {
        "summary": "Create a work permit",
        "description": "Creates a DRAFT permit with its components and workers. Send `Idempotency-Key`: the same "
                       "key answers the first result again instead of creating a second permit.",
        "request": {"company": 1, "number": "130", "validity_days": 15, "responsible": 2,
                    "components": ["workingAtHeight"], "workers": [2]},
        "response": PERMIT},
    "api_sst_permits_retrieve": {"summary": "A work permit",
                                 "description": "One permit; the `ETag` header carries its revision for `If-Match`.",
                                 "response": PERMIT},
    "api_sst_permits_partial_update": {
        "summary": "Change a work permit",
        "description": "Changes the number or the responsible. `If-Match: <revision>` refuses (412) a change "
                       "made on a stale copy.", "request": {"responsible": 2}, "response": PERMIT},
    "api_sst_permits_destroy": {"summary": "Delete a work permit",
                                "description": "Deletes a DRAFT permit (`If-Match` required)."},
    "api_sst_permits_approve_create": {"summary": "Approve a work permit",
                                       "description": "DRAFT → APPROVED. Needs the supervisor role.",
                                       "response": {**PERMIT, "status": "APPROVED"}},
    "api_sst_permits_cancel_create": {"summary": "Cancel a work permit", "description": "Cancels a permit, with a "
                                      "reason.", "request": REASON, "response": {**PERMIT, "status": "CANCELLED"}},
    "api_sst_permits_checks_compliance_retrieve": {
        "summary": "Compliance check", "description": "Whether the permit meets the compliance rules, and why not.",
        "response": {"permit_id": 1, "compliant": False, "issues": ["sem responsável"], "source": "primary"}},
    "api_sst_permits_checks_risk_retrieve": {
        "summary": "Risk assessment", "description": "The permit's risk level and the factors behind it.",
        "response": {"permit_id": 1, "level": "high", "score": 7, "factors": ["workingAtHeight"]}},
    "api_sst_permits_checks_training_retrieve": {
        "summary": "Training check", "description": "Whether every worker of the permit has the training it needs.",
        "response": {"permit_id": 1, "trained": True, "workers": 2, "untrained": []}},
    "api_sst_permits_components_list": {"summary": "A permit's components",
                                        "description": "The components the permit has.",
                                        "response": PERMIT["components"]},
    "api_sst_permits_components_create": {
        "summary": "Add a component", "description": "Adds a catalog component (by key or name) to the permit; "
        "409 if it is already there.", "request": {"component": "workingAtHeight", "notes": ""},
        "response": {"id": 5, "key": "workingAtHeight", "name": "Trabalho em Altura", "undoable": True, "notes": "",
                     "permit_revision": 4}},
    "api_sst_permits_components_partial_update": {
        "summary": "Change a component's notes", "description": "Changes the notes of one component of the permit.",
        "request": {"notes": "Linha de vida instalada"},
        "response": {"id": 5, "key": "workingAtHeight", "name": "Trabalho em Altura", "undoable": True,
                     "notes": "Linha de vida instalada", "permit_revision": 5}},
    "api_sst_permits_components_destroy": {"summary": "Remove a component",
                                           "description": "Removes one component from the permit."},
    "api_sst_permits_evaluations_list": {"summary": "A permit's evaluations",
                                         "description": "The approval evaluations recorded for the permit."},
    "api_sst_permits_evaluations_create": {
        "summary": "Record an evaluation", "description": "Records the outcome of the checks (training, risk, "
        "compliance) for the permit.", "request": {"trained": True, "risk_level": "medium", "compliant": True},
        "response": {"id": 1, "permit_id": 1, "outcome": "approved", "reasons": [], "checks": {},
                     "created_at": "2026-12-01T12:00:00Z"}},
    "api_sst_permits_evaluations_destroy": {
        "summary": "Withdraw an evaluation", "description": "Withdraws one recorded evaluation of the permit (the "
        "undo of recording it) and answers with it as it was; the permit's revision is kept.",
        "response": {"id": 1, "permit_id": 1, "outcome": "APPROVE", "reasons": [], "checks": {},
                     "created_at": "2026-12-01T12:00:00Z"}},
    "api_sst_permits_validity_create": {
        "summary": "Change a permit's validity", "description": "Sets how many days the permit is valid "
        "(`If-Match` required).", "request": {"validity_days": 45}, "response": {**PERMIT, "validity_days": 45}},
    "api_sst_permits_workers_list": {"summary": "A permit's workers",
                                     "description": "The employees who work under the permit."},
    "api_sst_permits_workers_create": {"summary": "Add a worker", "description": "Adds an employee to the permit.",
                                       "request": {"employee": 2},
                                       "response": {"id": 2, "name": "João Pereira", "permit_revision": 4}},
    "api_sst_permits_workers_destroy": {"summary": "Remove a worker",
                                        "description": "Removes an employee from the permit."},
    "api_sst_permits_count_retrieve": {"summary": "Count work permits",
                                       "description": "How many permits match the list's filters.",
                                       "response": {"count": 4}},
    "api_sst_secondary_permits_checks_compliance_retrieve": {
        "summary": "Compliance check (secondary source)",
        "response": {"permit_id": 1, "compliant": True, "issues": [], "source": "secondary"}},
    "api_tenancy_me_retrieve": {"response": {"username": "demo-operator", "tenant": "demo",
                                             "tenant_name": "Demo SST", "role": "operator"}},
    "api_tenancy_switch_create": {"request": {"tenant": "demo"}, "response": {"tenant": "demo", "role": "operator"}},
    "api_tenancy_ws_ticket_create": {"response": {"ticket": "tk_7Yd…", "expires_in": 60}},
}
