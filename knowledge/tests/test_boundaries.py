"""Knowledge is data, never authority: the app cannot reach a plan, a policy or a capability."""

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[1]
ALLOWED_FIRST_PARTY = {"knowledge", "tenancy", "config"}
FIRST_PARTY = {"conversations", "execution", "planning", "policy", "registry", "events", "sst", "demo"}


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    return modules


def test_the_knowledge_app_imports_no_app_but_tenancy():
    for path in APP.rglob("*.py"):
        if "tests" in path.parts or "migrations" in path.parts:
            continue
        forbidden = _imported_modules(path) & FIRST_PARTY
        assert not forbidden, f"{path.relative_to(APP)} imports {forbidden}"


def test_an_answer_has_only_text_and_citations():
    from dataclasses import fields

    from knowledge.results import Answer, Citation

    assert [f.name for f in fields(Answer)] == ["text", "citations"]
    assert [f.name for f in fields(Citation)] == ["id", "title", "source", "version"]
