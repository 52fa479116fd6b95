import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Hono } from 'hono';
import { OpError } from '../../core/errors.js';

/**
 * The reference page's CSP: the viewer's (logs-routes.ts) plus `data:` images, which Swagger UI's
 * stylesheet draws its icons with. Scripts are this server's files only; nothing loads from a CDN;
 * no other page frames it (its Try it out sends requests with the token it was given).
 */
export const REFERENCE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Swagger UI's files, from the installed dependency (the package ships no copy of them). */
const SWAGGER_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

// Relative paths throughout, so the page works under ROUTE_PREFIX (it is served at reference/).
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>SwiftBrowse API reference</title>
<link rel="stylesheet" href="swagger-ui.css">
<link rel="icon" type="image/png" href="favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
const INIT = `window.ui = SwaggerUIBundle({
  url: '../openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
});
`;

/** `GET /reference/`: Swagger UI over /openapi.json, served offline from node_modules. */
export function mountReferencePage(app: Hono): void {
  app.get('/reference', (c) => c.redirect('reference/'));
  app.get('/reference/', (c) =>
    c.html(PAGE, 200, { 'content-security-policy': REFERENCE_CSP, 'cache-control': 'no-cache' }),
  );
  app.get('/reference/init.js', (c) =>
    c.body(INIT, 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'x-content-type-options': 'nosniff',
    }),
  );
  for (const [name, type] of Object.entries(ASSETS)) {
    app.get(`/reference/${name}`, async (c) => {
      let bytes: Buffer;
      try {
        bytes = await readFile(join(SWAGGER_DIR, name));
      } catch {
        throw new OpError(
          'not_found',
          `The reference page's ${name} is missing from ${SWAGGER_DIR}: reinstall swiftbrowse's dependencies (npm install). /openapi.json works without it.`,
        );
      }
      return c.body(new Uint8Array(bytes), 200, {
        'content-type': type,
        'x-content-type-options': 'nosniff',
        'cache-control': 'public, max-age=86400',
      });
    });
  }
}
