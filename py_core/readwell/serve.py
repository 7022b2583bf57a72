"""``readwell serve``: the extractor as an HTTP JSON API that is safe to put in front of other people.

Routes (JSON in, the CLI's JSON out, byte for byte):
  POST /extract   raw HTML body (``?url=`` is the page's URL, options as query parameters), or
                  ``Content-Type: application/json`` with ``{"html": ..., "url": ..., "options": {...}}``
                  (``html`` absent: ``url`` is fetched)
  GET  /extract?url=...   fetch and extract
  GET  /stages    the pipeline stages in order
  GET  /healthz   liveness and load (never needs the token)

Limits, each with its status: body size (413), body not received in time (408), a deadline per request that
covers queueing, fetching and extracting (504), bounded concurrency: ``-j`` workers plus a queue, then 503
with Retry-After. Bad JSON or wrong types: 400; options or URLs the extractor refuses: 422; a fetch that
fails upstream: 502. Fetched URLs go through :mod:`readwell.fetch` with private addresses refused unless
``--allow-private``. Optional bearer token (``READWELL_TOKEN`` or ``--token-file``; not a flag, so it is not
in ``ps``). Access log: one JSON object per line. SIGTERM/SIGINT: stop accepting, finish in-flight requests,
stop the workers.

Stack: Starlette + uvicorn (h11), both pure Python with three small dependencies (anyio, h11, click);
aiohttp would bring five compiled extensions (multidict, yarl, frozenlist, propcache, aiohttp itself) for the
same job.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import json
import math
import os
import socket
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any

from .errors import InputError
from .parse import sniff_declared_encoding
from .pipeline import STAGES
from .serve_pool import DeadlinePassed, Job, WorkerPool
from .serve_request import HTTPError, json_request, options_from_query

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

MAX_BODY = 10 * 1024 * 1024  # bytes of request body (HTML or JSON)
DEADLINE = 30.0  # seconds per request, from the first byte of the body to the answer
QUEUE_PER_WORKER = 4  # requests that may wait for a worker, per worker, before 503
MAX_HEADER_BYTES = 16 * 1024  # all header names and values (431); also h11's limit for a head still arriving
MAX_HEADERS = 100  # header lines (431)
MAX_TARGET_BYTES = 8 * 1024  # path and query string (414); a URL to fetch fits many times over
MAX_CONNECTIONS = 256  # open connections (uvicorn answers 503 beyond): idle and slow clients are bounded too
KEEPALIVE_SECONDS = 5


@dataclass
class ServeConfig:
    host: str = "127.0.0.1"
    port: int = 8080
    jobs: int = 2
    max_body: int = MAX_BODY
    deadline: float = DEADLINE
    queue: int | None = None  # default QUEUE_PER_WORKER * jobs
    token: str | None = None
    allow_private: bool = False
    access_log: IO[str] | None = None  # None: no access log

    @property
    def capacity(self) -> int:
        """Requests admitted at once: running plus waiting for a worker."""
        return self.jobs + (self.queue if self.queue is not None else QUEUE_PER_WORKER * self.jobs)


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    from starlette.responses import Response

    body = json.dumps({"error": message, "status": status}) + "\n"  # ASCII: safe for any message
    return Response(body, status, headers, media_type="application/json")


async def read_body(request: Request, limit: int, deadline: float) -> bytes:
    """The whole body, refused past ``limit`` bytes (413) or when it is not all here by ``deadline`` (408)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.strip().isdigit():
            raise HTTPError(400, "invalid Content-Length")
        if int(declared) > limit:
            raise HTTPError(413, f"body larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0

    async def collect() -> None:
        nonlocal size
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise HTTPError(413, f"body larger than {limit} bytes")
            chunks.append(chunk)

    from starlette.requests import ClientDisconnect

    try:
        await asyncio.wait_for(collect(), max(deadline - time.monotonic(), 0.0))
    except TimeoutError:
        raise HTTPError(408, "the request body did not arrive in time") from None
    except ClientDisconnect:  # nobody to answer; logged with status 499 like nginx
        raise HTTPError(499, "client closed the connection before sending the body") from None
    return b"".join(chunks)


class Server:
    """The routes, bound to a config and a worker pool."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.pool = WorkerPool(config.jobs)
        self.admitted = 0
        self.served = 0

    def authorize(self, request: Request) -> None:
        token = self.config.token
        if token is None:
            return
        given = request.headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), token.encode()):
            raise HTTPError(401, "missing or wrong bearer token", {"WWW-Authenticate": "Bearer"})

    async def extract(self, request: Request) -> Response:
        deadline = time.monotonic() + self.config.deadline
        self.authorize(request)
        if request.method == "GET":
            url = request.query_params.get("url")
            if not url:
                raise HTTPError(400, "GET /extract needs ?url=")
            job = Job(None, url, options_from_query(request.query_params))
        else:
            job = await self.job_from_body(request, deadline)
        job.allow_private = self.config.allow_private
        return await self.run(job, deadline)

    async def job_from_body(self, request: Request, deadline: float) -> Job:
        body = await read_body(request, self.config.max_body, deadline)
        content_type = request.headers.get("content-type", "")
        if content_type.split(";")[0].strip().lower() != "application/json":
            if not body:
                raise HTTPError(400, 'empty body: send HTML, or JSON {"html" | "url", "options"}')
            options = options_from_query(request.query_params)
            return Job(body, request.query_params.get("url"), options, sniff_declared_encoding(content_type))
        return Job(*json_request(body))

    async def run(self, job: Job, deadline: float) -> Response:
        from starlette.responses import Response

        if self.admitted >= self.config.capacity:
            raise HTTPError(503, "too many requests in progress; retry shortly", {"Retry-After": "1"})
        self.admitted += 1
        try:
            status, body = await self.pool.run(job, deadline)
        except DeadlinePassed:
            raise HTTPError(504, f"no answer within the {self.config.deadline:g} s deadline") from None
        finally:
            self.admitted -= 1
        self.served += 1
        return Response(body, status, media_type="application/json")

    async def stages(self, request: Request) -> Response:
        self.authorize(request)
        stages = [{"name": s.name, "summary": s.summary} for s in STAGES]
        return json_response({"stages": stages})

    async def healthz(self, request: Request) -> Response:
        pool = self.pool
        return json_response(
            {
                "status": "ok",
                "workers": pool.size,
                "busy": pool.busy,
                "queued": max(self.admitted - pool.busy, 0),
                "capacity": self.config.capacity,
                "served": self.served,
                "workers_replaced": pool.replaced,
            }
        )


def json_response(data: Any, status: int = 200) -> Response:
    from starlette.responses import Response

    return Response(json.dumps(data, ensure_ascii=False) + "\n", status, media_type="application/json")


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class RequestLimits:
    """ASGI middleware: headers and request target of bounded size, checked before any route runs. h11 bounds
    only a head that is still arriving; one that arrives whole in a single read is not bounded there."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = scope.get("headers") or []
            size = sum(len(name) + len(value) for name, value in headers)
            problem = None
            if len(headers) > MAX_HEADERS or size > MAX_HEADER_BYTES:
                problem = (431, f"headers over {MAX_HEADERS} lines or {MAX_HEADER_BYTES} bytes")
            elif len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") > MAX_TARGET_BYTES:
                problem = (414, f"request target over {MAX_TARGET_BYTES} bytes")
            if problem is not None:
                await error_response(*problem)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class AccessLog:
    """ASGI middleware: one JSON line per request (time, client, method, path, status, bytes, ms). The query
    string is left out: it may carry a URL the client considers private."""

    def __init__(self, app: Any, stream: IO[str]) -> None:
        self.app, self.stream = app, stream

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status, sent = 0, 0

        async def send_logged(message: MutableMapping[str, Any]) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, send_logged)
        finally:
            entry = {
                "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
                "client": (scope.get("client") or ("", 0))[0],
                "method": scope["method"],
                "path": scope["path"],
                "status": status,
                "bytes": sent,
                "ms": round((time.perf_counter() - started) * 1000, 1),
            }
            self.stream.write(json.dumps(entry) + "\n")
            self.stream.flush()


