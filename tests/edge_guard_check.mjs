// Drives build/edge/fetch_guard.mjs for tests/test_edge.py: the address classes of the hosts given on stdin,
// and guardedFetch against a stub of the runtime's fetch (redirects, caps, timeout). Prints JSON.
//   node tests/edge_guard_check.mjs build/edge/fetch_guard.mjs < {"hosts": [...]}
import { pathToFileURL } from 'node:url';

const g = await import(pathToFileURL(process.argv[2]).href);
const input = JSON.parse(await new Promise((ok) => { let s = ''; process.stdin.on('data', (d) => (s += d)); process.stdin.on('end', () => ok(s)); }));
const out = { classes: input.hosts.map((h) => g.addressRefusal(h)) };
const hops = [];
const stub = (routes) => async (url, init) => {
  hops.push(url);
  if (init.redirect !== 'manual') throw new Error('redirects must be manual');
  const r = routes(url);
  if (r === 'hang') return new Promise((_, fail) => init.signal.addEventListener('abort', () => fail(new Error('aborted'))));
  return new Response(r.body ?? '', { status: r.status ?? 200, headers: r.headers ?? {} });
};
async function attempt(url, routes, limits) {
  hops.length = 0;
  try {
    const page = await g.guardedFetch(url, { fetch: stub(routes), limits });
    return { ok: page.finalUrl, bytes: page.body.length, hops: [...hops] };
  } catch (err) {
    return { error: err.constructor.name, message: err.message, hops: [...hops] };
  }
}
out.redirect_to_loopback = await attempt('https://example.org/a', (u) =>
  u === 'https://example.org/a' ? { status: 302, headers: { location: 'http://0x7f000001:8080/admin' } } : { body: 'x' });
out.redirect_ok = await attempt('https://example.org/a', (u) =>
  u === 'https://example.org/a' ? { status: 301, headers: { location: '/b' } } : { body: '<p>b</p>' });
out.too_many = await attempt('https://example.org/0', (u) => ({ status: 307, headers: { location: `/${Number(u.split('/').pop()) + 1}` } }));
out.too_big = await attempt('https://example.org/big', () => ({ body: 'x'.repeat(2000) }), { maxBytes: 1000 });
out.too_slow = await attempt('https://example.org/slow', () => 'hang', { timeoutMs: 50 });
out.to_file = await attempt('https://example.org/a', () => ({ status: 302, headers: { location: 'file:///etc/passwd' } }));
console.log(JSON.stringify(out));
