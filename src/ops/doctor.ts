/**
 * `shopsync doctor`: everything a new installation gets wrong, checked in one go: the config, each
 * pipeline's source and sink (reachable, readable, folders writable; a SQL sink's unique key, columns
 * and write privilege, and what it will do: src/erp/sql/sinkCheck.ts), the shop with its token, each
 * pipeline's resource and operation against the token's scopes (a read of one record, and a write
 * of zero records: the shop checks the scope before it looks at the body), the state (writable,
 * schema version), the clock against the shop's `Date` header, and each trigger against its
 * pipeline's source (what the daemon would refuse at start). Nothing is written to the shop or the ERP.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { connectionOrigin, shopsOf, type LoadedConfig, type PipelineConfig, type ShopConfig } from '../config/index.js';
import { createSink, createSource, inspectSink, type SinkCheck } from '../erp/index.js';
import { sinkFields } from './sinkFields.js';
import { errorLine } from '../errors.js';
import { checkSourceColumns } from './columns.js';
import { loadMapping } from '../mapping/index.js';
import { stockChoiceProblem } from '../reservations/choice.js';
import { shopStatusWarnings } from '../follow/guardCheck.js';
import { resolveMappingPath } from './runtime.js';
import { silentLogger, type Logger } from '../log.js';
import { getResource, type OperationDef } from '../shop/registry/index.js';
import type { SourceWatermark } from '../erp/types.js';
import { heldBackByRestore } from '../pipeline/rewind.js';
import { DEFAULT_SHOP, openState } from '../state/index.js';
import { triggerProblems } from '../triggers/index.js';
import { orphanedNotifyTriggers } from '../triggers/notify/orphans.js';
import { describeSkew, shopDateSkew, stateSkew } from '../clock/skew.js';

/** One check's result. */
export interface DoctorCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly pipeline?: string;
  /** The scope a pipeline lacks, for scope checks that failed. */
  readonly missingScope?: string;
}

/** Clock skew above this (ms) fails: delta cursors are capped at the shop's clock. */
const MAX_SKEW_MS = 60_000;

/**
 * This machine's clock against the state database's. Slots of the shared rate limit, heartbeats
 * and tick claims are stamped by the database, so a skew costs nothing there; but replicas far
 * apart claim one tick as different instants once the skew passes the claims' retention
 * (TICK_RETENTION_MS, 15 min), and the runs' times in `status` are this machine's.
 */
async function stateClockCheck(url: string): Promise<DoctorCheck> {
  try {
    const reading = await stateSkew(url);
    const ok = Math.abs(reading.skewMs) <= MAX_SKEW_MS;
    return { name: 'clock state', ok, detail: `this machine's clock is ${describeSkew(reading, "the state database's")}${ok ? '' : '; sync the clocks (NTP): replicas whose clocks differ by more than 15 min (how long tick claims are kept) may run one scheduled tick twice'}` };
  } catch (err) {
    return { name: 'clock state', ok: false, detail: `could not read the state database's clock: ${errorLine(err)}` };
  }
}

