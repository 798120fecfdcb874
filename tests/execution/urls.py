"""config/urls.py plus the include this issue asks for (`path("agent/", include("execution.urls"))`)."""

from django.urls import include, path

from config.urls import urlpatterns as base

urlpatterns = [*base, path("agent/", include("execution.urls"))]
