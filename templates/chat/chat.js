(() => {
  "use strict";
  // The chat page's only script (no build step). Turns go over REST; the conversation's event log
  // comes over the websocket, replayed after the last seq seen, so a reconnect or reload never shows
  // an event twice. Everything the server sends is rendered with textContent, never as HTML.
  const boot = JSON.parse(document.getElementById("chat-boot").textContent);
  const T = boot.text;
  const LANG = boot.language;
  const CID = boot.conversation_id;
  const BASE = `/agent/conversations/${CID}`;
  const log = document.getElementById("log");
  const form = document.getElementById("composer");
  const input = document.getElementById("message");
  const permitSelect = document.getElementById("ui-permit");
  const tabSelect = document.getElementById("ui-tab");
  const uiJson = document.getElementById("ui-json");
  const badge = document.getElementById("connection");
  const STEP_ICON = {completed: "✓", failed: "✗", unknown: "?", skipped: "–", compensated: "↶", pending: "○"};
  const TERMINAL = {EXECUTION_COMPLETED: 1, EXECUTION_FAILED: 1, EXECUTION_CANCELLED: 1};
  const SETTLED = new Set(["completed", "failed", "cancelled", "partially_completed", "compensated"]);
  // finals: executions whose settled reply was looked for; replied: whose settled reply is on the page.
  const seen = {lastSeq: 0, seqs: new Set(), finals: new Set(), replied: new Set(), executions: new Map()};
  let pending = {confirmation: null, clarification: null};
  let socket = null;
  let retries = 0;

  window.history.replaceState(null, "", `?c=${CID}`);

  // --- small helpers ----------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const label = (value) => (value && typeof value === "object" ? (value[LANG] || value["pt-BR"] || "") : value || "");
  const csrf = () => decodeURIComponent((document.cookie.match(/(?:^|; )csrftoken=([^;]+)/) || [])[1] || "");
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const uuid = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`);

  async function api(path, {method = "GET", body} = {}, retried = false) {
    const response = await fetch(path, {
      method, credentials: "same-origin",
      headers: {"Accept": "application/json", ...(body ? {"Content-Type": "application/json", "X-CSRFToken": csrf()} : {})},
      body: body ? JSON.stringify(body) : undefined,
    });
    // Overloaded or rate limited: wait what the server asks, then once more with the same body
    // (a turn carries its client_message_id, so the retry cannot run it twice).
    if ((response.status === 503 || response.status === 429) && !retried) {
      const wait = Number(response.headers.get("Retry-After")) || 2;
      await sleep(Math.min(30, wait) * 1000);
      return api(path, {method, body}, true);
    }
    if (response.status === 401 || response.status === 403) {
      window.location.assign("/login/?next=/");
      throw new Error("unauthenticated");
    }
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return response.json();
  }

  function scrollDown() { log.lastElementChild && log.lastElementChild.scrollIntoView({block: "end"}); }

  // --- simulated UI context -----------------------------------------------------------------------
  function uiContext() {
    const permit = permitSelect.value;
    const tab = tabSelect.value;
    const context = {applicationId: "sst", route: permit ? `/work-permits/${permit}` : "/work-permits",
      page: {id: permit ? "work-permit" : "work-permits"},
      tab: {id: tab, title: tabSelect.options[tabSelect.selectedIndex].text}};
    if (permit) context.selection = {entityType: "workPermit", entityId: permit};
    return context;
  }
  const showContext = () => { uiJson.textContent = JSON.stringify(uiContext(), null, 2); };
  permitSelect.addEventListener("change", showContext);
  tabSelect.addEventListener("change", showContext);

  // `full`: the SST app's own list names the permit better than a navigation label does.
  function permitOption(id, text, full = false) {
    let option = [...permitSelect.options].find((o) => o.value === String(id));
    if (!option) {
      option = el("option", {value: String(id)}, text || String(id));
      permitSelect.append(option);
    } else if (full && text) {
      option.textContent = text;
    }
    return option;
  }

  async function loadPermits() {
    try {
      const permits = await api("/api/sst/permits");
      for (const permit of permits) {
        permitOption(permit.id, `${permit.number} — ${(permit.company && permit.company.name) || ""}`, true);
      }
    } catch (error) { /* the panel still works with what navigation tells us */ }
    const active = boot.state.active_entity;
    if (active && active.type === "workPermit") navigate({entity: active, tab: boot.state.active_tab});
    showContext();
  }

  // The agent's navigation instruction moves the (simulated) SST app, as the real one would.
  function navigate(navigation) {
    if (!navigation) return;
    const entity = navigation.entity;
    if (entity && entity.type === "workPermit" && entity.id !== undefined && entity.id !== null) {
      permitOption(entity.id, entity.label).selected = true;
    }
    const tab = typeof navigation.tab === "object" && navigation.tab ? navigation.tab.id : navigation.tab;
    if (tab && [...tabSelect.options].some((o) => o.value === tab)) tabSelect.value = tab;
    showContext();
  }

  // --- conversation pane --------------------------------------------------------------------------
  function welcome() {
    const examples = boot.examples || [];
    log.append(el("li", {class: "msg agent welcome", id: "welcome"}, el("span", {class: "who"}, T.agent),
      el("p", {}, T.welcome),
      examples.length ? el("div", {class: "card candidates examples"}, examples.map((text) =>
        el("button", {type: "button", "data-example": text, onclick: () => send(text)}, text))) : null));
  }

  function addUser(text) {
    const greeting = document.getElementById("welcome");
    if (greeting) greeting.remove();
    log.append(el("li", {class: "msg user"}, el("span", {class: "who"}, T.you), el("p", {}, text)));
    scrollDown();
  }

  function addAgent(response, {live = false} = {}) {
    if (!response) return;
    const item = el("li", {class: `msg agent ${response.type || ""}`},
      el("span", {class: "who"}, T.agent), el("p", {}, response.message || ""));
    if (response.citations && response.citations.length) {
      item.append(el("div", {class: "citations"}, el("span", {class: "muted"}, `${T.sources}:`),
        el("ul", {}, response.citations.map((c) =>
          el("li", {}, [c.title, c.source ? ` (${c.source}${c.version ? `, v${c.version}` : ""})` : ""].join(""))))));
    }
    if (response.type === "confirmation" && response.confirmation) item.append(confirmationCard(response.confirmation));
    if (response.type === "clarification" && response.clarification) item.append(candidates(response.clarification));
    // "Executando…" (a worker's execution still to settle) reads before its timeline, the settled reply after.
    const execution = response.execution || {};
    const running = !SETTLED.has(execution.status) && seen.executions.get(execution.id);
    log.insertBefore(item, running ? running.node : null);
    navigate(response.navigation);
    scrollDown();
    if (live) {
      const first = item.querySelector("button:not([disabled])");
      if (first) first.focus();
    }
  }

  function confirmationCard(confirmation) {
    const human = confirmation.level === "human_review";
    const card = el("div", {class: "card confirm", "data-risk": confirmation.risk, "data-confirmation": confirmation.id,
      role: "group", "aria-label": confirmation.summary},
    el("p", {class: "summary"}, confirmation.summary),
    el("dl", {},
      el("dt", {}, T.risk), el("dd", {}, el("span", {class: `risk risk-${confirmation.risk}`},
        T[`risk_${confirmation.risk}`] || confirmation.risk)),
      el("dt", {}, T.level), el("dd", {}, T[`level_${confirmation.level}`] || confirmation.level),
      confirmation.affected && confirmation.affected.length ? [el("dt", {}, T.affected),
        el("dd", {}, confirmation.affected.map((a) => a.label || a.id).join(", "))] : null,
      confirmation.expires_at ? [el("dt", {}, T.expires),
        el("dd", {}, new Date(confirmation.expires_at).toLocaleTimeString(LANG))] : null),
    human ? el("p", {class: "muted"}, T.human_review) : null,
    el("div", {class: "buttons"},
      human ? null : el("button", {type: "button", class: "primary", "data-action": "confirm",
        onclick: () => act("confirm", {confirmation_id: confirmation.id}, T.confirm)}, T.confirm),
      el("button", {type: "button", "data-action": "cancel", onclick: () => act("cancel", {}, T.cancel)}, T.cancel)));
    return card;
  }

  function candidates(clarification) {
    return el("div", {class: "card candidates", "data-clarification": clarification.id, role: "group",
      "aria-label": T.candidates},
    (clarification.candidates || []).map((candidate) => el("button", {type: "button",
      onclick: () => send(candidate.label)}, candidate.label)));
  }

  // Only the pending confirmation's / clarification's buttons stay usable.
  function refreshPending(status, response) {
    pending = {confirmation: null, clarification: null};
    if (response && status === "CONFIRMATION_REQUIRED" && response.confirmation) pending.confirmation = response.confirmation.id;
    if (response && status === "CLARIFICATION_REQUIRED" && response.clarification) pending.clarification = response.clarification.id;
    for (const card of log.querySelectorAll("[data-confirmation]")) {
      const open = card.dataset.confirmation === pending.confirmation;
      card.querySelectorAll("button").forEach((b) => { b.disabled = !open; });
      card.classList.toggle("closed", !open);
    }
    for (const card of log.querySelectorAll("[data-clarification]")) {
      const open = card.dataset.clarification === pending.clarification;
      card.querySelectorAll("button").forEach((b) => { b.disabled = !open; });
    }
  }

  async function turn(path, body, shown) {
    document.getElementById("composer-error").hidden = true;
    if (shown) addUser(shown);
    const working = el("li", {class: "msg agent working", "aria-busy": "true"}, T.working);
    log.append(working);
    try {
      const result = await api(path, {method: "POST", body: {client_message_id: uuid(), ui_context: uiContext(), ...body}});
      working.remove();
      // A turn whose execution settled inline answers with the settled reply itself: the terminal event
      // must not fetch and show it a second time (and if the socket already showed it, neither must we).
      const settled = settledExecution(result.response, result.events);
      if (settled) seen.finals.add(settled);
      for (const event of result.events || []) onEvent(event);
      if (!settled || !seen.replied.has(settled)) addAgent(result.response, {live: true});
      if (settled) seen.replied.add(settled);
      refreshPending(result.status, result.response);
      return result;
    } catch (error) {
      working.remove();
      document.getElementById("composer-error").hidden = false;
      return null;
    }
  }

  // The execution a response reports as settled (its reply is the final one), or null.
  function settledExecution(response, events) {
    const execution = response && response.execution;
    if (!execution || !execution.id) return null;
    const ended = (events || []).some((e) => TERMINAL[e.type] && (e.payload || {}).execution_id === execution.id);
    return ended || SETTLED.has(execution.status) ? execution.id : null;
  }

  const send = (text) => turn(`${BASE}/messages`, {text}, text);
  const act = (action, body, shown) => turn(`${BASE}/${action}`, body, shown);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    await send(text);
    input.focus();
  });

  // --- live execution timeline --------------------------------------------------------------------
  function timeline(executionId, steps, total) {
    let entry = seen.executions.get(executionId);
    if (!entry) {
      const count = el("span", {class: "count", "aria-label": T.execution}, "0/0");
      const status = el("span", {class: "status"}, T.status_running);
      const bar = el("progress", {max: "1", value: "0", "aria-hidden": "true"});
      const list = el("ol", {class: "steps"});
      const cancel = el("button", {type: "button", class: "danger", "data-action": "cancel-execution",
        onclick: () => act("cancel", {}, T.cancel_execution)}, T.cancel_execution);
      const node = el("li", {class: "timeline", "data-execution": executionId, "aria-live": "polite"},
        el("div", {class: "head"}, el("strong", {}, T.execution), count, status), bar, list, cancel);
      log.append(node);
      entry = {node, count, status, bar, list, cancel, steps: new Map(), done: 0, total: 0};
      seen.executions.set(executionId, entry);
    }
    for (const step of steps || []) stepRow(entry, step.id, step.label, "pending");
    if (total) entry.total = total;
    drawCount(entry);
    scrollDown();
    return entry;
  }

  function stepRow(entry, stepId, stepLabel, status) {
    let row = entry.steps.get(stepId);
    if (!row) {
      row = el("li", {"data-step": stepId}, el("span", {class: "icon", "aria-hidden": "true"}),
        el("span", {class: "label"}), el("span", {class: "sr-only state"}));
      entry.list.append(row);
      entry.steps.set(stepId, row);
    }
    if (stepLabel) {
      row.dataset.label = label(stepLabel);
      // Steps of one kind ("Adicionando componente…" three times) are told apart by their place.
      const same = [...entry.list.children].filter((r) => r.dataset.label === row.dataset.label);
      same.forEach((r, i) => {
        r.querySelector(".label").textContent = same.length > 1 ? `${r.dataset.label} (${i + 1})` : r.dataset.label;
      });
    }
    row.dataset.status = status;
    row.querySelector(".icon").textContent = STEP_ICON[status] || "…";
    row.querySelector(".state").textContent = ` (${T[`status_${status}`] || status})`;
    return row;
  }

  function drawCount(entry) {
    entry.count.textContent = `${entry.done}/${entry.total}`;
    entry.bar.max = Math.max(entry.total, 1);
    entry.bar.value = entry.done;
  }

  function onEvent(event) {
    // Each seq once. lastSeq is the highest contiguous one: a reconnect asks for what follows it.
    if (!event || typeof event.seq !== "number" || event.seq <= seen.lastSeq || seen.seqs.has(event.seq)) return;
    seen.seqs.add(event.seq);
    while (seen.seqs.has(seen.lastSeq + 1)) seen.seqs.delete(++seen.lastSeq);
    const p = event.payload || {};
    if (event.type === "EXECUTION_STARTED") {
      timeline(p.execution_id, p.steps, p.total);
    } else if (event.type === "EXECUTION_PROGRESS") {
      const entry = timeline(p.execution_id, [], p.total);
      stepRow(entry, p.step_id, p.label, p.status);
      entry.done = Math.max(entry.done, p.done || 0);
      drawCount(entry);
    } else if (TERMINAL[event.type]) {
      // A refusal or a cancellation before any execution has no timeline: the reply says it all.
      const entry = p.execution_id ? seen.executions.get(p.execution_id) : null;
      if (entry) {
        entry.status.textContent = T[`status_${p.status}`] || p.status;
        entry.node.dataset.status = p.status;
        entry.cancel.remove();
      }
      if (p.execution_id) showFinal(p.execution_id);
    }
  }

  // The settled reply is written by the conversation's completion hook just after the execution's
  // own commit: read the state until it names this execution (an older execution is skipped).
  async function showFinal(executionId) {
    if (seen.finals.has(executionId)) return;
    seen.finals.add(executionId);
    for (let attempt = 0; attempt < 40; attempt += 1) {
      let state;
      try { state = await api(BASE); } catch (error) { await sleep(500); continue; }
      const last = state.last_result || {};
      if (last.execution_id === executionId) {
        if (seen.replied.has(executionId)) return;
        seen.replied.add(executionId);
        addAgent(state.last_response);
        refreshPending(state.status, state.last_response);
        return;
      }
      const active = state.active_operation || {};
      if (active.execution_id !== executionId) return;
      await sleep(150 + attempt * 50);
    }
  }

  // --- websocket with reconnect -------------------------------------------------------------------
  function setBadge(key) { badge.textContent = T[key]; badge.dataset.state = key; }

  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${window.location.host}/ws/agent/conversations/${CID}/?after=${seen.lastSeq}`);
    socket.addEventListener("open", () => { retries = 0; setBadge("connected"); });
    socket.addEventListener("message", (message) => {
      let data;
      try { data = JSON.parse(message.data); } catch (error) { return; }
      if (data && typeof data.seq === "number") onEvent(data);
    });
    socket.addEventListener("close", async (closed) => {
      setBadge("reconnecting");
      // 1013: the server is overloaded — back off at least a few seconds, not from scratch.
      retries = closed.code === 1013 ? Math.max(retries, 3) + 1 : retries + 1;
      if (closed.code === 4403 || retries % 5 === 0) {
        // Only a lost session ends the reconnecting; an overloaded or unreachable server does not.
        try { await api("/api/tenancy/me"); } catch (error) { if (error.message === "unauthenticated") return; }
      }
      await sleep(Math.min(5000, 250 * 2 ** Math.min(retries, 5)));
      connect();
    });
  }

  // --- start --------------------------------------------------------------------------------------
  const kindText = {confirm: T.confirm, cancel: T.cancel};
  // History first, each turn with its own events, so every timeline sits where its turn was; the
  // socket then replays only what came after (a worker's progress updates those timelines in place).
  // Executions the history already answered are not answered again when their terminal event replays.
  for (const item of boot.history) {
    addUser(item.kind === "message" ? item.text : (kindText[item.kind] || item.kind));
    for (const event of item.events || []) {
      const id = TERMINAL[event.type] && event.payload && event.payload.execution_id;
      if (id) { seen.finals.add(id); seen.replied.add(id); }  // this turn's reply below is the settled one
      onEvent(event);
    }
    // A worker's execution started after its turn: keep its timeline here; the replay fills it in.
    const execution = item.response && item.response.execution;
    if (execution && execution.id && !seen.executions.has(execution.id)) timeline(execution.id, execution.steps, 0);
    addAgent(item.response);
  }
  // A worker that settled the last execution after its turn wrote the settled reply to the state only.
  const lastResult = boot.state.last_result || {};
  if (lastResult.execution_id && !seen.replied.has(lastResult.execution_id) && boot.state.last_response) {
    const previous = boot.history.length ? boot.history[boot.history.length - 1].response : null;
    if (JSON.stringify(previous) !== JSON.stringify(boot.state.last_response)) addAgent(boot.state.last_response);
  }
  if (lastResult.execution_id) { seen.finals.add(lastResult.execution_id); seen.replied.add(lastResult.execution_id); }
  if (!boot.history.length) welcome();
  const last = boot.state.last_response;
  refreshPending(boot.state.status, boot.state.pending_confirmation ? {confirmation: boot.state.pending_confirmation}
    : boot.state.pending_clarification ? {clarification: boot.state.pending_clarification} : last);
  loadPermits();
  connect();
  window.chatPage = {state: seen, socket: () => socket};
})();
