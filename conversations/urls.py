from django.urls import path

from . import apis

app_name = "conversations"

urlpatterns = [
    path("conversations", apis.ConversationCreateApi.as_view(), name="conversation-create"),
    path("conversations/<str:conversation_id>", apis.ConversationDetailApi.as_view(), name="conversation-detail"),
    path("conversations/<str:conversation_id>/messages", apis.MessageApi.as_view(), name="conversation-messages"),
    path("conversations/<str:conversation_id>/confirm", apis.ConfirmApi.as_view(), name="conversation-confirm"),
    path("conversations/<str:conversation_id>/cancel", apis.CancelApi.as_view(), name="conversation-cancel"),
    path("conversations/<str:conversation_id>/undo", apis.UndoApi.as_view(), name="conversation-undo"),
    path("conversations/<str:conversation_id>/resume", apis.ResumeApi.as_view(), name="conversation-resume"),
    path("conversations/<str:conversation_id>/events", apis.EventsApi.as_view(), name="conversation-events"),
    path("reviews", apis.ReviewListApi.as_view(), name="review-list"),
    path("reviews/<str:confirmation_id>/approve", apis.ReviewDecisionApi.as_view(), name="review-approve"),
    path("reviews/<str:confirmation_id>/reject", apis.ReviewRejectApi.as_view(), name="review-reject"),
]
