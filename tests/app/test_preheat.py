"""A pre-heated studio kernel learns its page's request from the server, without loading Voilà's server package.

Voilà starts kernels before any page asks (pre-heating); when it gives one to a page, its server sends the
page's request (a JSON object of environment variables: the query string among them) over a websocket at
``<protocol>://<ip>:<port><base>voila/query/<kernel id>``.  The studio's own client receives it: here a stand-in
server plays Voilà's side of that exchange.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import websockets

from workbench.app.serve import free_port
from workbench.app.studio import wait_for_request

REPO = Path(__file__).resolve().parents[2]
KERNEL = "0f1e2d3c-kernel"


class QueryServer:
    """Voilà's side: at ``/voila/query/<KERNEL>`` send ``request`` (JSON) once, then close."""

    def __init__(self, request: dict[str, str], base: str = "/") -> None:
        self.request, self.base, self.port, self.paths = request, base, free_port(), []
        self._ready, self._stop = threading.Event(), None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    async def _serve(self) -> None:
        async def answer(connection) -> None:
            self.paths.append(connection.request.path)
            await connection.send(json.dumps(self.request))

        self._stop = asyncio.get_running_loop().create_future()
        async with websockets.serve(answer, "127.0.0.1", self.port):
            self._ready.set()
            await self._stop

    def __enter__(self) -> QueryServer:
        self._thread.start()
        assert self._ready.wait(10), "the stand-in server did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        loop = self._stop.get_loop()
        loop.call_soon_threadsafe(self._stop.set_result, None)
        self._thread.join(10)

    def env(self) -> dict[str, str]:
        return {"VOILA_PREHEAT": "True", "VOILA_KERNEL_ID": KERNEL, "VOILA_APP_IP": "127.0.0.1",
                "VOILA_APP_PORT": str(self.port), "VOILA_SERVER_URL": self.base}


def test_a_preheated_kernel_takes_its_pages_query_from_the_server(monkeypatch):
    asked = {"QUERY_STRING": "game=babel&study=start_seat", "SCRIPT_NAME": "/voila/render/studio.ipynb",
             "PATH_INFO": "/"}
    with QueryServer(asked) as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        for name in asked:  # absent before, and as they were after the test
            monkeypatch.delenv(name, raising=False)
        wait_for_request()
    assert server.paths == [f"/voila/query/{KERNEL}"]  # the kernel's own request, at Voilà's address for it
    for name, value in asked.items():
        assert os.environ[name] == value


def test_a_server_under_a_base_url_is_asked_there(monkeypatch):
    with QueryServer({"QUERY_STRING": "page=teaching"}, base="/school/") as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("QUERY_STRING", raising=False)
        wait_for_request()
    assert server.paths == [f"/school/voila/query/{KERNEL}"]
    assert os.environ["QUERY_STRING"] == "page=teaching"


def test_a_kernel_started_for_its_page_asks_nothing(monkeypatch):
    monkeypatch.setenv("VOILA_PREHEAT", "False")
    monkeypatch.setenv("VOILA_APP_PORT", "1")  # nothing listens there: asking would fail
    monkeypatch.setenv("QUERY_STRING", "game=duel")
    wait_for_request()
    assert os.environ["QUERY_STRING"] == "game=duel"


def test_no_server_leaves_the_query_as_it_was_and_says_so_in_the_log(monkeypatch, caplog):
    monkeypatch.setenv("VOILA_PREHEAT", "True")
    monkeypatch.setenv("VOILA_KERNEL_ID", KERNEL)
    monkeypatch.setenv("VOILA_APP_IP", "127.0.0.1")
    monkeypatch.setenv("VOILA_APP_PORT", str(free_port()))  # free: refused at once
    monkeypatch.delenv("QUERY_STRING", raising=False)
    with caplog.at_level(logging.WARNING, logger="workbench.app"):
        wait_for_request()
    assert "QUERY_STRING" not in os.environ  # the page then opens at its defaults
    assert any("page's request" in r.getMessage() and "voila/query" in r.getMessage() for r in caplog.records)


class MalformedServer(QueryServer):
    """Sends ``reply`` as it is (not a JSON object of texts)."""

    def __init__(self, reply: str) -> None:
        super().__init__({})
        self.reply = reply

    async def _serve(self) -> None:
        async def answer(connection) -> None:
            self.paths.append(connection.request.path)
            await connection.send(self.reply)

        self._stop = asyncio.get_running_loop().create_future()
        async with websockets.serve(answer, "127.0.0.1", self.port):
            self._ready.set()
            await self._stop


@pytest.mark.parametrize("reply", ["not json", "[1, 2]", '{"QUERY_STRING": 3}'])
def test_a_reply_that_is_not_a_request_changes_nothing_and_says_so_in_the_log(monkeypatch, caplog, reply):
    with MalformedServer(reply) as bad:
        for name, value in bad.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("QUERY_STRING", "game=duel")
        with caplog.at_level(logging.WARNING, logger="workbench.app"):
            wait_for_request()
    assert bad.paths == [f"/voila/query/{KERNEL}"]
    assert os.environ["QUERY_STRING"] == "game=duel"
    assert any("page's request" in r.getMessage() for r in caplog.records)


def test_waiting_for_the_request_never_loads_voilas_server_package():
    with QueryServer({"QUERY_STRING": "game=duel"}) as server:
        code = ("import sys; from workbench.app.studio import wait_for_request; wait_for_request(); "
                "import os; print(os.environ['QUERY_STRING']); "
                "print(sorted(m for m in sys.modules if m.split('.')[0] in ('voila', 'jupyter_server')))")
        env = {**os.environ, **server.env(), "PYTHONPATH": str(REPO)}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["game=duel", "[]"], out.stdout