def create_app(config: ServeConfig) -> Any:
    """The ASGI application (Starlette), with its worker pool started and stopped by the lifespan."""
    import contextlib

    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.routing import Route

    server = Server(config)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        server.pool.start()
        try:
            yield
        finally:
            server.pool.close()

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPError)
        return error_response(exc.status, exc.message, exc.headers)

    async def on_starlette_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error_response(exc.status_code, str(exc.detail), dict(exc.headers or {}))

    async def on_bug(request: Request, exc: Exception) -> Response:
        return error_response(500, f"internal error: {type(exc).__name__}")

    app = Starlette(
        routes=[
            Route("/extract", server.extract, methods=["GET", "POST"]),
            Route("/stages", server.stages, methods=["GET"]),
            Route("/healthz", server.healthz, methods=["GET"]),
        ],
        exception_handlers={HTTPError: on_http_error, HTTPException: on_starlette_error, Exception: on_bug},
        lifespan=lifespan,
    )
    app.state.server = server
    limited = RequestLimits(app)
    return AccessLog(limited, config.access_log) if config.access_log is not None else limited


def run(config: ServeConfig) -> None:
    """Bind, print the address, serve until SIGTERM/SIGINT, then shut down gracefully."""
    import uvicorn

    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((config.host, config.port))
        sock.listen(2048)  # listening now: clients that connect before the workers are up wait in the backlog
    except OSError as exc:
        raise InputError(f"cannot listen on {config.host}:{config.port}: {exc.strerror or exc}") from None
    port = sock.getsockname()[1]
    uv = uvicorn.Config(
        create_app(config),
        http="h11",
        lifespan="on",
        access_log=False,
        log_level="warning",
        server_header=False,
        limit_concurrency=MAX_CONNECTIONS,
        timeout_keep_alive=KEEPALIVE_SECONDS,
        timeout_graceful_shutdown=math.ceil(config.deadline) + 1,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
    )
    shown = f"[{config.host}]" if family == socket.AF_INET6 else config.host
    sys.stderr.write(
        f"readwell serve: listening on http://{shown}:{port} "
        f"({config.jobs} workers, {config.capacity} requests admitted at once)\n"
    )
    sys.stderr.flush()
    uvicorn.Server(uv).run(sockets=[sock])


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 picks a free one)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    p.add_argument("--max-body", type=int, default=MAX_BODY, metavar="BYTES", help="request body limit")
    p.add_argument("--deadline", type=float, default=DEADLINE, metavar="SECONDS", help="per-request deadline")
    p.add_argument(
        "--queue", type=int, metavar="N", help=f"requests waiting for a worker (default {QUEUE_PER_WORKER}×j)"
    )
    p.add_argument("--token-file", metavar="PATH", help="require 'Authorization: Bearer <token in file>'")
    p.add_argument("--allow-private", action="store_true", help="let fetched URLs reach private addresses")
    p.add_argument("--access-log", default="-", metavar="PATH", help="JSON lines: PATH, - (stderr) or off")


