from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent.parent

DEBUG = env_bool("DEBUG", default=False)
SECRET_KEY = env_str("SECRET_KEY")
if SECRET_KEY is None:
    if not DEBUG and env_bool("REQUIRE_SECRET_KEY", default=False):
        raise ImproperlyConfigured("SECRET_KEY must be set when REQUIRE_SECRET_KEY is on")
    # Only for the embedded default and tests; production sets SECRET_KEY.
    SECRET_KEY = "insecure-dev-key-not-for-production"  # noqa: S105
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver", "[::1]"])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "guardian",
    "channels",
    "tenancy",
    "events",
    "registry",
    "policy",
    "planning",
    "execution",
    "knowledge",
    "conversations",
    "sst",
    "demo",
]

MIDDLEWARE = [
    "config.observability.RequestContextMiddleware",
    "config.overload.OverloadMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "tenancy.middleware.TenantMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
# Threads of one server process that run HTTP requests (config/asgi.py); below DB_POOL_MAX_SIZE
# (default 10) so each has a pooled connection to hand and websockets keep some.
HTTP_CONCURRENCY = env_int("HTTP_CONCURRENCY", 8, minimum=1)
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "guardian.backends.ObjectPermissionBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "pt-br"
LANGUAGES = [("pt-br", "Português (Brasil)"), ("en", "English")]
TIME_ZONE = "America/Sao_Paulo"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LOGIN_URL = "/admin/login/"
DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000_000

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "tenancy.authentication.TenantTokenAuthentication",
        "tenancy.authentication.TenantSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["tenancy.permissions.IsTenantMember"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "tenancy.exceptions.exception_handler",
    "DEFAULT_PARSER_CLASSES": ["tenancy.parsers.SafeJSONParser"],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "SST Agent Runtime API",
    "DESCRIPTION": "The agent's conversation API and the sample SST system it operates.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from drf-spectacular-sidecar's static files: /api/docs/ works without a network.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # sst.check_apis names the same low/medium/high set `level` and `risk_level`: one enum, one name.
    "ENUM_NAME_OVERRIDES": {"RiskLevelEnum": ["low", "medium", "high"]},
    # The default enum hook, then each operation's summary, description and examples (config/openapi_docs.py).
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "config.schema.describe_operations"],
}

GUARDIAN_RAISE_403 = False
ANONYMOUS_USER_NAME = None  # guardian: no anonymous user row; anonymous users get no object perms
