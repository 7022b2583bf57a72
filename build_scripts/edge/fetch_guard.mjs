// URL fetching for the edge handler with the refusals of readwell.fetch (the CPython SSRF fetcher) where an
// isolate can check them. Runtime-neutral: WHATWG URL and the runtime's fetch(), nothing else.
//
// Checked here, on every hop (the first URL and each redirect, fetched with redirect: "manual"):
//   - http and https only; no credentials in the URL;
//   - a host that is an IP address, in any spelling: the WHATWG URL parser (the one fetch() itself uses)
//     turns 2130706433, 0177.0.0.1, 0x7f.1 and 127.1 into 127.0.0.1 and IPv6 into its canonical form, and
//     the address is refused when it is unspecified, loopback, link-local (169.254.169.254), multicast,
//     private, reserved, shared (CGNAT) or otherwise not global, IPv4 inside IPv6 included (mapped, NAT64,
//     6to4, Teredo), unless allowPrivate;
//   - a host name reserved for local use: localhost and *.localhost, *.local (mDNS), *.localdomain,
//     *.internal, *.home.arpa, *.arpa, and single-label names (completed by the resolver's search list);
//   - caps: 5 redirects, 25 MiB of body, 20 s for the whole fetch (an AbortSignal), as readwell.fetch.
// Not checkable on an isolate: the addresses a host NAME resolves to. fetch() resolves and connects in one
// step and exposes neither the address nor a hook before connecting, so a public name that resolves to
// 127.0.0.1 (or rebinds to it) passes these checks. What stands in for that check is the runtime's own
// egress policy (see README "Edge"): workerd's network service filters resolved addresses (allow =
// ["public"], its default); Cloudflare's deployed Workers fetch from Cloudflare's network, not the
// operator's; Node and Deno have no such filter (use `readwell serve` there for untrusted URLs).

export const FETCH_LIMITS = Object.freeze({ maxBytes: 25 * 1024 * 1024, timeoutMs: 20_000, maxRedirects: 5 });
const USER_AGENT = 'Readwell/0.1 (+https://example.org/readwell)';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A URL the handler must not fetch (422, as readwell.fetch.FetchRefused and other InputErrors in serve). */
export class FetchRefused extends Error {}
/** The URL was fine but the fetch failed: network, HTTP status, size, time (502, as FetchFailed). */
export class FetchFailed extends Error {}

