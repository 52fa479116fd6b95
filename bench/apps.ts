// The fixture apps the tasks run on, served from the test fixture server on loopback.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FixtureServer } from '../test/helpers/fixture-server.js';

const DIR = fileURLToPath(new URL('../../bench/apps/', import.meta.url));
const read = (name: string) => readFileSync(`${DIR}${name}`, 'utf8');

/** Every app page carries the same site header and footer, as real sites do. */
function withChrome(html: string): string {
  return html
    .replace('<!-- header -->', read('chrome-header.html'))
    .replace('<!-- footer -->', read('chrome-footer.html'));
}

const WORDS = (
  'latency cache edge origin request header policy region replica invalidation ' +
  'throughput budget client server bandwidth object purge shield tier hit ratio'
).split(' ');

/** Deterministic filler prose: the same article on every run. */
function paragraph(seed: number, sentences = 6): string {
  const out: string[] = [];
  let x = seed * 7919 + 13;
  for (let s = 0; s < sentences; s++) {
    const words: string[] = [];
    for (let w = 0; w < 14; w++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      words.push(WORDS[x % WORDS.length]);
    }
    out.push(words.join(' ').replace(/^./, (c) => c.toUpperCase()) + '.');
  }
  return out.join(' ');
}

function article(n: number, title: string, conclusion: string): string {
  const sections = Array.from({ length: 6 }, (_, s) => {
    const paras = Array.from(
      { length: 4 },
      (_, p) => `<p>${paragraph(n * 100 + s * 10 + p)}</p>`,
    ).join('');
    return `<h2>Part ${s + 1}: ${WORDS[(n + s) % WORDS.length]} and ${WORDS[(n + s + 5) % WORDS.length]}</h2>${paras}`;
  }).join('');
  const related = Array.from(
    { length: 15 },
    (_, i) =>
      `<li><a href="/article/r${i}.html">Related story ${i + 1}: ${WORDS[i % 20]} in practice</a></li>`,
  ).join('');
  const comments = Array.from(
    { length: 8 },
    (_, i) =>
      `<li><b>reader${i + 1}</b> <time>${i + 1} hours ago</time><p>${paragraph(n * 1000 + i, 2)}</p></li>`,
  ).join('');
  return withChrome(`<!doctype html>
<html><head><meta charset="utf-8"><title>${title} · Acme Blog</title><link rel="stylesheet" href="/style.css"></head>
<body><!-- header -->
<nav aria-label="Breadcrumb"><a href="/blog">Blog</a> › <a href="/blog/engineering">Engineering</a></nav>
<aside aria-label="Related"><h2>Related stories</h2><ul>${related}</ul>
<form aria-label="Newsletter" onsubmit="return false"><label>Email for the newsletter <input type="email"></label> <button>Subscribe</button></form></aside>
<main><article><h1>${title}</h1><p>By Grace Hopper · 12 minute read</p>${sections}
<h2>Conclusion</h2><p>${conclusion}</p></article>
<nav aria-label="Articles"><a href="/article/${n - 1}.html">Previous article</a> <a href="/article/${n + 1}.html">Next article</a></nav>
<section aria-label="Comments"><h2>Comments (8)</h2><ol>${comments}</ol></section></main>
<!-- footer --></body></html>`);
}

/** Serves every app on `server`; paths are those the tasks use. */
export function serveApps(server: FixtureServer): void {
  server.setContent('/style.css', read('style.css'));
  server.setContent('/blank.html', '<!doctype html><title>Blank</title><p>Ready</p>');
  const app = withChrome(read('app.html'));
  for (const route of ['login', 'dashboard', 'reports', 'customers', 'settings'])
    server.setContent(`/app/${route}`, app, 'text/html; charset=utf-8');
  for (const name of ['table', 'checkout', 'menu', 'settings', 'search', 'doc', 'modal'])
    server.setContent(`/${name}.html`, withChrome(read(`${name}.html`)));
  server.setContent('/menu/analytics.html', withChrome(read('analytics.html')));
  // Small pages without a site's chrome, as a sign-in form or a list app often are.
  for (const name of ['signin', 'account', 'todo'])
    server.setContent(`/${name}.html`, read(`${name}.html`));
  server.setContent('/settings-frame.html', read('settings-frame.html'));
  server.setContent(
    '/article/1.html',
    article(
      1,
      'Caching at the edge',
      'Teams that moved their hot paths to edge caching cut median latency by 42% and origin traffic by two thirds.',
    ),
  );
  server.setContent(
    '/article/2.html',
    article(
      2,
      'Caching at the edge, part two: invalidation',
      'Purge by tag, never by URL: it kept the hit ratio above 90% through every release.',
    ),
  );
}

/** A page of about `elements` elements, for timing the text-track walk. */
export function generatedPage(elements: number): string {
  const rows: string[] = [];
  for (let i = 0; rows.length * 10 < elements; i++) {
    rows.push(
      `<div class="card"><h3>Item ${i}</h3><p>Description of item ${i} with <b>bold</b> text</p>` +
        `<a href="/item/${i}">Open ${i}</a><button>Buy ${i}</button><input name="q${i}" value="v${i}">` +
        `<span>Tag</span><ul><li>one</li><li>two</li></ul></div>`,
    );
  }
  return `<!doctype html><html><head><title>Generated ${elements}</title></head><body><main>${rows.join('')}</main></body></html>`;
}
