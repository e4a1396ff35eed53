/**
 * Bundle the compiled CLI (dist/src, tsc's output) into dist/cli, which bin/shopsync.js starts.
 *
 * Why: a `shopsync sync` loaded about 630 ES modules one by one, and resolving, reading and
 * compiling them was most of its 0.8 s of CPU at every start (docs/development.md, "Start-up").
 * esbuild puts the project and its pure-JavaScript dependencies into a few chunks; the dynamic
 * imports stay chunk boundaries, so a command still loads only what it uses.
 *
 * What stays outside: packages that find files of their own at run time or start workers from
 * file paths (native addons, pino's transports, the job engine's migrations, the web server and
 * its plugins), and the drivers a connection loads when it opens.
 *
 * `import.meta.url` is rewritten per file to the URL of the file tsc wrote, so every path a module
 * finds relative to itself (migrations, mappings, schemas, package.json) stays what it was.
 */
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');
const entry = join(root, 'dist', 'src', 'cli', 'main.js');

/** Packages loaded as they are installed (see above for why). */
const external = [
  'better-sqlite3',
  'pg',
  'pg-native',
  'pg-cursor',
  'pg-query-stream',
  'mysql2',
  'graphile-worker',
  'pino',
  'pino-pretty',
  'thread-stream',
  'fastify',
  '@fastify/*',
];

/** Rewrite `import.meta.url` in the project's own files to the URL of the file as tsc wrote it. */
const ownUrls = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/]src[\\/].*\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'js' };
      const rel = relative(outdir, args.path).split(sep).join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'js' };
    });
  },
};

/**
 * zod's `locales` namespace (`z.locales.de()` and 60 others, 370 kB: a tenth of what a command
 * compiled at start) down to English, the one zod configures itself with. shopsync never switches
 * the language of zod's messages.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: join(dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-locales' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), 'en.js'))};`, loader: 'js', resolveDir: dirname(args.path) }));
  },
};

await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: entry },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  plugins: [ownUrls, zodEnglishOnly],
  // Bundled CommonJS packages call require(); ES modules have none of their own.
  banner: { js: "import { createRequire as __shopsyncRequire } from 'node:module'; const require = __shopsyncRequire(import.meta.url);" },
  // One folder: every chunk's import.meta.url has the same base as the rewritten paths.
  chunkNames: '[name]-[hash]',
  legalComments: 'none',
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
