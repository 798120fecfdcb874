import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings.env import env_bool, env_int, env_url


@pytest.mark.parametrize(
    ("name", "value", "reader"),
    [
        ("DEBUG", "maybe", lambda: env_bool("DEBUG")),
        ("CELERY_WORKER_CONCURRENCY", "two", lambda: env_int("CELERY_WORKER_CONCURRENCY", 1)),
        ("DATABASE_URL", "mysql://x/y", lambda: env_url("DATABASE_URL", schemes=("postgres",))),
        ("REDIS_URL", "redis://:abc@host:notaport/0", lambda: env_url("REDIS_URL", schemes=("redis",))),
    ],
)
def test_malformed_value_names_the_variable(monkeypatch, name, value, reader):
    monkeypatch.setenv(name, value)
    with pytest.raises(ImproperlyConfigured, match=name):
        reader()


def test_settings_fail_at_start_up_on_a_malformed_database_url(tmp_path):
    import os
    import subprocess
    import sys

    env = dict(os.environ, DATABASE_URL="postgres://", REDIS_URL="")
    env.pop("PYTEST_XDIST_WORKER", None)
    result = subprocess.run([sys.executable, "manage.py", "check"], env=env, capture_output=True, text=True)
    assert result.returncode != 0
    assert "DATABASE_URL" in result.stderr


def test_embedded_default_without_services(tmp_path):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    code = ("from django.conf import settings as s; print(s.DATABASES['default']['ENGINE'], "
            "s.CHANNEL_LAYERS['default']['BACKEND'], s.CELERY_TASK_ALWAYS_EAGER)")
    result = subprocess.run([sys.executable, "manage.py", "shell", "-v", "0", "-c", code], env=env,
                            capture_output=True, text=True)
    assert result.stdout.split()[-3:] == ["django.db.backends.sqlite3", "channels.layers.InMemoryChannelLayer", "True"]


def test_the_asgi_server_pools_connections_instead_of_persisting_them_per_thread():
    import os
    import subprocess
    import sys

    env = dict(os.environ, DATABASE_URL="postgres://postgres@127.0.0.1:5432/x")
    env.pop("DB_POOL", None)
    code = ("import config.asgi; from django.conf import settings as s; d = s.DATABASES['default']; "
            "print(d['CONN_MAX_AGE'], d['OPTIONS']['pool']['max_size'])")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.stdout.split() == ["0", "10"], result.stderr
    plain = subprocess.run([sys.executable, "manage.py", "shell", "-v", "0", "-c",
                            "from django.conf import settings as s; print(s.DATABASES['default']['CONN_MAX_AGE'])"],
                           env=env, capture_output=True, text=True)
    assert plain.stdout.split()[-1:] == ["60"], plain.stderr
