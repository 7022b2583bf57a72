// `export default { fetch(request) }` for edge runtimes: the routes, limits and JSON of `readwell serve`
// (py_core/readwell/serve.py), over an engine from engine.mjs. Runtime-neutral: Request/Response only.
//
//   POST /extract   raw HTML body (?url= the page's URL, options as query parameters) or
//                   Content-Type: application/json {"html" | "url", "options"} (no html: the url is fetched)
//   GET  /extract?url=   fetch the page (fetch_guard.mjs: serve's refusals where an isolate can check them)
//   GET  /stages    the pipeline stages in order
//   GET  /healthz   liveness, queue state; never loads the engine, never needs the token
//
// Limits, as serve: body size (413), request target (414), headers (431), a deadline per request through the
// core's deadline_ms (504), bearer token when configured (401), a bounded queue (503 with Retry-After when
// full): one job at a time per isolate (an extraction holds the isolate's only thread; a URL job also holds
// its slot while the page downloads) and READWELL_QUEUE more waiting (default 4, serve's per worker).
// Fetch failures: 422 for a refused URL, 502 upstream, as serve. Not here: 408 for slow bodies (the runtime
// buffers and times out requests itself).
import { FetchFailed, FetchRefused, guardedFetch, readStream } from './fetch_guard.mjs';

// Same numbers as py_core/readwell/serve.py.
export const LIMITS = Object.freeze({
  maxBody: 10 * 1024 * 1024,
  deadlineMs: 30_000,
  maxHeaderBytes: 16 * 1024,
  maxHeaders: 100,
  maxTargetBytes: 8 * 1024,
  queue: 4,
});
const CONCURRENCY = 1; // per isolate: Python runs on the isolate's one thread

const NUMBERS = [
  ['READWELL_MAX_BODY', 'maxBody', 1],
  ['READWELL_DEADLINE_MS', 'deadlineMs', 1],
  ['READWELL_QUEUE', 'queue', 0],
];

/** Limits from configuration strings (workerd bindings, environment variables): READWELL_MAX_BODY (bytes),
 * READWELL_DEADLINE_MS and READWELL_QUEUE, like serve's --max-body, --deadline and --queue. Missing or
 * empty: the default. */
export function limitsFrom(get) {
  const limits = {};
  for (const [name, key, least] of NUMBERS) {
    const raw = get(name);
    if (raw === undefined || raw === null || raw === '') continue;
    if (!/^\d+$/.test(String(raw)) || Number(raw) < least) throw new TypeError(`readwell edge: ${name} must be an integer >= ${least}, not ${raw}`);
    limits[key] = Number(raw);
  }
  return limits;
}

/** READWELL_ALLOW_PRIVATE, like serve's --allow-private: 1/true/yes lets fetched URLs name private hosts. */
export function allowPrivateFrom(get) {
  return ['1', 'true', 'yes'].includes(String(get('READWELL_ALLOW_PRIVATE') ?? '').toLowerCase());
}

const POLL_MS = 5;
const GRACE_MS = 1000;
const LOAD_ALLOWANCE_MS = 300_000; // a running place while the engine loads (not the request's time)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * At most `concurrency` jobs running and `queue` waiting; past that, 503 with Retry-After (serve's answer).
 * A waiting request polls (every 5 ms) instead of being woken by the request that finishes: workerd cancels a
 * request whose only pending promise belongs to another request ("hung"), so each waits on its own timer.
 * Every place, running or waiting, expires with its request's deadline (plus a second): a request the
 * runtime cancels mid-way (a client gone, in workerd) runs no `finally`, and must not hold a place forever.
 */
