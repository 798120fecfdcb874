"""N websocket clients of one conversation, in their own interpreter (bench/ws_fanout.py drives it).

Own process because Django's daphne app selects Twisted for txaio and these are asyncio clients.
Prints `ready` once all N are open, `done <seq>` when every socket has event <seq>, and
`closed <code> <reason>` when the server closes a socket; on `count <seq>` in stdin it prints
`count <seq> <sockets that have it>`, on `dump` one JSON line {seq: [arrival time.monotonic() per
socket]}, then exits. CLOCK_MONOTONIC is system-wide on Linux, so the driver's commit stamps and
these arrivals share one clock.

    python bench/_ws_clients.py <port> <conversation_id> <token> <N> <after>
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import defaultdict

import txaio

txaio.use_asyncio()

from autobahn.asyncio.websocket import WebSocketClientFactory, WebSocketClientProtocol  # noqa: E402


async def main(port: int, conversation_id: str, token: str, count: int, after: int) -> None:
    arrivals: dict[int, list[float]] = defaultdict(list)
    opened = asyncio.Event()
    state = {"open": 0, "dumping": False}

    class Client(WebSocketClientProtocol):
        def onOpen(self):  # noqa: N802 - autobahn's callback name
            state["open"] += 1
            if state["open"] == count:
                opened.set()

        def onClose(self, was_clean, code, reason):  # noqa: N802
            if not state["dumping"]:  # a socket the server closed never gets another event
                sys.stdout.write(f"closed {code} {reason}\n")
                sys.stdout.flush()

        def onMessage(self, payload, is_binary):  # noqa: N802
            now = time.monotonic()
            seq = json.loads(payload).get("seq")
            if isinstance(seq, int):
                arrivals[seq].append(now)
                if len(arrivals[seq]) == count:
                    sys.stdout.write(f"done {seq}\n")
                    sys.stdout.flush()

    url = f"ws://127.0.0.1:{port}/ws/agent/conversations/{conversation_id}/?after={after}"
    factory = WebSocketClientFactory(url, origin=f"http://127.0.0.1:{port}",
                                     headers={"Authorization": f"Token {token}"})
    factory.protocol = Client
    loop = asyncio.get_running_loop()
    # In waves of 50, each fully open before the next: a burst of hundreds of handshakes makes that
    # many concurrent group_add calls, beyond the channel layer's Redis pool (redis-py's default 100).
    for start in range(0, count, 50):
        wave = min(50, count - start)
        await asyncio.gather(*[loop.create_connection(factory, "127.0.0.1", port) for _ in range(wave)])
        deadline = time.monotonic() + 30
        while state["open"] < start + wave:
            if time.monotonic() > deadline:
                raise TimeoutError(f"only {state['open']} of {start + wave} sockets opened")
            await asyncio.sleep(0.01)
    await asyncio.wait_for(opened.wait(), 60)
    print("ready", flush=True)
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while (command := (await reader.readline()).decode().split()) != ["dump"]:
        if not command:  # the driver is gone
            return
        if command[0] == "count":
            print(f"count {command[1]} {len(arrivals.get(int(command[1]), []))}", flush=True)
    state["dumping"] = True
    print(json.dumps(arrivals), flush=True)


if __name__ == "__main__":
    port, conversation_id, token, count, after = sys.argv[1:6]
    asyncio.run(main(int(port), conversation_id, token, int(count), int(after)))
