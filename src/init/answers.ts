/**
 * What `shopsync init` needs to know, from flags or prompts, validated in one place: a prompt
 * answer and a flag go through the same schema, so both fail with the same message.
 */
import { z } from 'zod';
import { encodingSchema } from '../erp/files/config.js';
import { tableNameSchema } from '../erp/connection.js';
import { isResourceName, resources } from '../shop/registry/index.js';
import { RECIPE_NAMES } from './recipes/types.js';
import { STOCK_CHOICES } from './stock.js';
import { FOLLOW_CHOICES } from './follow.js';

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name such as SHOP_TOKEN');

/** How init reaches the shop. A secret is either given (then init stores it in a file) or named by the variable that holds it. */
export const shopAnswerSchema = z.strictObject({
  url: z.url({ error: 'expected the shop API\'s http(s) URL, e.g. https://shop.example.com/api' }),
  auth: z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('token'),
      token: z.string().min(1, 'the access token is empty'),
      /** The environment variable the token came from: the config then says `${NAME}` instead of a secrets file. */
      env: envName.optional(),
    }),
    z.strictObject({
      kind: z.literal('oauth'),
      clientId: z.string().min(1),
      clientSecret: z.string().min(1),
      env: envName.optional(),
      tokenUrl: z.url().optional(),
      scopes: z.array(z.string().min(1)).optional(),
    }),
  ]),
});

const sqlPart = {
  /** A table (`artikel`, `erp.artikel`): init reads it whole (`SELECT * FROM …`). */
  table: tableNameSchema.optional(),
  /** Or a plain SELECT; shopsync adds paging itself. */
  query: z.string().min(1).optional(),
};

const serverSchema = (kind: 'postgres' | 'mysql') =>
  z.strictObject({
    kind: z.literal(kind),
    /** `postgres://user:pass@host:5432/db`; split into fields, the password goes to a secrets file. */
    url: z.string().min(1).optional(),
    host: z.string().min(1).optional(),
    port: z.coerce.number().int().min(1).max(65535).optional(),
    user: z.string().min(1).optional(),
    password: z.string().optional(),
    /** The environment variable holding the password (the config then says `${NAME}`). */
    passwordEnv: envName.optional(),
    database: z.string().min(1).optional(),
    /** PostgreSQL: the schema the tables are in (the session's search_path). */
    schema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
    ...sqlPart,
  });

/** The ERP side. */
export const sourceAnswerSchema = z
  .discriminatedUnion('kind', [
    serverSchema('postgres'),
    serverSchema('mysql'),
    z.strictObject({ kind: z.literal('sqlite'), path: z.string().min(1), ...sqlPart }),
    z.strictObject({
      kind: z.literal('file'),
      path: z.string().min(1),
      /** @default from the file name's extension */
      format: z.enum(['csv', 'json', 'ndjson', 'xml']).optional(),
      /** @default detected */
      encoding: encodingSchema.optional(),
      /** CSV delimiter. @default detected */
      delimiter: z.string().min(1).max(4).optional(),
      /** JSON: path of the records array; XML: path of one record element. @default detected */
      recordsPath: z.string().min(1).optional(),
    }),
  ])
  .superRefine((s, ctx) => {
    if (s.kind !== 'file' && s.table && s.query) ctx.addIssue({ code: 'custom', path: ['table'], message: 'give exactly one of a table (--table) or a query (--query)' });
  });

