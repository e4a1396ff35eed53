/**
 * The text of the files init writes: `shopsync.yaml` and the mapping, each opening with the
 * `yaml-language-server` line that gives editors completion from the shipped JSON Schemas, and
 * commented where a person has to look (the columns init could not place, the cursor choice).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { getResource, isResourceName } from '../shop/registry/index.js';
import { proposedEmpty, type ProposedEmpty } from './empty.js';
import type { Introspection, Proposal, ProposedField } from './types.js';

/** The folder of the JSON Schemas shipped with shopsync. */
export function shippedSchemasDir(): string {
  // Compiled, this file is dist/src/init/render.js; run from source, src/init/render.ts.
  const compiled = fileURLToPath(new URL('../../../schemas/', import.meta.url));
  const source = fileURLToPath(new URL('../../schemas/', import.meta.url));
  return !existsSync(compiled) && existsSync(source) ? source : compiled;
}

/** `# yaml-language-server: $schema=…` for a file in `dir`, pointing at a shipped schema. */
export function schemaLine(dir: string, schema: 'shopsync.schema.json' | 'mapping.schema.json'): string {
  const rel = path.relative(dir, path.join(shippedSchemasDir(), schema)).split(path.sep).join('/');
  return `# yaml-language-server: $schema=${rel.startsWith('.') ? rel : `./${rel}`}`;
}

function flow(value: unknown): string {
  return YAML.stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trimEnd();
}

function ruleOf(f: ProposedField, empty?: ProposedEmpty): Record<string, unknown> {
  if (f.value !== undefined) return { value: f.value };
  return {
    from: f.column,
    ...(f.type ? { type: f.type } : {}),
    ...(f.locale ? { locale: f.locale } : {}),
    ...(f.format ? { format: f.format } : {}),
    ...(f.true && f.true.length > 0 ? { true: [...f.true] } : {}),
    ...(f.false && f.false.length > 0 ? { false: [...f.false] } : {}),
    ...(f.trim ? { trim: true } : {}),
    ...(f.required ? { required: true } : {}),
    ...(empty ? { when_empty: empty.policy } : {}),
  };
}

const LOCALE_NOTE: Readonly<Record<string, string>> = { de: 'decimals like 1.234,50 or 12,50', comma: 'decimals like 12,50', en: 'decimals like 1,234.50', point: 'decimals like 12.50' };

/** What the mapping file needs to say. */
export interface MappingText {
  readonly dir: string;
  readonly name: string;
  readonly resource: string;
  readonly sourceLabel: string;
  readonly proposal: Proposal;
  readonly introspection: Introspection;
  /** The mapping's `stock:` line (src/init/stock.ts), when it writes stock. */
  readonly stockLine?: string;
}

