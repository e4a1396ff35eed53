/**
 * The effective config as `shopsync config print` shows it: defaults applied, templates expanded,
 * shop files merged in, and every secret masked (a key naming one, and any value holding a secret
 * the loader collected: tokens, passwords inside URLs, webhook URLs).
 */
import { scrubSecrets } from '../log.js';
import { StateError } from '../errors.js';
import { didYouMean } from '../util/suggest.js';
import type { LoadedConfig } from './load.js';
import { shopsOf } from './schema.js';
import { isSecretKey } from './secrets.js';
import type { BrokenShop } from './shopFiles.js';

/** What a secret is shown as. */
export const MASK = '[redacted]';

/** One shop's effective config. */
export interface ShopView {
  readonly name: string;
  /** The file the shop was read from (its shop file, or the main config). */
  readonly file: string;
  readonly status: 'ok' | 'broken';
  /** The shop's settings with defaults (absent for a broken shop). */
  readonly settings?: Record<string, unknown>;
  /** For a broken shop: what is wrong, each `file:line: …`. */
  readonly broken?: Pick<BrokenShop, 'file' | 'line' | 'message'>;
  /** The shop's pipelines (expanded templates and pipelines written out), each with defaults applied. */
  readonly pipelines: readonly Record<string, unknown>[];
  /** The connections its pipelines use. */
  readonly connections: Record<string, unknown>;
}

/** The effective config of one shop; throws UNKNOWN_SHOP naming the known shops. */
export function shopView(loaded: LoadedConfig, name: string): ShopView {
  const shops = shopsOf(loaded.config);
  const broken = loaded.brokenShops.find((b) => b.name === name);
  const settings = shops[name];
  if (!settings && !broken) {
    const known = [...Object.keys(shops), ...loaded.brokenShops.map((b) => b.name)];
    const near = didYouMean(name, known);
    throw new StateError('UNKNOWN_SHOP', `no shop named "${name}" in ${loaded.file}; known: ${known.join(', ') || '(none)'}${near ? `; did you mean "${near}"?` : ''}`);
  }
  const pipelines = loaded.config.pipelines.filter((p) => p.shop === name);
  const used = new Set(pipelines.flatMap((p) => [p.source?.connection, p.sink?.connection].filter((c): c is string => typeof c === 'string')));
  const view: ShopView = {
    name,
    file: broken?.file ?? loaded.shopFiles?.[name] ?? loaded.file,
    status: broken ? 'broken' : 'ok',
    ...(settings ? { settings: settings as unknown as Record<string, unknown> } : {}),
    ...(broken ? { broken: { file: broken.file, line: broken.line, message: broken.message } } : {}),
    pipelines: pipelines as unknown as Record<string, unknown>[],
    connections: Object.fromEntries(Object.entries(loaded.config.connections).filter(([c]) => used.has(c))),
  };
  return masked(view, loaded.secrets) as ShopView;
}

/** The whole effective config, with the broken shops beside it. */
export function configView(loaded: LoadedConfig): Record<string, unknown> {
  const { templates: _templates, ...config } = loaded.config;
  return masked(
    {
      file: loaded.file,
      ...config,
      ...(loaded.brokenShops.length > 0 ? { brokenShops: loaded.brokenShops.map((b) => ({ name: b.name, file: b.file, line: b.line, message: b.message, pipelines: b.pipelines })) } : {}),
    },
    loaded.secrets,
  ) as Record<string, unknown>;
}

/** A copy with every secret masked: values under secret keys, and secrets inside any other text. */
export function masked(value: unknown, secrets: readonly string[], key = ''): unknown {
  if (typeof value === 'string') return isSecretKey(key) && value !== '' ? MASK : scrubSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((v) => masked(v, secrets));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, secrets, k)]));
  return value;
}
