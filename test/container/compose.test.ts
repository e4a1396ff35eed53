/**
 * The compose examples merchants start from (examples/docker-compose.yml: one container with its
 * SQLite state on a volume; examples/replicas: three replicas on PostgreSQL) are valid YAML that
 * compose can interpolate, mount files and folders that exist, and hand shopsync a config that
 * loads, whose state and folders lie on the volumes they mount, with a grace period longer than
 * the daemon's and a health check at the dashboard's port. No Docker engine here: the compose
 * files are read, not started (test/container/image.test.ts runs the image itself).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLES = ['examples/docker-compose.yml', 'examples/replicas/docker-compose.yml'];

/** Sample values for every variable the examples' `${VAR:?…}` require. */
const SAMPLE_ENV: Record<string, string> = {
  SHOP_URL: 'https://shop.example.com/api',
  SHOP_TOKEN: 'shop-token',
  DASHBOARD_TOKEN: 'd'.repeat(32),
  ERP_DB_HOST: 'erp.example.lan',
  ERP_DB_PASSWORD: 'erp-password',
  ERP_EXCHANGE_DIR: '/srv/erp-exchange',
};

/** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR?error}, $$. */
function interpolate(text: string, env: Record<string, string>, required: Set<string>): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (whole, name: string | undefined, op: string | undefined, arg: string | undefined) => {
    if (whole === '$$') return '$';
    const value = env[name!];
    const unset = value === undefined || (op?.startsWith(':') && value === '');
    if (op?.endsWith('?')) {
      required.add(name!);
      if (unset) throw new Error(`compose would refuse to start: ${name} is required (${arg})`);
    }
    if (unset) return op?.endsWith('-') ? (arg ?? '') : '';
    return value!;
  });
}

interface Service {
  build?: string | { context: string };
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

/** The compose file as compose reads it: YAML with merge keys, interpolated with SAMPLE_ENV. */
function readCompose(file: string): { compose: Compose; required: Set<string>; text: string } {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const required = new Set<string>();
  const doc = parseDocument(interpolate(text, SAMPLE_ENV, required), { merge: true, uniqueKeys: true });
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  expect(doc.warnings.map((e) => e.message)).toEqual([]);
  return { compose: doc.toJS() as Compose, required, text };
}

/** `40s`, `1m30s`, `500ms` → milliseconds (compose's duration form). */
function durationMs(value: string): number {
  let ms = 0;
  for (const [, n, unit] of value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) ms += Number(n) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
  return ms;
}

/** The HEALTHCHECK's URL in the image: the Dockerfile's SHOPSYNC_HEALTH_URL. */
function imageHealthUrl(): URL {
  const m = /SHOPSYNC_HEALTH_URL=(\S+)/.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  return new URL(m![1]!);
}

/** True when `path` (in the container) lies at or below `dir`. */
const below = (path: string, dir: string) => path === dir || path.startsWith(`${dir.replace(/\/$/, '')}/`);

describe.each(EXAMPLES)('%s', (file) => {
  const dir = dirname(join(ROOT, file));
  const { compose, required, text } = readCompose(file);
  const shopsyncs = Object.entries(compose.services).filter(([, s]) => s.image === 'shopsync');

  it('is valid YAML that compose can interpolate, and names every variable it requires in its header', () => {
    expect(shopsyncs.length).toBeGreaterThan(0);
    const header = text.split('\n').filter((l) => l.startsWith('#')).join('\n');
    for (const name of required) expect(header, `the header's command sets ${name}`).toContain(`${name}=`);
  });

  it('builds the image from the repository, and mounts files that exist and volumes it declares', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      if (s.build !== undefined) {
        const context = resolve(dir, typeof s.build === 'string' ? s.build : s.build.context);
        expect(existsSync(join(context, 'Dockerfile')), `${name}: build context ${context} has a Dockerfile`).toBe(true);
      }
      for (const volume of s.volumes ?? []) {
        const [source, target] = volume.split(':') as [string, string];
        expect(isAbsolute(target), `${name}: ${volume} mounts at an absolute path`).toBe(true);
        if (source.startsWith('.')) expect(existsSync(resolve(dir, source)), `${name}: ${source} exists beside the compose file`).toBe(true);
        else if (!source.startsWith('/')) expect(Object.keys(compose.volumes ?? {}), `${name}: volume ${source} is declared`).toContain(source);
        // An absolute source came from a variable the operator sets (ERP_EXCHANGE_DIR…).
      }
    }
  });

  it.each(shopsyncs.map(([name]) => name))('%s runs shopsync with a config that loads, state and folders on its mounts', (name) => {
    const s = compose.services[name]!;
    if (s.command) expect(s.command).toEqual(['shopsync', 'run']);
    const mounts = (s.volumes ?? []).map((v) => v.split(':') as [string, string, string?]);
    const configMount = mounts.find(([, target]) => target === '/app/shopsync.yaml');
    expect(configMount, 'the config is mounted at /app/shopsync.yaml (SHOPSYNC_CONFIG)').toBeDefined();
    expect(configMount![2]).toBe('ro');
    // Loaded where the container sees it, so its relative paths resolve as in the container.
    const loaded = parseConfigText(readFileSync(resolve(dir, configMount![0]), 'utf8'), '/app/shopsync.yaml', { env: s.environment ?? {} });
    const { config } = loaded;
    const writable = mounts.filter(([, , mode]) => mode !== 'ro').map(([, target]) => target);

    const state = loaded.state;
    if (state.kind === 'sqlite') expect(writable.some((t) => below(state.path, t)), `state ${state.path} lies on a writable mount`).toBe(true);
    for (const [conn, c] of Object.entries(config.connections)) {
      if (c.kind !== 'files') continue;
      const folder = posix.resolve('/app', c.folder);
      expect(writable.some((t) => below(folder, t)), `connection ${conn}: ${folder} lies on a writable mount`).toBe(true);
    }

    expect(s.stop_grace_period, 'stop_grace_period (compose waits only 10 s by default)').toBeDefined();
    expect(durationMs(s.stop_grace_period!)).toBeGreaterThan(config.daemon.shutdownGraceMs);

    const health = s.healthcheck ? new URL(/https?:\/\/[^'"\s)]+/.exec(s.healthcheck.test.join(' '))![0]) : imageHealthUrl();
    expect(health.hostname).toBe('127.0.0.1');
    expect(Number(health.port)).toBe(config.dashboard.port);
    expect(['/healthz', '/readyz']).toContain(health.pathname);

    for (const port of s.ports ?? []) {
      expect(Number(port.split(':').at(-1)), `${port} publishes the dashboard's port`).toBe(config.dashboard.port);
      expect(config.dashboard.host, 'a published dashboard binds beyond loopback (with a token)').not.toMatch(/^(127\.|localhost$|::1$)/);
    }
  });
});