/** The mapping file. */
export function renderMapping(m: MappingText): string {
  const p = m.proposal;
  const samples = new Map(m.introspection.columns.map((c) => [c.name, c.samples[0]]));
  const lines = [
    schemaLine(m.dir, 'mapping.schema.json'),
    `# ${m.sourceLabel} → shop ${m.resource}, proposed by \`shopsync init\`. Check every field, then`,
    `# \`shopsync mappings check\` and \`shopsync sync ${m.name} --dry-run\`.`,
    `name: ${flow(m.name)}`,
    `description: ${flow(`${m.sourceLabel} to shop ${m.resource}`)}`,
    'direction: erp-to-shop',
    `target: { resource: ${m.resource}, operation: upsert }`,
    // With a stable id the shop key is the resource's number field, which the mapping compiler takes from the registry.
    ...(p.natural !== undefined
      ? [`key: ${flow({ surrogate: p.key, natural: p.natural })}${' '.repeat(4)}# ${p.key} is the ERP's stable id: a changed ${p.natural} renames the shop record (docs/catalog.md "Renamed articles")`]
      : [`key: ${flow(p.key)}`, ...(p.shopKey ? [`shop_key: ${p.shopKey}`] : [])]),
    ...(p.locale ? [`locale: ${p.locale}${' '.repeat(Math.max(1, 22 - p.locale.length))}# the source writes ${LOCALE_NOTE[p.locale] ?? p.locale}`] : []),
    ...(m.stockLine ? [m.stockLine] : []),
    'fields:',
  ];
  // Each rule says what an empty value does (`when_empty`), and its comment says why.
  const resource = isResourceName(m.resource) ? getResource(m.resource) : undefined;
  const rules = p.fields.map((f) => {
    const empty = resource ? proposedEmpty(resource, f) : undefined;
    return { f, empty, rule: `  ${flow(f.target)}: ${flow(ruleOf(f, empty))}` };
  });
  const width = Math.max(0, ...rules.map((r) => r.rule.length));
  for (const { f, empty, rule } of rules) {
    const eg = samples.get(f.column);
    lines.push(`${rule.padEnd(width)}  # ${f.why}${eg !== undefined ? `, e.g. ${JSON.stringify(eg)}` : ''}${empty ? `; ${empty.why}` : ''}`);
  }
  if (p.missingRequired.length > 0) {
    lines.push(`# Required before a record can be created, and no column was found for it: ${p.missingRequired.join(', ')}.`);
  }
  if (p.unplaced.length > 0) {
    lines.push(`# Columns not placed (map them to a field of ${m.resource}, or leave them out):`);
    for (const u of p.unplaced) {
      const eg = samples.get(u.column);
      lines.push(`#   ${u.column}: ${u.reason}${eg !== undefined && !u.reason.includes('e.g.') ? ` (e.g. ${JSON.stringify(eg)})` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** What the config file needs to say. */
export interface ConfigText {
  readonly dir: string;
  readonly shop: Record<string, unknown>;
  readonly connection: Record<string, unknown>;
  readonly pipeline: Record<string, unknown>;
  /** Further pipelines (the orders pull). */
  readonly morePipelines?: readonly Record<string, unknown>[];
  readonly cursorNote?: string;
  /** What the orders pull writes where. */
  readonly ordersNote?: string;
  /** What becomes of shop records whose ERP row is gone (src/init/missing.ts). */
  readonly missingNote?: string;
  /** Files: the encoding is an assumption (an all-ASCII sample). */
  readonly encodingGuessed?: boolean;
  /** Whether stock is on hand or available, and how an order counts as booked (src/init/stock.ts). */
  readonly stockNote?: string;
}

/** What to say about an encoding init could not read off the sample. */
export const ENCODING_GUESS_NOTE =
  'Encoding: the sample held only ASCII characters, which read the same in every encoding, so UTF-8 is a guess. If the ERP writes umlauts or € in Windows-1252 (most German ERPs do), set `encoding: windows-1252` on the source (or iso-8859-1); a file in another encoding is refused as FILE_UNREADABLE, naming the byte, never imported garbled.';

/** `shopsync.yaml`. */
export function renderConfig(c: ConfigText): string {
  const body = YAML.stringify(
    { shop: c.shop, connections: { erp: c.connection }, pipelines: [c.pipeline, ...(c.morePipelines ?? [])], state: { path: 'state/shopsync.db' } },
    { lineWidth: 0 },
  );
  const header = [
    schemaLine(c.dir, 'shopsync.schema.json'),
    '# Written by `shopsync init`. Every setting is documented in shopsync.example.yaml and docs/init.md.',
    '# Secrets are never written here: they come from the environment (${NAME}) or from files (${file:…}).',
    ...(c.cursorNote ? wrapComment(`Cursor: ${c.cursorNote}.`) : []),
    ...(c.missingNote ? wrapComment(`${c.missingNote}.`) : []),
    ...(c.ordersNote ? wrapComment(`${c.ordersNote}.`) : []),
    ...(c.stockNote ? wrapComment(`${c.stockNote}.`) : []),
    ...(c.encodingGuessed ? wrapComment(ENCODING_GUESS_NOTE) : []),
    '# To sync on a schedule with `shopsync run`, add to the pipeline e.g.  schedule: "*/15 * * * *"',
  ];
  return `${header.join('\n')}\n${body}`;
}

/** A long note as `#` lines of at most about 100 characters. */
export function wrapComment(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(' ')) {
    if (line.length + word.length + 1 > 100 && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}
