/** What init tells the person: the shop's answer, the columns it found, the proposal, the dry run. */
import type { RunSummary } from '../pipeline/index.js';
import type { ShopCheck } from './shop.js';
import type { Introspection, Proposal } from './types.js';

const DELIMITER_NAMES: Readonly<Record<string, string>> = { ';': 'semicolon', ',': 'comma', '\t': 'tab', '|': 'pipe' };

/** The shop check in one line. */
export function shopLine(url: string, check: ShopCheck): string {
  return `shop: ${url} answers${check.total !== undefined ? `; it holds ${check.total} ${check.resource}` : ''}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The source's columns with kind and an example. */
export function summariseColumns(label: string, i: Introspection): string[] {
  const facts = [
    `${i.rows} row(s) sampled`,
    ...(i.encoding ? [i.encoding] : []),
    ...(i.delimiter ? [`${DELIMITER_NAMES[i.delimiter] ?? JSON.stringify(i.delimiter)}-separated`] : []),
    ...(i.locale ? [`decimals in ${i.locale} notation`] : []),
    ...(i.recordsPath ? [`records at ${i.recordsPath}`] : []),
  ];
  const width = Math.max(...i.columns.map((c) => c.name.length));
  return [
    `${label}: ${facts.join(', ')}`,
    ...i.columns.map((c) => `  ${c.name.padEnd(width)}  ${(c.kind + (c.locale ? ` (${c.locale})` : c.dateFormat ? ` (${c.dateFormat})` : '')).padEnd(20)} ${c.samples[0] !== undefined ? `e.g. ${clip(JSON.stringify(c.samples[0]), 40)}` : '(empty)'}`),
  ];
}

/** The proposed placements, what is left over, key and cursor. */
export function summariseProposal(resource: string, p: Proposal): string[] {
  const width = Math.max(0, ...p.fields.map((f) => f.column.length), ...p.unplaced.map((u) => u.column.length));
  return [
    `proposed mapping to ${resource}:`,
    ...p.fields.map((f) => `  ${(f.value !== undefined ? `(${JSON.stringify(f.value)})` : f.column).padEnd(width)} → ${f.target}${f.type ? ` (${f.type}${f.locale ? `, ${f.locale}` : ''})` : ''}  [${f.why}]`),
    ...p.unplaced.map((u) => `  ${u.column.padEnd(width)}   not placed: ${u.reason}`),
    p.natural !== undefined
      ? `key: ${p.key} (the ERP's stable id; ${p.natural} is the number${p.shopKey ? ` the shop matches by ${p.shopKey}` : ''}, and a changed ${p.natural} renames the shop record)`
      : `key: ${p.key}${p.shopKey ? ` (matched in the shop by ${p.shopKey})` : ''}`,
    ...(p.cursor ? [`cursor: ${p.cursor} (${p.cursorNote ?? ''})`] : []),
    ...(p.missingRequired.length > 0 ? [`missing: ${resource} are never created without ${p.missingRequired.join(', ')}, and no column was placed on ${p.missingRequired.length === 1 ? 'it' : 'them'}: each record is refused when it would be created. Place the column (--map <column>=${p.missingRequired[0] ?? ''}), or use a --query that joins the table holding it`] : []),
  ];
}

/** The dry run: what each record would do in the shop. */
export function summariseDryRun(summary: RunSummary): string[] {
  const c = summary.counts;
  const lines = [`dry run of the first ${c.read} record(s): ${c.created} would be created, ${c.updated} updated, ${c.unchanged} unchanged, ${c.failed} refused (nothing was written)`];
  for (const p of summary.plan ?? []) {
    const what = p.action === 'fail' ? `REFUSED ${p.reason ?? ''}` : `${p.action}${p.shopId !== undefined ? ` shop id ${p.shopId}` : ''}`;
    lines.push(`  ${p.erpKey}: ${what}`);
    if (p.payload && p.action !== 'fail') lines.push(`    ${clip(JSON.stringify(p.payload), 300)}`);
  }
  if (summary.error) lines.push(`  the dry run stopped: [${summary.error.code}] ${summary.error.message}`);
  return lines;
}
