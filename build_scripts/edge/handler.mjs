// `export default { fetch(request) }` for edge runtimes: the routes, limits and JSON of `readwell serve`
// (py_core/readwell/serve.py), over an engine from engine.mjs. Runtime-neutral: Request/Response only.
//
//   POST /extract   raw HTML body (?url= the page's URL, options as query parameters) or
//                   Content-Type: application/json {"html", "url", "options"}
//   GET  /extract?url=   501: this handler does not fetch (no address checks possible, so no SSRF guard)
//   GET  /stages    the pipeline stages in order
//   GET  /healthz   liveness; never loads the engine, never needs the token
//
// Limits, as serve: body size (413), request target (414), headers (431), a deadline per request through the
// core's deadline_ms (504), bearer token when configured (401). Not here: serve's worker pool and its 503
// queue (an isolate runs one extraction at a time; the platform scales isolates) and 408 for slow bodies
// (the runtime buffers and times out requests itself).

// Same numbers as py_core/readwell/serve.py.
export const LIMITS = Object.freeze({
  maxBody: 10 * 1024 * 1024,
  deadlineMs: 30_000,
  maxHeaderBytes: 16 * 1024,
  maxHeaders: 100,
  maxTargetBytes: 8 * 1024,
});

/** Limits from configuration strings (workerd bindings, environment variables): READWELL_MAX_BODY (bytes) and
 * READWELL_DEADLINE_MS, like serve's --max-body and --deadline. Missing or empty: the default. */
export function limitsFrom(get) {
  const limits = {};
  for (const [name, key] of [['READWELL_MAX_BODY', 'maxBody'], ['READWELL_DEADLINE_MS', 'deadlineMs']]) {
    const raw = get(name);
    if (raw === undefined || raw === null || raw === '') continue;
    if (!/^\d+$/.test(String(raw)) || Number(raw) < 1) throw new TypeError(`readwell edge: ${name} must be a positive integer, not ${raw}`);
    limits[key] = Number(raw);
  }
  return limits;
}

/** serve's error body: Python's json.dumps({"error": message, "status": status}) + newline, byte for byte. */
export function errorBody(status, message) {
  const ascii = JSON.stringify(String(message)).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `{"error": ${ascii}, "status": ${status}}\n`;
}

class HttpError extends Error {
  constructor(status, message, headers = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

const json = (status, body, headers = {}) =>
  new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });

/** The whole body, refused past `limit` bytes (413) whether or not Content-Length says so. */
async function readBody(request, limit) {
  const declared = request.headers.get('content-length');
  if (declared !== null) {
    if (!/^\s*\d+\s*$/.test(declared)) throw new HttpError(400, 'invalid Content-Length');
    if (Number(declared) > limit) throw new HttpError(413, `body larger than ${limit} bytes`);
  }
  if (!request.body) return new Uint8Array(0);
  const chunks = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      throw new HttpError(413, `body larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function checkHead(request, url, limits) {
  let count = 0;
  let bytes = 0;
  for (const [name, value] of request.headers) {
    count += 1;
    bytes += name.length + value.length;
  }
  if (count > limits.maxHeaders || bytes > limits.maxHeaderBytes) {
    throw new HttpError(431, `headers over ${limits.maxHeaders} lines or ${limits.maxHeaderBytes} bytes`);
  }
  if (url.pathname.length + url.search.length > limits.maxTargetBytes) {
    throw new HttpError(414, `request target over ${limits.maxTargetBytes} bytes`);
  }
}

function authorize(request, token) {
  if (!token) return;
  const [scheme, ...rest] = (request.headers.get('authorization') || '').split(' ');
  const given = new TextEncoder().encode(rest.join(' ').trim());
  const want = new TextEncoder().encode(token);
  let diff = given.length ^ want.length; // compare every byte: no early exit that times the secret
  for (let i = 0; i < Math.max(given.length, want.length); i++) diff |= (given[i] ?? 0) ^ (want[i] ?? 0);
  if (scheme.toLowerCase() !== 'bearer' || diff !== 0) {
    throw new HttpError(401, 'missing or wrong bearer token', { 'www-authenticate': 'Bearer' });
  }
}

const ROUTES = { '/extract': ['GET', 'POST'], '/stages': ['GET'], '/healthz': ['GET'] };

/**
 * The fetch handler. getEngine(): Promise of an engine from engine.mjs (called on the first request that
 * needs it; workerd allows no I/O at global scope). options: { token, limits (see LIMITS), health (a function
 * whose object /healthz adds: the host's own counters) }.
 */
export function createHandler(getEngine, options = {}) {
  const limits = { ...LIMITS, ...(options.limits || {}) };
  const state = { served: 0, engine: null, loading: null, python: null };

  async function python() {
    if (state.python) return state.python;
    if (!state.loading) {
      state.loading = Promise.resolve()
        .then(getEngine)
        .then((engine) => {
          state.engine = engine;
          state.python = engine.pyodide.pyimport('readwell_edge');
          return state.python;
        });
      state.loading.catch(() => {
        state.loading = null; // the next request tries again
      });
    }
    return state.loading;
  }

  async function extract(request, url) {
    let started = Date.now();
    if (request.method === 'GET') {
      if (!url.searchParams.get('url')) throw new HttpError(400, 'GET /extract needs ?url=');
      throw new HttpError(501, 'this edge handler does not fetch URLs (no address checks are possible here, so no SSRF protection): POST the page\'s HTML with ?url= or as JSON {html, url}');
    }
    const body = await readBody(request, limits.maxBody);
    const waiting = Date.now();
    const py = await python();
    started += Date.now() - waiting; // loading the engine (first request of an isolate) is not the request's time
    const left = limits.deadlineMs - (Date.now() - started);
    if (left <= 0) throw new HttpError(504, `no answer within the ${limits.deadlineMs / 1000} s deadline`);
    const query = JSON.stringify([...url.searchParams]);
    const [status, text] = JSON.parse(py.extract(body, request.headers.get('content-type') || '', query, left));
    if (status === 200) state.served += 1;
    return json(status, text);
  }

  async function route(request) {
    const url = new URL(request.url);
    checkHead(request, url, limits);
    const methods = ROUTES[url.pathname];
    if (!methods) throw new HttpError(404, 'Not Found');
    if (!methods.includes(request.method)) throw new HttpError(405, 'Method Not Allowed', { allow: methods.join(', ') });
    if (url.pathname === '/healthz') {
      const body = { status: 'ok', engine: state.python ? 'loaded' : 'not loaded', served: state.served };
      if (state.engine) {
        body.engine_load_ms = Math.round(state.engine.loadMs);
        body.from_snapshot = state.engine.fromSnapshot;
        const heap = state.engine.pyodide._module && state.engine.pyodide._module.HEAPU8;
        if (heap) body.wasm_heap_bytes = heap.length; // the isolate's largest piece of memory
      }
      if (options.health) Object.assign(body, options.health());
      return json(200, JSON.stringify(body) + '\n');
    }
    authorize(request, options.token);
    if (url.pathname === '/stages') return json(200, (await python()).stages_json());
    return extract(request, url);
  }

  return {
    async fetch(request) {
      try {
        return await route(request);
      } catch (err) {
        if (err instanceof HttpError) return json(err.status, errorBody(err.status, err.message), err.headers);
        console.error('readwell edge: internal error:', err && err.stack ? err.stack : err); // for the operator
        return json(500, errorBody(500, `internal error: ${err && err.name ? err.name : 'Error'}`));
      }
    },
  };
}