async function bearer(shop: ShopConfig): Promise<string> {
  if (shop.token) return shop.token;
  const oauth = shop.oauth as NonNullable<typeof shop.oauth>;
  const res = await fetch(oauth.tokenUrl ?? `${shop.baseUrl.replace(/\/+$/, '')}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: oauth.clientId, client_secret: oauth.clientSecret, ...(oauth.scopes ? { scope: oauth.scopes.join(' ') } : {}) }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: string; error?: string };
  if (!res.ok || !body.access_token) throw new Error(`the token endpoint answered HTTP ${res.status}${body.error ? ` (${body.error})` : ''}; check shop.oauth clientId and clientSecret`);
  return body.access_token;
}

async function probe(shop: ShopConfig, token: string, op: OperationDef, body?: unknown): Promise<Response> {
  const url = `${shop.baseUrl.replace(/\/+$/, '')}${op.path}${body === undefined ? '?limit=1' : ''}`;
  return fetch(url, {
    method: op.method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
}

/** The shop checks for one pipeline: its read, and for a push its write operations. */
async function scopeChecks(shop: ShopConfig, token: string, p: PipelineConfig): Promise<DoctorCheck[]> {
  const resource = getResource(p.resource);
  const ops: { what: string; op: OperationDef; body?: unknown }[] = [];
  if (resource.ops.export) ops.push({ what: 'read', op: resource.ops.export });
  if (p.direction === 'push') {
    const empty = { type: resource.writeType ?? resource.name, data: [] };
    // One probe per scope: create and update usually share `<resource>:write`.
    for (const [what, op] of [['create', resource.ops.create], ['update', resource.ops.update]] as const) {
      if (op && !ops.some((o) => o.op.scope === op.scope && o.body !== undefined)) ops.push({ what, op, body: empty });
    }
  }
  const out: DoctorCheck[] = [];
  for (const { what, op, body } of ops) {
    const name = `pipeline ${p.name}: ${what} ${p.resource} (${op.scope})`;
    try {
      const res = await probe(shop, token, op, body);
      if (res.status === 403) out.push({ name, ok: false, pipeline: p.name, missingScope: op.scope, detail: `the token lacks the scope ${op.scope}; grant it to the token in the shop (pipeline ${p.name} needs it to ${what} ${p.resource})` });
      else if (res.status === 401) out.push({ name, ok: false, pipeline: p.name, detail: 'the shop refuses the token (401); check shop.token or shop.oauth' });
      else if (res.status >= 500) out.push({ name, ok: false, pipeline: p.name, detail: `the shop answered HTTP ${res.status}; try again later` });
      else out.push({ name, ok: true, pipeline: p.name, detail: `allowed (HTTP ${res.status})` });
    } catch (err) {
      out.push({ name, ok: false, pipeline: p.name, detail: `the shop did not answer: ${errorLine(err)}; check shop.baseUrl` });
    }
  }
  return out;
}

/** Connectors of one pipeline: opened (which checks them) and one record read, folders writable. */
async function connectorChecks(loaded: LoadedConfig, p: PipelineConfig, logger: Logger): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  for (const side of ['source', 'sink'] as const) {
    const block = p[side] as ({ connection: string } & Record<string, unknown>) | undefined;
    if (!block) continue;
    const connection = loaded.config.connections[block.connection];
    const name = `pipeline ${p.name}: ${side} ${block.connection} (${connection?.kind ?? 'unknown'})`;
    if (!connection) {
      out.push({ name, ok: false, pipeline: p.name, detail: `no connection named ${block.connection}` });
      continue;
    }
    const { connection: _c, ...settings } = block;
    const ctx = { logger, baseDir: loaded.baseDir, origin: connectionOrigin(loaded, block.connection, { pipeline: loaded.config.pipelines.indexOf(p), side }) };
    let late: SourceWatermark | undefined;
    let detail = 'reachable';
    let sinkChecks: SinkCheck[] | undefined;
    try {
      if (side === 'source') {
        const source = await createSource(connection, settings as never, ctx);
        try {
          // Reading one record checks the query or the files too; read-only, so no file is claimed or moved.
          for await (const _item of source.read({ pageSize: 1, readOnly: true })) break;
          if (source.watermark) late = await source.watermark();
        } finally {
          await source.close();
        }
      } else {
        // A SQL sink is looked at, not opened: opening refuses a key without a unique index, which the checks below name with more.
        sinkChecks = await inspectSink(connection, settings as never, { ...ctx, pipeline: p.name }, await sinkFields(loaded.baseDir, p).catch(() => undefined));
        if (sinkChecks === undefined) {
          const sink = await createSink(connection, settings as never, { ...ctx, pipeline: p.name });
          await sink.close();
          // Opening a jsonrpc sink logged in and asked the model (fields_get, create access): say so.
          if (connection.kind === 'jsonrpc') detail = `logged in as ${connection.login}; ${sink.target ?? 'the model'} has the sink's reference and one2many fields and the user may create there; each create is looked up by its reference first`;
        }
      }
      if (connection.kind === 'files') {
        const folder = resolve(loaded.baseDir, connection.folder, String(settings.folder ?? '.'));
        await access(folder, constants.R_OK | constants.W_OK);
      }
      out.push({ name, ok: true, pipeline: p.name, detail });
      for (const c of sinkChecks ?? []) out.push({ name: `pipeline ${p.name}: sink ${c.what}`, ok: c.ok, pipeline: p.name, detail: c.detail });
      // Said, not failed: without the privilege the lookback still covers late commits, for transactions shorter than its window.
      if (late) out.push({ name: `pipeline ${p.name}: late commits`, ok: true, pipeline: p.name, detail: late.by === 'lookback' ? `lookback only: ${late.reason ?? ''}` : late.by === 'single-writer' ? 'one writer at a time (SQLite): the lookback covers clocks that are off' : 'the cursor waits for open ERP transactions (watermark), and the lookback covers clocks that are off' });
    } catch (err) {
      out.push({ name, ok: false, pipeline: p.name, detail: errorLine(err) });
      continue;
    }
    if (side === 'source') {
      try {
        const report = await checkSourceColumns(loaded, p, logger);
        if (report) {
          const detail = report.problem ?? (report.records === 0 ? 'the source holds no records yet; its columns are checked at the first run' : `every column ${report.mapping} reads is there`);
          out.push({ name: `pipeline ${p.name}: mapping columns`, ok: report.problem === undefined, pipeline: p.name, detail });
        }
      } catch (err) {
        out.push({ name: `pipeline ${p.name}: mapping columns`, ok: false, pipeline: p.name, detail: errorLine(err) });
      }
    }
  }
  return out;
}

