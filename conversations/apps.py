from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "conversations"

    def ready(self) -> None:
        # Completion flows up by hooks (ARCHITECTURE.md): execution and policy never import us.
        from execution.hooks import register_completion_hook
        from policy.services import register_review_hook, register_review_object_resolver

        from .batch import batch_replan_ask
        from .hooks import on_execution_settled, on_review_decided
        from .selectors import conversation_for_review

        register_completion_hook(on_execution_settled)
        register_completion_hook(batch_replan_ask)  # a material replan is asked in the conversation
        register_review_hook(on_review_decided)
        register_review_object_resolver(conversation_for_review)
