// A synthetic news page in the snapshot format (snapshot.js, layout: 'rules'), for warming the engine up in
// idle time (offscreen.js). Why: V8 runs Pyodide's wasm in a baseline tier first and compiles hot functions
// later, and Python fills its caches (regular expressions, selector tables) on first use, so the first
// extractions after a load take 2-4x the CPU of later ones; a page with the usual parts (navigation,
// article with figure, list, table and quote, related teasers, comments, footer, hidden banner, icon,
// tracking pixel, JSON-LD) reaches the same code paths as real pages. Deterministic, made up, example.org.

const WORDS = ['river', 'survey', 'bank', 'season', 'flood', 'sample', 'water', 'station', 'volunteer', 'record',
  'stone', 'bridge', 'meadow', 'current', 'winter', 'measure'];
const words = (seed, n) => Array.from({ length: n }, (_, k) => WORDS[(seed * 7 + k * 3) % WORDS.length]).join(' ');
const sentence = (seed) => {
  const s = words(seed, 14);
  return `${s[0].toUpperCase()}${s.slice(1)}.`;
};

/** The page as a snapshot object ({t, id, a, c, l?}); every call builds the same page with fresh objects. */
export function warmSnapshot() {
  let id = 0;
  const el = (t, a = {}, ...c) => ({ t, id: ++id, a, c: c.flat() });
  const hidden = (node) => Object.assign(node, { l: { display: 'none', visibility: 'visible', opacity: 1 } });
  const sized = (node, w, h) => Object.assign(node, { l: { w, h } });
  const jsonld = JSON.stringify({ '@context': 'https://schema.org', '@type': 'NewsArticle',
    headline: 'Counting the river in winter', author: { '@type': 'Person', name: 'A. Writer' },
    datePublished: '2024-02-03T08:00:00Z', publisher: { '@type': 'Organization', name: 'Example News' } });
  const head = el('head', {},
    el('meta', { charset: 'utf-8' }),
    el('title', {}, 'Counting the river in winter | Example News'),
    el('meta', { name: 'description', content: sentence(1) }),
    el('meta', { property: 'og:title', content: 'Counting the river in winter' }),
    el('link', { rel: 'canonical', href: 'https://example.org/news/river-winter' }),
    el('script', { type: 'application/ld+json' }, jsonld),
    el('style', {}, '.teaser { display: flex }'),
    el('script', {}, 'window.dataLayer = [];'));
  const nav = el('header', { class: 'site-header' },
    el('a', { href: '/', class: 'logo' }, sized(el('img', { src: '/logo.png', alt: 'Example News' }), 120, 32)),
    el('nav', { class: 'menu', 'aria-label': 'Sections' },
      el('ul', {}, Array.from({ length: 14 }, (_, i) => el('li', {}, el('a', { href: `/section/${i}` }, `Section ${i}`))))),
    sized(el('svg', { class: 'icon-search', viewBox: '0 0 16 16' }), 16, 16));
  const paragraphs = Array.from({ length: 24 }, (_, i) => {
    const p = el('p', {}, `${sentence(i)} `, el('a', { href: `/ref/${i}` }, words(i + 3, 3)), ` ${sentence(i + 1)} `,
      el(i % 2 ? 'em' : 'strong', {}, words(i + 5, 2)), ` ${sentence(i + 2)}`);
    return i % 8 === 7 ? [el('h2', { id: `part-${i}` }, `Part ${i}: ${words(i, 3)}`), p] : [p];
  }).flat();
  const article = el('article', { class: 'story' },
    el('h1', { class: 'headline' }, 'Counting the river in winter'),
    el('p', { class: 'byline' }, 'By A. Writer', el('time', { datetime: '2024-02-03' }, '3 February 2024')),
    el('figure', {}, sized(el('img', { src: '/photos/river.jpg', alt: 'The river in winter', width: '800', height: '450' }), 800, 450),
      el('figcaption', {}, 'The river below the old bridge. Photo: Example News')),
    paragraphs.slice(0, 10),
    el('blockquote', {}, el('p', {}, sentence(40))),
    el('ul', {}, Array.from({ length: 5 }, (_, i) => el('li', {}, sentence(50 + i)))),
    paragraphs.slice(10, 20),
    el('table', {}, el('tbody', {}, Array.from({ length: 4 }, (_, r) => el('tr', {},
      Array.from({ length: 3 }, (_, c) => el(r ? 'td' : 'th', {}, r ? String(r * 10 + c) : `Station ${c}`)))))),
    paragraphs.slice(20),
    sized(el('img', { src: 'https://pixel.example.org/t.gif?a=1', alt: '' }), 1, 1));
  const related = el('aside', { class: 'related' }, el('h3', {}, 'Related'),
    Array.from({ length: 8 }, (_, i) => el('div', { class: 'teaser' }, el('a', { href: `/news/${i}` },
      sized(el('img', { src: `/thumbs/${i}.jpg`, alt: '' }), 160, 90), el('span', {}, words(i + 9, 5))))));
  const comments = el('section', { class: 'comments', id: 'comments' }, el('h3', {}, 'Comments'),
    Array.from({ length: 5 }, (_, i) => el('div', { class: 'comment' }, el('p', { class: 'author' }, `Reader ${i}`),
      el('p', {}, sentence(60 + i)))));
  const footer = el('footer', { class: 'site-footer' }, el('p', {}, '© Example News'),
    el('ul', {}, Array.from({ length: 8 }, (_, i) => el('li', {}, el('a', { href: `/about/${i}` }, `Link ${i}`)))));
  const banner = hidden(el('div', { class: 'cookie-banner', role: 'dialog' }, el('p', {}, 'We use cookies.'),
    el('button', {}, 'Accept')));
  const body = el('body', { class: 'article-page' }, nav, el('main', {}, article, related), comments, footer, banner);
  return el('html', { lang: 'en' }, head, body);
}