export function createGate(concurrency, queue, now = Date.now) {
  let running = [];
  let waiting = [];
  const prune = () => {
    const t = now();
    running = running.filter((p) => p.expires > t);
    waiting = waiting.filter((p) => p.expires > t);
  };
  return {
    get busy() {
      prune();
      return running.length;
    },
    get queued() {
      prune();
      return waiting.length;
    },
    capacity: concurrency + queue,
    async run(job, expires) {
      prune();
      if (running.length + waiting.length >= concurrency + queue) {
        throw new HttpError(503, 'too many requests in progress; retry shortly', { 'retry-after': '1' });
      }
      const place = { expires: expires + GRACE_MS };
      if (running.length >= concurrency || waiting.length) {
        waiting.push(place);
        try {
          for (;;) {
            await sleep(POLL_MS);
            prune();
            if (running.length < concurrency && waiting[0] === place) break;
            if (!waiting.includes(place)) throw new HttpError(504, 'no answer within the deadline (queued)');
          }
        } finally {
          waiting = waiting.filter((p) => p !== place);
        }
      }
      running.push(place);
      try {
        return await job(place);
      } finally {
        running = running.filter((p) => p !== place);
      }
    },
  };
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
  return readStream(request.body, limit, () => new HttpError(413, `body larger than ${limit} bytes`));
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
 * needs it; workerd allows no I/O at global scope). options: { token, limits (see LIMITS), allowPrivate,
 * fetch (the runtime's, default globalThis.fetch), health (a function whose object /healthz adds: the host's
 * own counters) }.
 */
export function createHandler(getEngine, options = {}) {
  const limits = { ...LIMITS, ...(options.limits || {}) };
  const state = { served: 0, engine: null, loading: null, python: null };
  const gate = createGate(CONCURRENCY, limits.queue);

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
    let body = null;
    if (request.method === 'GET') {
      if (!url.searchParams.get('url')) throw new HttpError(400, 'GET /extract needs ?url=');
    } else {
      body = await readBody(request, limits.maxBody);
    }
    const job = async (place) => {
      const loading = Date.now();
      place.expires = loading + LOAD_ALLOWANCE_MS;
      const py = await python();
      started += Date.now() - loading; // loading the engine (first request of an isolate) is not the request's time
      place.expires = started + limits.deadlineMs + GRACE_MS;
      const left = () => {
        const ms = limits.deadlineMs - (Date.now() - started);
        if (ms <= 0) throw new HttpError(504, `no answer within the ${limits.deadlineMs / 1000} s deadline`);
        return ms;
      };
      const query = JSON.stringify([...url.searchParams]);
      const type = request.headers.get('content-type') || '';
      let [status, text] = JSON.parse(body === null ? py.fetch_job(query) : py.extract(body, type, query, left()));
      if (status === 0) {
        const wanted = JSON.parse(text); // {fetch: url, options}: checked by Python, fetched here
        const page = await fetchPage(wanted.fetch, left());
        const optionsJson = JSON.stringify(wanted.options);
        [status, text] = JSON.parse(py.extract_fetched(page.body, page.contentType, page.finalUrl, optionsJson, left()));
      }
      if (status === 200) state.served += 1;
      return json(status, text);
    };
    return gate.run(job, started + limits.deadlineMs);
  }

  async function fetchPage(target, timeoutMs) {
    try {
      return await guardedFetch(target, { allowPrivate: Boolean(options.allowPrivate), fetch: options.fetch, timeoutMs });
    } catch (err) {
      if (err instanceof FetchRefused) throw new HttpError(422, err.message);
      if (err instanceof FetchFailed) throw new HttpError(502, err.message);
      throw err;
    }
  }

  async function route(request) {
    const url = new URL(request.url);
    checkHead(request, url, limits);
    const methods = ROUTES[url.pathname];
    if (!methods) throw new HttpError(404, 'Not Found');
    if (!methods.includes(request.method)) throw new HttpError(405, 'Method Not Allowed', { allow: methods.join(', ') });
    if (url.pathname === '/healthz') {
      const body = { status: 'ok', engine: state.python ? 'loaded' : 'not loaded', served: state.served };
      Object.assign(body, { busy: gate.busy, queued: gate.queued, capacity: gate.capacity });
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
