// Builds the server (tsc), the in-page script (esbuild, one IIFE string run by every driver) and
// the operator console (esbuild, inlined into one page so it runs under the viewer's CSP).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const tsc = (project) =>
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project], {
    stdio: 'inherit',
  });

tsc('src/page/tsconfig.json');
mkdirSync('dist/page', { recursive: true });
await build({
  entryPoints: ['src/page/index.ts'],
  bundle: true,
  format: 'iife',
  globalName: '__swiftbrowsePage',
  target: 'es2022',
  minify: true,
  outfile: 'dist/page/injected.js',
  logLevel: 'warning',
});
tsc('tsconfig.json');

tsc('ui/admin/tsconfig.json');
const consoleBundle = await build({
  entryPoints: ['ui/admin/main.ts'],
  bundle: true,
  format: 'iife',
  target: 'es2022',
  minify: true,
  write: false,
  logLevel: 'warning',
});
// The script is its own file, so the page runs under the viewer's CSP (script-src 'self'); its
// path is relative, so it is found under a ROUTE_PREFIX too.
const style = readFileSync('ui/admin/console.css', 'utf8');
const page = readFileSync('ui/admin/index.html', 'utf8').replace('/* console.css */', () => style);
mkdirSync('dist/ui/admin', { recursive: true });
writeFileSync('dist/ui/admin/index.html', page);
writeFileSync('dist/ui/admin/console.js', consoleBundle.outputFiles[0].text);
