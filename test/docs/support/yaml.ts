/**
 * The docs' YAML examples through the real loaders: `parseConfigText` (src/config) for
 * shopsync.yaml and its fragments, `compileMapping` (src/mapping) for mappings and theirs. A renamed
 * key, a wrong default's type or a rule the compiler no longer knows fails here.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { parseConfigText } from '../../../src/config/index.js';
import { compileMapping, loadMapping, MappingFileError } from '../../../src/mapping/index.js';
import { resolveMappingPath } from '../../../src/ops/runtime.js';
import { ROOT, where, type Block } from './blocks.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Objects merge key by key; anything else (lists included) is replaced. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (!isObj(base) || !isObj(over)) return over === undefined ? base : over;
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(base[k], v);
  return out;
}

/**
 * What `${NAME}` reads in the docs' examples: URLs for *_URL, a port for *_PORT, a long opaque
 * string for everything else (tokens, passwords); `NAME_FILE` is never set.
 */
const DOC_ENV: NodeJS.ProcessEnv = new Proxy(
  {},
  {
    get(_, name) {
      if (typeof name !== 'string' || name.endsWith('_FILE')) return undefined;
      if (name.endsWith('_URL')) return 'https://shop.example.com/api';
      if (name.endsWith('_PORT')) return '5432';
      return `doc-${name.toLowerCase()}-0123456789abcdef`;
    },
  },
);

/** The config a fragment is merged into: a shop, and the connections the docs' examples name. */
const BASE_CONFIG: Obj = {
  shop: { baseUrl: 'https://shop.example.com/api', token: 'doc-token-0123456789' },
  connections: {
    erp: { kind: 'postgres', host: '127.0.0.1', database: 'erp' },
    legacy: { kind: 'sqlite', path: 'erp.sqlite' },
    drop: { kind: 'files', folder: '/srv/erp-exchange' },
    inbox: { kind: 'files', folder: '.' },
    'erp-api': { kind: 'http', baseUrl: 'https://erp.example.com/api/v2/' },
  },
};

/** A pipeline a pipeline fragment is merged into: a push of products, or (with a sink) a pull of orders. */
function basePipeline(fragment: Obj): Obj {
  return fragment.sink
    ? { name: 'doc-example', direction: 'pull', resource: 'orders', mapping: 'orders-to-erp.yaml' }
    : { name: 'doc-example', direction: 'push', resource: 'products', mapping: 'products.yaml' };
}

/** A source a source fragment is merged into, by its connection's kind. */
function baseSource(connection: string): Obj {
  const kind = (BASE_CONFIG.connections as Record<string, { kind: string }>)[connection]?.kind;
  if (kind === 'files') return { connection, folder: 'inbox', format: 'csv' };
  if (kind === 'http') return { connection, path: 'items', key: 'id' };
  if (kind) return { connection, query: 'SELECT * FROM artikel', cursor: 'Geaendert', key: 'ARTNR' };
  throw new Error(`source-fragment: connection=${connection} is none of ${Object.keys(BASE_CONFIG.connections as Obj).join(', ')}`);
}

function documents(b: Block): unknown[] {
  return parseAllDocuments(b.text).map((d) => {
    if (d.errors.length > 0) throw new Error(`${where(b)}: YAML syntax: ${d.errors[0]?.message}`);
    return d.toJS() as unknown;
  });
}

/** Load a whole config text through the config loader, then compile each pipeline's mapping where it resolves and check it writes the pipeline's resource. */
export async function checkConfigText(text: string, label: string): Promise<void> {
  const baseDir = join(ROOT, '.doc-test-config');
  let loaded;
  try {
    loaded = parseConfigText(text, join(baseDir, 'shopsync.yaml'), { env: DOC_ENV });
  } catch (err) {
    throw new Error(`${label}: ${(err as Error).message}`);
  }
  // A shop's own mistake does not stop a config (it marks the shop broken); in an example it is the example's mistake.
  if (loaded.brokenShops.length > 0) throw new Error(`${label}: ${loaded.brokenShops.map((s) => s.message).join('\n')}`);
  for (const p of loaded.config.pipelines) {
    const file = resolveMappingPath(p.mapping, baseDir);
    if (!existsSync(file)) continue;
    const m = await loadMapping(file);
    const direction = p.direction === 'push' ? 'erp-to-shop' : 'shop-to-erp';
    if (m.resource !== p.resource || m.direction !== direction) {
      throw new Error(`${label}: pipeline ${p.name} (${p.direction} ${p.resource}) names mapping ${p.mapping}, which is ${m.direction} ${m.resource}`);
    }
  }
}

