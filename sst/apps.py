from django.apps import AppConfig


class SstConfig(AppConfig):
    name = "sst"