/** A push pipeline's stock choice where mapping and pipeline meet (what its run would refuse, or warn about). */
async function stockChoiceCheck(loaded: LoadedConfig, p: PipelineConfig): Promise<DoctorCheck | undefined> {
  if (p.direction !== 'push') return undefined;
  const name = `pipeline ${p.name}: stock choice`;
  try {
    const problem = stockChoiceProblem(await loadMapping(resolveMappingPath(p.mapping, loaded.baseDir), { vars: p.vars }), p);
    // A missing choice is a warning of every run, not a refusal: reported, the check stays ok.
    return problem ? { name, ok: !problem.fatal, pipeline: p.name, detail: `[${problem.code}] ${problem.message}` } : undefined;
  } catch {
    // A mapping that does not load is the mapping columns check's and the run's to report.
    return undefined;
  }
}

/** Run every check; the config is already loaded (a config that does not load is the first failure, reported by the caller). */
export async function runDoctor(loaded: LoadedConfig, logger: Logger = silentLogger): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [{ name: 'config', ok: true, detail: `${loaded.file} is valid (${loaded.config.pipelines.length} pipelines)` }];
  // A broken shop file fails its own check; the other shops are checked as usual.
  for (const b of loaded.brokenShops) checks.push({ name: `shop ${b.name}`, ok: false, detail: `broken, its pipelines do not run${b.pipelines.length ? ` (${b.pipelines.join(', ')})` : ''}: ${b.message}` });
  // A trigger that does not fit its source stops the daemon at start: said here by the trigger kind's own check.
  for (const t of triggerProblems(loaded.config)) checks.push({ name: `pipeline ${t.pipeline}: trigger.${t.kind}`, ok: false, pipeline: t.pipeline, detail: `[${t.code}] ${t.message}` });
  try {
    const state = await openState(loaded.state, { logger });
    try {
      const lock = await state.locks.acquire('doctor');
      await lock.release();
      // The probe of /readyz: a lock row can fit where the next batches do not (a full disk whose WAL still has room).
      await state.probeWrite();
      checks.push({ name: 'state', ok: true, detail: `${loaded.statePath} (${state.backend}) is writable, schema version ${await state.schemaVersion()}` });
      const { mark, pipelines } = await heldBackByRestore(state, loaded.config.pipelines.filter((p) => p.direction === 'pull').map((p) => p.name));
      if (mark) {
        const from = `restored from ${mark.file} at ${new Date(mark.restoredAt).toISOString()}`;
        checks.push(pipelines.length > 0
          ? { name: 'state restore', ok: false, detail: `[STATE_RESTORED] ${from}: pull pipelines ${pipelines.join(', ')} deliver nothing until \`shopsync state accept-restore\` (docs/operations.md, "The state goes back in time")` }
          : { name: 'state restore', ok: true, detail: `${from}, accepted by every pull pipeline` });
      }
    } finally {
      await state.close();
    }
  } catch (err) {
    checks.push({ name: 'state', ok: false, detail: errorLine(err) });
  }
  if (loaded.state.kind === 'postgres') checks.push(await stateClockCheck(loaded.state.url));
  const tokens = new Map<string, string>();
  const shops = shopsOf(loaded.config);
  for (const [shopName, shop] of Object.entries(shops)) {
    // One shop keeps the check's plain name; several name theirs.
    const name = Object.keys(shops).length === 1 ? 'shop' : `shop ${shopName}`;
    const key = shopName === DEFAULT_SHOP ? 'shop' : `shops.${shopName}`;
    try {
      const token = await bearer(shop);
      const sentAt = performance.now();
      const res = await fetch(`${shop.baseUrl.replace(/\/+$/, '')}${getResource('products').ops.export?.path ?? '/'}?limit=1`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(15_000) });
      const wireMs = performance.now() - sentAt;
      if (res.status === 401) checks.push({ name, ok: false, detail: `${shop.baseUrl} refuses the token (401); check ${key}.token or ${key}.oauth` });
      else checks.push({ name, ok: res.status < 500, detail: `${shop.baseUrl} answers (HTTP ${res.status})` });
      tokens.set(shopName, token);
      // The header has whole seconds and was stamped somewhere in the round trip: within that there is no skew to tell.
      const reading = shopDateSkew(res.headers.get('date') ?? '', Date.now(), wireMs);
      if (reading) {
        const ok = Math.abs(reading.skewMs) <= MAX_SKEW_MS;
        checks.push({ name: Object.keys(shops).length === 1 ? 'clock' : `clock ${shopName}`, ok, detail: `this machine's clock is ${describeSkew(reading, "the shop's")}${ok ? '' : '; sync the clock (NTP): delta cursors are capped at the shop clock'}` });
      }
    } catch (err) {
      checks.push({ name, ok: false, detail: `${shop.baseUrl}: ${errorLine(err)}; check ${key}.baseUrl and that the shop is reachable from here` });
    }
  }
  for (const p of loaded.config.pipelines) {
    const token = tokens.get(p.shop);
    const shop = shops[p.shop];
    if (token && shop) checks.push(...(await scopeChecks(shop, token, p)));
    checks.push(...(await connectorChecks(loaded, p, logger)));
    const stock = await stockChoiceCheck(loaded, p);
    if (stock) checks.push(stock);
  }
  // A status push that could re-open an order the shop cancelled is a warning of every run: reported, the check stays ok.
  for (const w of await shopStatusWarnings(loaded)) checks.push({ name: `pipeline ${w.pipeline}: shop status guard`, ok: true, pipeline: w.pipeline, detail: `[${w.code}] ${w.message}` });
  // A NOTIFY trigger whose pipeline is gone still costs the ERP the commit lock on every write.
  checks.push(...(await orphanedNotifyTriggers(loaded, logger)));
  return checks;
}
