/**
 * Answering a pull mapping's ERP lookups. The mapping asks synchronously (`ctx.lookupErp`), so a
 * record is mapped once with what the run knows; the values it asked that the run does not know
 * are looked up in one go (one search per lookup), created where the lookup says so, and the record
 * is mapped once more. What a run found is not asked again in that run; a value not found is
 * remembered only by a lookup that cannot create it.
 */
import { ConnectorError } from '../../errors.js';
import { CONNECTOR_CODES } from '../../erp/errors.js';
import { RpcError } from '../../erp/jsonrpc/errors.js';
import type { ErpLookupAnswer, MappingContext, MappingResult } from '../../mapping/types.js';
import { openPort, type LookupConnections, type LookupPort, type LookupValue } from './ports.js';
import { isRpcLookup, type LookupDef } from './schema.js';
import { fillTemplate } from './template.js';

/** Stable codes of a record refused by a lookup. */
export const LOOKUP_CODES = {
  notFound: 'LOOKUP_NOT_FOUND',
  ambiguous: 'LOOKUP_AMBIGUOUS',
  createFailed: 'LOOKUP_CREATE_FAILED',
  pending: 'LOOKUP_PENDING',
} as const;

/** Answers one lookup keeps per run. */
const KEEP_PER_LOOKUP = 100_000;

/** A value as messages show it: `"ART-404"`, `8`. */
const show = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : String(v));

/** ERP answers that refuse one record's data, not the connection: the record is dead-lettered, the run goes on. */
const RECORD_REFUSALS: ReadonlySet<string> = new Set([CONNECTOR_CODES.invalidRecord, CONNECTOR_CODES.rowRefused, 'JSONRPC_RECORD_REFUSED']);

interface Ask {
  readonly name: string;
  readonly value: LookupValue;
}

/** One run's lookups. */
export class ErpLookups {
  private readonly known = new Map<string, Map<string, ErpLookupAnswer>>();
  private readonly ports = new Map<string, Promise<LookupPort>>();

  /** @param dryRun nothing is created: a value that would be is answered with a marker the plan shows */
  constructor(
    private readonly defs: Readonly<Record<string, LookupDef>>,
    private readonly connections: LookupConnections,
    private readonly dryRun = false,
  ) {}

  /**
   * Map a record with its lookups answered: once with what the run knows, then, when it asked
   * values the run does not know, once more after asking the ERP. A record the mapping refuses
   * for another reason is not looked up (nothing is created for a record that fails anyway).
   */
  async map(record: Record<string, unknown>, map: (lookupErp: NonNullable<MappingContext['lookupErp']>) => Promise<MappingResult>): Promise<MappingResult> {
    const asks: Ask[] = [];
    const first = await map(this.answerer(asks, undefined));
    if (asks.length === 0) return first;
    // Its letter names what is wrong with it, not the lookups it was never asked.
    if (!first.ok && first.errors.some((e) => e.code !== LOOKUP_CODES.pending && e.code !== 'MAPPING_REQUIRED')) return { ...first, errors: first.errors.filter((e) => e.code !== LOOKUP_CODES.pending) };
    const answers = await this.resolve(asks, record);
    return map(this.answerer([], answers));
  }

  /** Close the connections the lookups opened. */
  async close(): Promise<void> {
    this.ports.clear();
    await this.connections.close();
  }

  private answerer(asks: Ask[], answers: ReadonlyMap<string, ErpLookupAnswer> | undefined): NonNullable<MappingContext['lookupErp']> {
    return (name, value) => {
      if (!(name in this.defs)) return { kind: 'refused', code: 'MAPPING_LOOKUP', message: `the pipeline declares no lookup \`${name}\` under \`lookups:\` (declared: ${Object.keys(this.defs).join(', ') || 'none'})` };
      const known = this.known.get(name)?.get(String(value)) ?? answers?.get(`${name}\0${String(value)}`);
      if (known) return known;
      asks.push({ name, value });
      // Not asked in the last pass: an answer always exists then, so this is a value the first pass did not read.
      return answers ? { kind: 'refused', code: LOOKUP_CODES.pending, message: `lookup \`${name}\` for ${show(value)} was not asked` } : { kind: 'pending' };
    };
  }

  private port(name: string, def: LookupDef): Promise<LookupPort> {
    let p = this.ports.get(name);
    if (!p) {
      p = openPort(def, this.connections);
      p.catch(() => this.ports.delete(name));
      this.ports.set(name, p);
    }
    return p;
  }

  private remember(name: string, value: LookupValue, answer: ErpLookupAnswer): void {
    let m = this.known.get(name);
    if (!m) this.known.set(name, (m = new Map()));
    // Bounded on long runs (a party per order): the oldest answer goes first; it is asked again if needed.
    if (m.size >= KEEP_PER_LOOKUP) m.delete(m.keys().next().value!);
    m.set(String(value), answer);
  }

