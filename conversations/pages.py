"""The chat page at `/` (server-rendered, one small inline script, no build step) and its login.

The page is a client of the public interface only (API.md): REST for turns and the conversation
state, the websocket for the live event log, and the SST app's own `/api/sst/permits` for the
simulated UI context panel — the agent layer never imports the SST app. Tenant and user come from
the session; a user with several tenants picks one first (`/api/tenancy/switch`).

The script and stylesheet are inlined from templates/chat/ rather than served as static files so
the page works the same under runserver, daphne or any ASGI server without collectstatic.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth import views as auth_views
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import ensure_csrf_cookie

from tenancy.context import TenantContext
from tenancy.models import Membership

from .courtesy import welcome_examples
from .models import Conversation
from .models import Turn as TurnRow
from .services import ConversationNotFound, conversation_create, conversation_get, conversation_state
from .statemachine import Status

LOGIN_URL = "/login/"
LANGUAGES = ("pt-BR", "en")
HISTORY_LIMIT = 50

# The page's words, one catalogue per language; the script receives the same catalogue.
TEXT: dict[str, dict[str, str]] = {
    "pt-BR": {
        "title": "Assistente SST", "conversation": "Conversa", "message": "Mensagem", "send": "Enviar",
        "placeholder": "Pergunte ou peça algo ao agente…", "ui_panel": "Contexto da interface (simulado)",
        "ui_hint": "O que a aplicação SST mostraria agora; vai junto com cada mensagem.",
        "permit": "Permissão selecionada", "tab": "Aba", "none": "Nenhuma", "sent_context": "Contexto enviado",
        "tab_general": "Geral", "tab_components": "Componentes", "tab_workers": "Trabalhadores",
        "tab_history": "Histórico", "confirm": "Confirmar", "cancel": "Cancelar", "risk": "Risco",
        "level": "Nível", "affected": "Afetados", "expires": "Expira às", "sources": "Fontes",
        "candidates": "Escolha uma opção", "execution": "Execução", "cancel_execution": "Cancelar execução",
        "connected": "Ao vivo", "reconnecting": "Reconectando…", "offline": "Sem conexão",
        "you": "Você", "agent": "Agente", "confirmed": "Confirmado", "cancelled": "Cancelado",
        "human_review": "Precisa da aprovação de outra pessoa autorizada.", "new": "Nova conversa",
        "logout": "Sair", "language": "Idioma", "tenant": "Organização", "pick_tenant": "Escolha a organização",
        "pick_tenant_hint": "Você participa de mais de uma organização. Em qual quer trabalhar?",
        "enter": "Entrar", "error": "Não foi possível enviar. Tente de novo.", "status_completed": "Concluído",
        "status_failed": "Falhou", "status_running": "Em andamento", "status_cancelled": "Cancelado",
        "status_partially_completed": "Concluído em parte", "status_compensated": "Desfeito",
        "login": "Entrar", "username": "Usuário", "password": "Senha",
        "login_error": "Usuário ou senha inválidos.", "skip": "Ir para a conversa", "working": "Pensando…",
        "risk_low": "baixo", "risk_medium": "médio", "risk_high": "alto", "risk_critical": "crítico",
        "level_soft": "confirmação simples", "level_strong": "confirmação reforçada",
        "level_human_review": "revisão humana",
        "welcome": "Olá! Pergunte ou peça algo sobre a sua aplicação de SST. Por exemplo:",
    },
    "en": {
        "title": "SST Assistant", "conversation": "Conversation", "message": "Message", "send": "Send",
        "placeholder": "Ask the agent something…", "ui_panel": "Interface context (simulated)",
        "ui_hint": "What the SST application would be showing; sent with every message.",
        "permit": "Selected permit", "tab": "Tab", "none": "None", "sent_context": "Context sent",
        "tab_general": "General", "tab_components": "Components", "tab_workers": "Workers",
        "tab_history": "History", "confirm": "Confirm", "cancel": "Cancel", "risk": "Risk",
        "level": "Level", "affected": "Affected", "expires": "Expires at", "sources": "Sources",
        "candidates": "Pick one", "execution": "Execution", "cancel_execution": "Cancel execution",
        "connected": "Live", "reconnecting": "Reconnecting…", "offline": "Offline",
        "you": "You", "agent": "Agent", "confirmed": "Confirmed", "cancelled": "Cancelled",
        "human_review": "Needs approval by another authorized person.", "new": "New conversation",
        "logout": "Log out", "language": "Language", "tenant": "Organization", "pick_tenant": "Pick the organization",
        "pick_tenant_hint": "You belong to more than one organization. Which one do you want to work in?",
        "enter": "Enter", "error": "Could not send. Try again.", "status_completed": "Completed",
        "status_failed": "Failed", "status_running": "Running", "status_cancelled": "Cancelled",
        "status_partially_completed": "Partially completed", "status_compensated": "Undone",
        "login": "Log in", "username": "Username", "password": "Password",
        "login_error": "Invalid username or password.", "skip": "Skip to the conversation", "working": "Thinking…",
        "risk_low": "low", "risk_medium": "medium", "risk_high": "high", "risk_critical": "critical",
        "level_soft": "simple confirmation", "level_strong": "strong confirmation",
        "level_human_review": "human review",
        "welcome": "Hello! Ask or request something about your SST application. For example:",
    },
}
TABS = ("general", "components", "workers", "history")


def page_language(request: HttpRequest) -> str:
    """`?lang=` chooses and is remembered in the session; pt-BR by default."""
    wanted = request.GET.get("lang")
    if wanted in LANGUAGES:
        request.session["chat.language"] = wanted
    language = request.session.get("chat.language")
    return language if language in LANGUAGES else "pt-BR"


def conversation_for_page(*, context: TenantContext, requested: str | None, new: bool, language: str) -> Conversation:
    """The asked-for conversation if it is this user's, else their latest open one, else a new one."""
    if requested and not new:
        try:
            return conversation_get(tenant=context.tenant, user=context.user, conversation_id=requested)
        except ConversationNotFound:
            pass
    if not new:
        latest = (Conversation.objects.for_tenant(context.tenant).filter(user=context.user)
                  .exclude(status=Status.CLOSED).order_by("-created_at").first())
        if latest is not None:
            return latest
    return conversation_create(tenant=context.tenant, user=context.user, session_id=uuid.uuid4().hex,
                               language=language)


