// Builds the server (tsc) and the in-page script (esbuild, one IIFE string run by every driver).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';

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