  /** Ask the ERP for the values a record asked: one search per lookup, then a create per value missing where the lookup creates. */
  private async resolve(asks: readonly Ask[], record: Record<string, unknown>): Promise<Map<string, ErpLookupAnswer>> {
    const answers = new Map<string, ErpLookupAnswer>();
    const byName = new Map<string, Map<string, LookupValue>>();
    for (const a of asks) (byName.get(a.name) ?? byName.set(a.name, new Map()).get(a.name)!).set(String(a.value), a.value);
    for (const [name, values] of byName) {
      const def = this.defs[name]!;
      const port = await this.port(name, def);
      const found = await port.find([...values.values()]);
      for (const [key, value] of values) {
        const answer = await this.answer(name, def, port, value, found.get(key) ?? [], record);
        answers.set(`${name}\0${key}`, answer);
      }
    }
    return answers;
  }

  private async answer(name: string, def: LookupDef, port: LookupPort, value: LookupValue, rows: readonly unknown[], record: Record<string, unknown>): Promise<ErpLookupAnswer> {
    if (rows.length === 1) {
      const answer: ErpLookupAnswer = { kind: 'found', value: rows[0] };
      this.remember(name, value, answer);
      return answer;
    }
    if (rows.length > 1) {
      // Picking one would file the order under a party chosen by the ERP's row order.
      return { kind: 'refused', code: LOOKUP_CODES.ambiguous, message: `lookup \`${name}\`: ${port.describe} holds ${isRpcLookup(def) && def.field.includes('.') ? 'more than one record' : `${rows.length} records`} for ${show(value)} (${rows.map(show).join(', ')}); shopsync does not pick one: merge them in the ERP, or look up by a field that is unique` };
    }
    const create = isRpcLookup(def) ? def.create : undefined;
    if (create && isRpcLookup(def)) {
      const model = create.model ?? def.model;
      if (this.dryRun) return { kind: 'found', value: `(would create ${model})` };
      return this.created(name, def.model, model, port, value, fillTemplate(create.values, { record, value }) as Record<string, unknown>);
    }
    const answer: ErpLookupAnswer =
      def.onMissing === 'null' || def.onMissing === null
        ? { kind: 'found', value: null }
        : { kind: 'refused', code: LOOKUP_CODES.notFound, message: `lookup \`${name}\`: ${port.describe} holds no record for ${show(value)}; create it in the ERP and retry the letter, or give the lookup \`create:\` (or \`onMissing: null\`)` };
    this.remember(name, value, answer);
    return answer;
  }

  /** Create a missing record; an answer lost on the way is looked for again before anything is created twice. */
  private async created(name: string, searched: string, model: string, port: LookupPort, value: LookupValue, values: Record<string, unknown>): Promise<ErpLookupAnswer> {
    try {
      const id = await port.create!(values);
      const answer: ErpLookupAnswer = { kind: 'found', value: id };
      this.remember(name, value, answer);
      return answer;
    } catch (err) {
      // The ERP answered with an error (a UserError, a ValidationError): it refused these values, nothing was created.
      if ((err instanceof RpcError && err.fault !== undefined && !err.fault.session) || (err instanceof ConnectorError && RECORD_REFUSALS.has(err.code))) {
        return { kind: 'refused', code: LOOKUP_CODES.createFailed, message: `lookup \`${name}\`: ${show(value)} is not in ${searched}, and creating it in ${model} was refused: ${err.message}; fix the lookup's \`create.values\` (or create it in the ERP) and retry the letter` };
      }
      // The outcome is unknown (the connection broke after the create was sent): the ERP says whether it exists now.
      const again = (await port.find([value]).catch(() => undefined))?.get(String(value)) ?? [];
      if (again.length === 1) {
        const answer: ErpLookupAnswer = { kind: 'found', value: again[0] };
        this.remember(name, value, answer);
        return answer;
      }
      throw err;
    }
  }
}

/** Problems of a mapping's `lookup:` names against the pipeline's `lookups:` (empty when every name is declared). */
export function lookupProblems(pipeline: string, declared: Readonly<Record<string, LookupDef>> | undefined, used: readonly string[] | undefined, mappingFile: string): string[] {
  const names = Object.keys(declared ?? {});
  return (used ?? [])
    .filter((n) => !names.includes(n))
    .map((n) => `mapping ${mappingFile} uses \`lookup: ${n}\`, and pipeline ${pipeline} declares no such lookup under \`lookups:\` (declared: ${names.join(', ') || 'none'}); declare it, e.g. \`lookups: { ${n}: { connection: <erp>, model: <model>, field: <field>, returns: id } }\``);
}