def config_from_args(a: argparse.Namespace) -> ServeConfig:
    if a.jobs < 1 or a.max_body < 1 or a.deadline <= 0 or (a.queue is not None and a.queue < 0):
        raise InputError("-j, --max-body and --deadline must be positive, --queue zero or more")
    token = os.environ.get("READWELL_TOKEN") or None
    if a.token_file:
        try:
            with open(a.token_file, encoding="utf-8") as fh:
                token = fh.read().strip()
        except OSError as exc:
            raise InputError(f"cannot read {a.token_file}: {exc.strerror or exc}") from None
        if not token:
            raise InputError(f"{a.token_file} is empty")
    log: IO[str] | None
    if a.access_log == "off":
        log = None
    elif a.access_log == "-":
        log = sys.stderr
    else:
        try:
            log = open(a.access_log, "a", encoding="utf-8")  # open for the server's lifetime
        except OSError as exc:
            raise InputError(f"cannot write {a.access_log}: {exc.strerror or exc}") from None
    return ServeConfig(a.host, a.port, a.jobs, a.max_body, a.deadline, a.queue, token, a.allow_private, log)


def main(a: argparse.Namespace) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise InputError("readwell serve needs the serve extra: pip install 'readwell[serve]'") from None
    run(config_from_args(a))
    return 0