// [first address, prefix length, class]: checked in this order, the first match names the class. Each is a
// reason a server-side fetch must not reach the address (the host itself, its network, not a unicast host).
const V4 = [
  ['0.0.0.0', 32, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['224.0.0.0', 4, 'multicast'],
  ['0.0.0.0', 8, 'private'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['192.0.0.0', 24, 'private'], // IETF protocol assignments
  ['192.0.2.0', 24, 'private'], // documentation (TEST-NET-1..3)
  ['198.51.100.0', 24, 'private'],
  ['203.0.113.0', 24, 'private'],
  ['198.18.0.0', 15, 'private'], // benchmarking
  ['240.0.0.0', 4, 'reserved'], // and 255.255.255.255
  ['100.64.0.0', 10, 'shared (carrier-grade NAT)'],
  ['192.88.99.0', 24, 'non-global'], // deprecated 6to4 relay anycast
];
const V6 = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
  ['fc00::', 7, 'private'],
  ['2001:db8::', 32, 'private'], // documentation
  ['2001::', 23, 'private'], // IETF protocol assignments (Teredo, benchmarking, ORCHID)
  ['100::', 64, 'private'], // discard-only
  ['fec0::', 10, 'site-local'],
  ['::', 8, 'reserved'], // IPv4-compatible and the rest of ::/8 (mapped and NAT64 are judged by their IPv4)
];
const GLOBAL_V6 = ['2000::', 3]; // everything outside global unicast is reserved or one of the above

function v4Number(text) {
  const parts = text.split('.').map(Number);
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

function v4Text(n) {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** An IPv6 address in URL form (no brackets, no dotted tail: the URL parser writes hex) → BigInt. */
function v6Number(text) {
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === null ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  if (groups.length !== 8) throw new FetchRefused(`invalid IPv6 address: ${text}`);
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

const inV4 = (n, [base, bits]) => bits === 0 || n >>> (32 - bits) === v4Number(base) >>> (32 - bits);
const inV6 = (n, [base, bits]) => n >> BigInt(128 - bits) === v6Number(base) >> BigInt(128 - bits);

function refusalV4(n) {
  const hit = V4.find((r) => inV4(n, r));
  return hit ? hit[2] : null;
}

/** IPv4 addresses an IPv6 address carries: [kind, number] (6to4, Teredo server and client). */
function embeddedV4(n) {
  const found = [];
  if (inV6(n, ['2002::', 16])) found.push(Number((n >> 80n) & 0xffffffffn));
  if (inV6(n, ['2001::', 32])) found.push(Number((n >> 64n) & 0xffffffffn), Number(~n & 0xffffffffn));
  return found;
}

/** Why a fetch must not connect to the address `host` (URL form: dotted IPv4 or bracketed IPv6), or null. */
export function addressRefusal(host) {
  if (!host.startsWith('[')) return refusalV4(v4Number(host));
  const n = v6Number(host.slice(1, -1));
  const low = Number(n & 0xffffffffn);
  if (inV6(n, ['::ffff:0:0', 96]) || inV6(n, ['64:ff9b::', 96])) {
    const why = refusalV4(low);
    return why ? `${why} IPv4 ${v4Text(low)} inside IPv6` : null;
  }
  for (const inner of embeddedV4(n)) {
    const why = refusalV4(inner);
    if (why) return `${why} IPv4 ${v4Text(inner)} inside IPv6`;
  }
  const hit = V6.find((r) => inV6(n, r));
  if (hit) return hit[2];
  return inV6(n, GLOBAL_V6) ? null : 'reserved';
}

const LOCAL_SUFFIXES = ['localhost', 'local', 'localdomain', 'internal', 'home.arpa', 'arpa'];

/** Why a host NAME must not be fetched (reserved for local use), or null. */
export function nameRefusal(host) {
  const name = host.replace(/\.$/, '').toLowerCase();
  if (!name.includes('.')) return name === 'localhost' ? 'localhost' : 'single-label (local) host name';
  const suffix = LOCAL_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
  return suffix ? `reserved for local use (.${suffix})` : null;
}

const IPV4_HOST = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** Parse and check one hop's URL; FetchRefused for anything the handler must not fetch. */
export function checkUrl(raw, allowPrivate) {
  let url;
  try {
    url = new URL(String(raw).trim());
  } catch {
    throw new FetchRefused(`invalid URL ${JSON.stringify(String(raw))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefused(`only http(s) URLs can be fetched: ${JSON.stringify(String(raw))}`);
  }
  if (url.username || url.password) throw new FetchRefused(`URLs with credentials are not fetched: ${url.host}`);
  if (!url.hostname) throw new FetchRefused(`URL has no host: ${JSON.stringify(String(raw))}`);
  if (allowPrivate) return url;
  const literal = url.hostname.startsWith('[') || IPV4_HOST.test(url.hostname);
  const why = literal ? addressRefusal(url.hostname) : nameRefusal(url.hostname);
  if (why) {
    const what = literal ? `${why} address` : why;
    throw new FetchRefused(`refusing to fetch ${url.href}: ${what}`);
  }
  return url;
}

/**
 * The whole of a body stream, at most `limit` bytes: past it the stream is cancelled and `tooLarge()` (an
 * error to throw) ends the read. Shared by the page fetch and the handler's request bodies.
 */
export async function readStream(body, limit, tooLarge) {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      throw tooLarge();
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

async function readCapped(response, maxBytes, href) {
  const tooLarge = () => new FetchFailed(`page larger than ${maxBytes} bytes: ${href}`);
  if (Number(response.headers.get('content-length')) > maxBytes) throw tooLarge();
  return readStream(response.body, maxBytes, tooLarge);
}

/**
 * GET `raw`, following redirects by hand: { body (Uint8Array), contentType, finalUrl }. FetchRefused or
 * FetchFailed on any failure. options: { allowPrivate, fetch (the runtime's), limits (FETCH_LIMITS), timeoutMs }.
 */
export async function guardedFetch(raw, options = {}) {
  const limits = { ...FETCH_LIMITS, ...(options.limits || {}) };
  const doFetch = options.fetch || globalThis.fetch;
  const timeoutMs = Math.max(1, Math.min(limits.timeoutMs, options.timeoutMs ?? limits.timeoutMs));
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let current = String(raw);
  try {
    for (let hop = 0; hop <= limits.maxRedirects; hop++) {
      const url = checkUrl(current, Boolean(options.allowPrivate));
      let response;
      try {
        response = await doFetch(url.href, {
          method: 'GET',
          redirect: 'manual',
          signal: controller.signal,
          headers: { 'user-agent': USER_AGENT, accept: 'text/html,*/*;q=0.5' },
        });
      } catch (err) {
        if (controller.signal.aborted) throw new FetchFailed(`cannot fetch ${url.href}: no answer within ${timeoutMs / 1000} s`);
        throw new FetchFailed(`cannot fetch ${url.href}: ${err && err.message ? err.message : err}`);
      }
      if (REDIRECTS.has(response.status)) {
        const location = response.headers.get('location');
        response.body?.cancel().catch(() => {});
        if (!location) throw new FetchFailed(`cannot fetch ${url.href}: redirect without a Location`);
        current = new URL(location.trim(), url).href;
        continue;
      }
      if (response.status < 200 || response.status > 299) {
        response.body?.cancel().catch(() => {});
        throw new FetchFailed(`cannot fetch ${url.href}: HTTP ${response.status} ${response.statusText || ''}`.trimEnd());
      }
      try {
        const body = await readCapped(response, limits.maxBytes, url.href);
        return { body, contentType: response.headers.get('content-type') || '', finalUrl: url.href };
      } catch (err) {
        if (err instanceof FetchFailed) throw err;
        if (controller.signal.aborted) throw new FetchFailed(`cannot fetch ${url.href}: no answer within ${timeoutMs / 1000} s`);
        throw new FetchFailed(`cannot fetch ${url.href}: ${err && err.message ? err.message : err}`);
      }
    }
    throw new FetchFailed(`cannot fetch ${raw}: more than ${limits.maxRedirects} redirects`);
  } finally {
    clearTimeout(timer);
  }
}
