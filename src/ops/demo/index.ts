/**
 * `shopsync demo`: the sandbox shop in-process, a sample German ERP under `state/demo/`, the
 * shipped pipelines on a short schedule, the dashboard, a customer who orders now and then and
 * a clerk who ships — so one command shows the whole round trip. Starting it again reuses the
 * same shop, ERP and state.
 */
import { prepareDemoShop } from './shop.js';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseConfigText } from '../../config/index.js';
import { ConfigError, errorLine } from '../../errors.js';
import type { Logger } from '../../log.js';
import { startSandbox, type SandboxHandle } from '../../sandbox/index.js';
import { startDaemon, type Daemon } from '../daemon.js';
import { shippedMappingsDir } from '../runtime.js';
import { startClerk, startShopper, type Activity, type Say } from './activity.js';
import { demoConfig, DEMO_ORDER } from './config.js';
import { createDemoErp } from './erp.js';
import { narrate } from './narrate.js';

/** Options of `startDemo`. */
export interface DemoOptions {
  /** Folder of everything the demo keeps. @default state/demo */
  readonly dir?: string;
  /** Dashboard port; 0 = free. @default 8080 (a free one when taken) */
  readonly port?: number;
  /** Sandbox port; 0 = free. @default 8081 (a free one when taken) */
  readonly sandboxPort?: number;
  /** Seconds between scheduled pipeline runs. @default 10 */
  readonly intervalSec?: number;
  /** Seconds between demo orders. @default 20 */
  readonly orderEverySec?: number;
  readonly logger: Logger;
  /** Where the running commentary goes (one line per call). */
  readonly say: Say;
  readonly version?: string;
}

/** A running demo. */
export interface Demo {
  readonly dashboardUrl: string;
  readonly sandboxUrl: string;
  readonly token: string;
  readonly dir: string;
  close(): Promise<void>;
}

const DEFAULT_DASHBOARD_PORT = 8080;
const DEFAULT_SANDBOX_PORT = 8081;

function inUse(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'EADDRINUSE' || (err instanceof ConfigError && err.key === 'dashboard.port');
}

/** Try the port; when it is the default and taken, take a free one instead. */
async function onPort<T>(port: number | undefined, fallbackFrom: number, start: (port: number) => Promise<T>): Promise<T> {
  try {
    return await start(port ?? fallbackFrom);
  } catch (err) {
    if (port === undefined && inUse(err)) return start(0);
    throw err;
  }
}

/** Start the demo and resolve once everything listens (the first pass of runs continues in the background). */
export async function startDemo(o: DemoOptions): Promise<Demo> {
  const dir = resolve(o.dir ?? join('state', 'demo'));
  const interval = o.intervalSec ?? 10;
  mkdirSync(dir, { recursive: true });
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const c of closers.reverse()) await c().catch((err: unknown) => o.logger.error({ err }, 'demo shutdown step failed'));
    closers.length = 0;
  };
  try {
    const sandboxDb = join(dir, 'sandbox.sqlite');
    const fresh = !existsSync(sandboxDb);
    const sandbox: SandboxHandle = await onPort(o.sandboxPort, DEFAULT_SANDBOX_PORT, (port) =>
      startSandbox({ port, dbPath: sandboxDb, ...(fresh ? { seed: 'empty' as const } : {}), logger: o.logger }),
    );
    closers.push(() => sandbox.close());
    if (fresh) await prepareDemoShop(sandbox);

    const mappingsDir = shippedMappingsDir();
    const erp = await createDemoErp(dir, join(mappingsDir, 'orders-to-erp.yaml'));
    const env = { ...process.env, SANDBOX_URL: sandbox.url, SANDBOX_TOKEN: sandbox.token };
    const file = join(dir, 'shopsync.yaml');
    const daemon: Daemon = await onPort(o.port, DEFAULT_DASHBOARD_PORT, async (port) => {
      const text = demoConfig({ mappingsDir, intervalSec: interval, dashboardPort: port });
      writeFileSync(file, text);
      return startDaemon(parseConfigText(text, file, { env }), { logger: o.logger, startSchedule: false, version: o.version });
    });
    closers.push(async () => void (await daemon.close()));
    const stopNarrating = narrate(daemon.runtime.events, o.say);
    closers.push(async () => stopNarrating());

    o.say(`Dashboard:     ${daemon.url}`);
    o.say(`Sandbox shop:  ${sandbox.url}  (token: ${sandbox.token})`);
    o.say(`Demo ERP:      ${dir}  (erp.sqlite, CSV inbox in inbox/, Windows-1252 exports in export/, config shopsync.yaml, log demo.log)`);
    o.say(`Pipelines run every ${interval} s; a customer orders every ${o.orderEverySec ?? 20} s; Ctrl-C stops.`);

    let closing = false;
    const activities: Activity[] = [];
    // First pass in dependency order (categories and manufacturers before products…), then the clock.
    const firstPass = (async () => {
      for (const name of DEMO_ORDER) {
        if (closing) return;
        if (!daemon.runtime.loaded.config.pipelines.some((p) => p.name === name)) continue;
        await daemon.scheduler.runNow(name).catch((err: unknown) => o.say(`${name.padEnd(16)} could not run: ${errorLine(err)}`));
      }
      if (closing) return;
      // The weekly reconciliation once now, so the dashboard's Reconcile page has a report from the start.
      await daemon.scheduler.runNow('products#reconcile').catch((err: unknown) => o.say(`reconcile         could not run: ${errorLine(err)}`));
      if (closing) return;
      daemon.startSchedule();
      activities.push(startShopper(sandbox, (o.orderEverySec ?? 20) * 1000, o.say));
      activities.push(startClerk(erp.database, Math.max(2, Math.floor(interval / 2)) * 1000, interval * 1000, o.say));
    })();
    closers.push(async () => {
      closing = true;
      for (const a of activities) await a.close();
    });
    // Registered last, so it runs first on close: the scheduler must not wait for a pass that waits for it.
    closers.push(async () => {
      closing = true;
    });
    void firstPass;

    return {
      dashboardUrl: daemon.url,
      sandboxUrl: sandbox.url,
      token: sandbox.token,
      dir,
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
