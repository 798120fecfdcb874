from django.urls import path

from .apis import KnowledgeSearchApi

app_name = "knowledge"

urlpatterns = [
    path("search", KnowledgeSearchApi.as_view(), name="search"),
]
