"""A fake OpenAI-compatible chat-completions server on a real loopback socket.

What is faked is the model, never our client: the code under test opens a real HTTP connection
with httpx. It lives here because the scenario runner plays model scripts with it (model_script);
the tests' `fake_llm` fixture (tests/fakes/llm_server.py) wraps the same class.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeLLMServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.status = 200
        self.content: str = "{}"
        # Optional: compute the reply from the request body instead of `content`.
        self.responder: Callable[[dict[str, Any]], str] | None = None
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def last_user_message(self) -> Any:
        return json.loads(self.requests[-1]["body"]["messages"][-1]["content"])

    def start(self) -> FakeLLMServer:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                content = fake.responder(body) if fake.responder else fake.content
                answer = {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
                data = json.dumps(answer).encode()
                self.send_response(fake.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
