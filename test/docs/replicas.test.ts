/**
 * The replicas deployment example: the compose file parses, runs PostgreSQL and three replicas
 * wired the way docs/replicas.md says (names, ports, variables, readiness, grace period), and the
 * config they share loads with its state in PostgreSQL. No Docker engine here: the topology itself
 * runs as processes in test/jobs/replicas.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { ROOT } from './support/blocks.js';

const dir = join(ROOT, 'examples', 'replicas');
const doc = readFileSync(join(ROOT, 'docs', 'replicas.md'), 'utf8');
interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  depends_on?: Record<string, { condition: string }>;
}
const compose = parse(readFileSync(join(dir, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const replicas = Object.entries(compose.services).filter(([name]) => name.startsWith('shopsync-'));
const env = { SHOP_URL: 'https://shop.example.com/api', SHOP_TOKEN: 't', STATE_DATABASE_URL: 'postgres://shopsync:pw@postgres:5432/shopsync', DASHBOARD_TOKEN: 'd'.repeat(32), ERP_DB_HOST: 'erp', ERP_DB_PASSWORD: 'x' };
const config = parseConfigText(readFileSync(join(dir, 'shopsync.yaml'), 'utf8'), join(dir, 'shopsync.yaml'), { env }).config;

describe('the replicas compose example', () => {
  it('runs PostgreSQL and the three replicas the docs name, each `shopsync run` with its own name and port', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['postgres', 'shopsync-1', 'shopsync-2', 'shopsync-3']);
    expect(compose.services.postgres!.image).toMatch(/^postgres:/);
    for (const [name, s] of replicas) {
      expect(doc).toContain(`\`${name}\``);
      expect(s.command).toEqual(['shopsync', 'run']);
      expect(s.environment?.SHOPSYNC_REPLICA).toBe(name);
      expect(s.environment?.STATE_DATABASE_URL).toMatch(/@postgres:5432\//);
      expect(s.environment?.SHOP_URL).toMatch(/^\$\{SHOP_URL/);
      expect(s.depends_on?.postgres?.condition).toBe('service_healthy');
      expect(s.volumes).toContain('./shopsync.yaml:/app/shopsync.yaml:ro');
      expect(s.ports?.[0]).toMatch(new RegExp(`^80\\d\\d:${config.dashboard.port}$`));
    }
    expect(replicas.map(([, s]) => s.ports![0]!.split(':')[0])).toEqual(['8081', '8082', '8083']);
    expect(doc).toContain('ports 8081–8083');
  });

  it('checks readiness on /readyz and stops with more grace than the daemon needs to hand jobs back', () => {
    for (const [, s] of replicas) {
      expect(s.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${config.dashboard.port}/readyz`);
      expect(Number(/^(\d+)s$/.exec(s.stop_grace_period ?? '')?.[1]) * 1000).toBeGreaterThan(config.daemon.shutdownGraceMs);
    }
  });

  it('gives the replicas every variable the docs list, and the docs list every variable it needs', () => {
    const table = [...doc.matchAll(/^\| `([A-Z_]+)`(?:, `([A-Z_]+)`)? \|/gm)].flatMap((m) => [m[1], m[2]]).filter((v): v is string => v !== undefined);
    expect(table.sort()).toEqual(['DASHBOARD_TOKEN', 'ERP_DB_HOST', 'ERP_DB_PASSWORD', 'POSTGRES_PASSWORD', 'SHOPSYNC_REPLICA', 'SHOP_TOKEN', 'SHOP_URL', 'STATE_DATABASE_URL'].sort());
    const text = readFileSync(join(dir, 'docker-compose.yml'), 'utf8');
    for (const v of table) expect(text, v).toContain(v);
    for (const [, s] of replicas) for (const v of Object.keys(s.environment ?? {})) expect(table, `docs/replicas.md lists ${v}`).toContain(v);
  });

  it('shares a config whose state is in PostgreSQL, with the replica settings the docs show', () => {
    expect(config.state).toMatchObject({ kind: 'postgres', url: env.STATE_DATABASE_URL, schema: 'shopsync' });
    expect(config.replicas).toMatchObject({ deadAfterMs: 15000, heartbeatMs: 5000, concurrency: 4, maxAttempts: 5 });
    expect(config.dashboard.host).toBe('0.0.0.0');
    expect(readFileSync(join(dir, 'shopsync.yaml'), 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=../../schemas/shopsync.schema.json');
  });
});