/** Every answer of init. */
export const answersSchema = z.strictObject({
  shop: shopAnswerSchema,
  source: sourceAnswerSchema,
  resource: z.string().refine(isResourceName, { error: (i) => `unknown shop resource \`${String(i.input)}\`; known: ${Object.keys(resources).join(', ')}` }),
  /** Pipeline and mapping name. @default the resource's name */
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'expected a name of lower-case letters, digits, - and _').optional(),
  /** Language of text fields (`languages.<code>.…`). @default de */
  language: z.string().regex(/^[a-z]{2}$/, 'expected a two-letter language code like de').default('de'),
  /** Source key column. @default proposed */
  key: z.string().min(1).optional(),
  /** SQL: cursor column. @default proposed */
  cursor: z.string().min(1).optional(),
  /** Placements given by the user: column → shop field, or '' to leave a column out. */
  map: z.record(z.string(), z.string()).default({}),
  /** Folder the files are written to. */
  dir: z.string().min(1).default('.'),
  /** Overwrite existing files. */
  force: z.boolean().default(false),
  /** Rows read to introspect the source. */
  sampleRows: z.number().int().min(1).max(100_000).default(200),
  /** Records of the closing dry run. */
  dryRunRecords: z.number().int().min(1).max(1000).default(5),
  /** Databases: also write the orders pull (shop orders → staging tables shopsync creates in the ERP database). */
  ordersPull: z.boolean().default(false),
  /** The orders pull's staging schema: PostgreSQL a schema (default shopsync_in), MariaDB a database of its own (default: tables prefixed shopsync_in_ in the ERP database). */
  stagingSchema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a schema name of letters, digits and _').optional(),
  /** Run `mappings check` and the dry run at the end. */
  verify: z.boolean().default(true),
  /** An ERP whose recipe (src/init/recipes, docs/erp/) writes the SELECT, key, cursor and mapping. */
  erp: z.enum(RECIPE_NAMES).optional(),
  /** Parameters of the recipe's SELECT (`warehouse`…), overriding its defaults. */
  erpParams: z.record(z.string(), z.string()).default({}),
  /**
   * When the mapping writes stock: `reserved`, the ERP's figure is on hand (shop orders it has not
   * booked are subtracted); `available`, it already is what the shop may sell. @default asked; reserved without a terminal
   */
  stock: z.enum(STOCK_CHOICES, { error: 'expected reserved (the ERP figure is on hand) or available (it already subtracts open shop orders)' }).optional(),
  /**
   * With the orders pull: `yes`, the pull keeps following the orders it delivered after checkout
   * (`follow:`, src/init/follow.ts); `no`, it sees new orders only. @default asked; yes without a terminal
   */
  follow: z.enum(FOLLOW_CHOICES, { error: 'expected yes (follow orders after checkout: cancellations, status changes, returns) or no (new orders only)' }).optional(),
}).superRefine((a, ctx) => {
  const s = a.source;
  if (a.follow && !a.ordersPull) ctx.addIssue({ code: 'custom', path: ['follow'], message: '--follow says whether the orders pull follows orders after checkout: give --orders-pull too' });
  if (a.stagingSchema && !a.ordersPull) ctx.addIssue({ code: 'custom', path: ['stagingSchema'], message: '--staging-schema names where --orders-pull puts its staging tables: give --orders-pull too' });
  if (s.kind === 'file') {
    if (a.erp) ctx.addIssue({ code: 'custom', path: ['erp'], message: `--erp ${a.erp} reads the ERP's database: give --db-url instead of --file` });
    return;
  }
  if (a.erp && (s.table || s.query)) ctx.addIssue({ code: 'custom', path: ['source', 'table'], message: `--erp ${a.erp} writes its own SELECT: leave out --table and --query (or leave out --erp to read your own)` });
  if (!a.erp && !s.table && !s.query) ctx.addIssue({ code: 'custom', path: ['source', 'table'], message: 'give exactly one of a table (--table) or a query (--query)' });
});

export type ShopAnswer = z.output<typeof shopAnswerSchema>;
export type SourceAnswer = z.output<typeof sourceAnswerSchema>;
export type Answers = z.output<typeof answersSchema>;
export type AnswersInput = z.input<typeof answersSchema>;

/** Answers as far as flags gave them; the prompts fill the gaps, and `answersSchema` judges the result. */
export interface Draft {
  shopUrl?: string;
  shopAuth?: ShopAnswer['auth'];
  source?: { kind?: SourceAnswer['kind'] } & Record<string, unknown>;
  resource?: string;
  /** Everything else (name, key, map, dir, force…), passed through as given. */
  rest: Omit<AnswersInput, 'shop' | 'source' | 'resource'>;
}

/** The draft as input for `answersSchema` (missing parts fail there with their path). */
export function draftInput(d: Draft): AnswersInput {
  return { ...d.rest, shop: { url: d.shopUrl, auth: d.shopAuth } as ShopAnswer, source: (d.source ?? {}) as SourceAnswer, resource: d.resource ?? 'products' };
}