def history_for_page(conversation: Conversation) -> list[dict[str, Any]]:
    """The answered turns, oldest first: what the user said and what the agent replied."""
    rows = (TurnRow.objects.for_tenant(conversation.tenant_id).filter(conversation=conversation)
            .order_by("-created_at")[:HISTORY_LIMIT])
    # The turn's own events too: the page draws each execution's timeline where its turn was, not at the end.
    return [{"kind": row.kind, "text": row.text, "response": (row.response or {}).get("response"),
             "events": (row.response or {}).get("events") or []}
            for row in reversed(list(rows))]


@method_decorator(ensure_csrf_cookie, name="dispatch")
class ChatPageView(LoginRequiredMixin, View):
    login_url = LOGIN_URL

    def get(self, request: HttpRequest) -> HttpResponse:
        language = page_language(request)
        text = TEXT[language]
        context: TenantContext | None = request.tenant_context or None
        if context is None or request.GET.get("pick") == "1":
            memberships = Membership.objects.select_related("tenant").filter(user=request.user).order_by(
                "tenant__name")
            return render(request, "chat/tenant_pick.html", {"t": text, "language": language,
                                                              "memberships": memberships})
        conversation = conversation_for_page(context=context, requested=request.GET.get("c"),
                                             new=request.GET.get("new") == "1", language=language)
        several = Membership.objects.filter(user=request.user).count() > 1
        boot = {"conversation_id": str(conversation.pk), "language": language, "text": text,
                "tabs": [{"id": tab, "title": text[f"tab_{tab}"]} for tab in TABS],
                "state": conversation_state(tenant=context.tenant, user=context.user,
                                            conversation_id=conversation.pk),
                "history": history_for_page(conversation)}
        # What this user's role may ask, as the greeting lists it: the empty conversation's welcome
        # (read only then: the examples read the tenant's catalogues for their values).
        boot["examples"] = [] if boot["history"] else welcome_examples(
            tenant=context.tenant, user=context.user, role=context.role, language=language)
        return render(request, "chat/chat.html", {"t": text, "language": language, "boot": boot,
                                                  "tenant": context.tenant, "several_tenants": several,
                                                  "tabs": boot["tabs"], "other_language": "en" if language ==
                                                  "pt-BR" else "pt-BR"})


class ChatLoginView(auth_views.LoginView):
    """Any member logs in here (the admin's login only admits staff); then lands on the chat."""

    template_name = "chat/login.html"
    redirect_authenticated_user = True

    def get_default_redirect_url(self) -> str:
        return "/"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        language = page_language(self.request)
        return {**super().get_context_data(**kwargs), "t": TEXT[language], "language": language}


class ChatLogoutView(auth_views.LogoutView):
    next_page = LOGIN_URL
