"""README.md for a newcomer (issue 17, point 7): what a fresh clone needs is stated, every link and repository
path it names exists inside the repository, and benchmark numbers live in bench/RESULTS.md, not here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

from demo.seeding.registry import PENDING_DIR
from registry.manifest import manifest_read

ROOT = Path(settings.BASE_DIR)
README = (ROOT / "README.md").read_text(encoding="utf-8")
LOCAL_HOSTS = ("http://127.0.0.1", "http://localhost")


@pytest.mark.parametrize(("topic", "evidence"), [
    ("the Python version", r"Python 3\.11"),
    ("the two commands", r"make run.*\n(?:.*\n)*?.*make test"),
    ("logging in on the chat's page", r"/login/\S* and log in as `demo-operator`"),
    ("PostgreSQL and Redis", r"export DATABASE_URL=postgres://.*\n.*export REDIS_URL=redis://"),
    ("the port", r"PORT=8000"),
    ("production serving", r"make serve(?:.*\n)*?.*gunicorn config\.asgi:application -k uvicorn_worker\.UvicornWorker"
                           r"(?:.*\n)*?.*celery -A config worker(?:.*\n)*?.*beat"),
    ("the LLM protocol", r"OpenAI-compatible\*\* endpoint: `POST \{LLM_BASE_URL\}/chat/completions`"),
    ("the approval demo", r"Waiting for\s+my approval"),
])
def test_the_readme_says_what_a_newcomer_needs(topic, evidence):
    assert re.search(evidence, README), f"README.md does not cover {topic}"


def test_no_link_leaves_the_repository():
    links = re.findall(r"\]\(([^)\s]+)\)", README) + re.findall(r"<(https?://[^>]+)>", README)
    outside = [link for link in links
               if not link.startswith(LOCAL_HOSTS) and (link.startswith(("http", "/", "..")) or "://" in link)]
    assert outside == []
    missing = [link for link in links if not link.startswith(LOCAL_HOSTS) and not (ROOT / link.split("#")[0]).exists()]
    assert missing == []
    assert "../" not in README


def test_every_repository_path_the_readme_names_exists():
    named = {p for p in re.findall(r"`([\w.-]+/[\w./*-]*)`", README) if not p.startswith(("/", "http"))}
    missing = [p for p in sorted(named) if not list(ROOT.glob(p.rstrip("/")))]
    assert named and missing == []


def test_benchmark_numbers_are_in_bench_results_not_in_the_readme():
    assert "bench/RESULTS.md" in README and (ROOT / "bench" / "RESULTS.md").exists()
    assert not re.search(r"\bp(50|95|99)\b|\d+(\.\d+)? ?ms\b", README)


def test_the_pending_demo_version_the_readme_names_is_the_one_seed_demo_leaves():
    keys = set(manifest_read(PENDING_DIR).capabilities)
    assert keys and all(f"`{key}`" in README for key in keys)