/** Validate one YAML block by its marker; throws with `file:line` and the loader's message. */
export async function checkYamlBlock(b: Block): Promise<void> {
  const docs = documents(b);
  for (const [n, doc] of docs.entries()) {
    const label = docs.length > 1 ? `${where(b)} (document ${n + 1})` : where(b);
    switch (b.marker) {
      case 'shopsync-config':
        await checkConfigText(b.text, label);
        break;
      case 'config-fragment':
        await checkConfigText(stringify(deepMerge(BASE_CONFIG, doc)), label);
        break;
      case 'pipeline-fragment':
        if (!isObj(doc)) throw new Error(`${label}: a pipeline fragment is a map of pipeline keys`);
        await checkConfigText(stringify(deepMerge(BASE_CONFIG, { pipelines: [deepMerge(basePipeline(doc), doc)] })), label);
        break;
      case 'source-fragment': {
        const connection = b.args.connection;
        if (!connection) throw new Error(`${label}: source-fragment needs connection=<name>`);
        const source = deepMerge(baseSource(connection), doc);
        await checkConfigText(stringify(deepMerge(BASE_CONFIG, { pipelines: [{ ...basePipeline({}), source }] })), label);
        break;
      }
      case 'shop-file': {
        // A shops.d/<name>.yaml: checked as that shop of a config whose templates are the ones it changes.
        if (!isObj(doc)) throw new Error(`${label}: a shop file is a map of shop settings`);
        const { name = 'doc', ...shop } = doc;
        const templates = Object.fromEntries(Object.keys(isObj(shop.templates) ? shop.templates : {}).map((t) => [t, { ...basePipeline({}), name: undefined, source: baseSource('erp') }]));
        await checkConfigText(stringify(deepMerge(BASE_CONFIG, { shops: { [String(name)]: shop }, templates })), label);
        break;
      }
      case 'mapping':
        compile(b.text, label);
        break;
      case 'mapping-fragment':
        compile(stringify(deepMerge(baseMapping(b, label), doc)), label);
        break;
      case 'schema-line':
        checkSchemaLine(b.text.trim(), label);
        break;
      default:
        throw new Error(`${label}: no check for YAML marker "${b.marker}"`);
    }
  }
}

/** A mapping a fragment is merged into: `target=<resource>[:<operation>]` (ERP → shop) or `source=<resource>` (shop → ERP). */
function baseMapping(b: Block, label: string): Obj {
  if (b.args.target) {
    const [resource, operation = 'upsert'] = b.args.target.split(':');
    return { name: 'doc-example', direction: 'erp-to-shop', target: { resource, operation }, key: b.args.key ?? 'ERP_KEY' };
  }
  if (b.args.source) return { name: 'doc-example', direction: 'shop-to-erp', source: { resource: b.args.source }, target: { erp: 'doc_table' }, key: b.args.key ?? 'id' };
  throw new Error(`${label}: mapping-fragment needs target=<resource>[:<operation>] or source=<resource>`);
}

function compile(text: string, label: string): void {
  try {
    compileMapping(text, label);
  } catch (err) {
    if (err instanceof MappingFileError) throw new Error(`${label}: ${err.problems.map((p) => p.message).join('\n')}`);
    throw new Error(`${label}: ${(err as Error).message}`);
  }
}

/** A `# yaml-language-server: $schema=…` line is the first line of a shipped file, and names a schema that exists from there. */
function checkSchemaLine(line: string, label: string): void {
  const shipped = [join(ROOT, 'shopsync.example.yaml'), ...readdirSync(join(ROOT, 'mappings')).filter((f) => f.endsWith('.yaml')).map((f) => join(ROOT, 'mappings', f))];
  const owners = shipped.filter((f) => readFileSync(f, 'utf8').split('\n')[0] === line);
  if (owners.length === 0) throw new Error(`${label}: "${line}" is the first line of no shipped YAML file`);
  const schema = /\$schema=(\S+)/.exec(line)?.[1];
  if (!schema || !existsSync(resolve(dirname(owners[0] as string), schema))) throw new Error(`${label}: ${schema} does not exist next to ${owners[0]}`);
}

/** Top-level keys of shopsync.yaml (an unmarked block made only of these is read as a config fragment). */
export const CONFIG_KEYS = new Set(['shop', 'shops', 'shopsDir', 'templates', 'connections', 'pipelines', 'timezone', 'state', 'dashboard', 'alerts', 'daemon', 'log']);

/** The marker an unmarked YAML block is checked as, or undefined when it cannot be told. */
export function impliedYamlMarker(b: Block): 'config-fragment' | 'mapping' | undefined {
  const docs = parseAllDocuments(b.text).map((d) => d.toJS() as unknown);
  if (docs.length === 0 || !docs.every(isObj)) return undefined;
  const keys = docs.flatMap((d) => Object.keys(d as Obj));
  if (keys.length > 0 && keys.every((k) => CONFIG_KEYS.has(k))) return 'config-fragment';
  if (docs.length === 1 && keys.includes('direction') && keys.includes('fields')) return 'mapping';
  return undefined;
}
