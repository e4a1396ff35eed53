/**
 * Every `curl` command of docs/sandbox.md, in the order the page shows them, sent over HTTP to one
 * fresh demo sandbox (what `shopsync sandbox --port 8081 --memory` starts): each must answer 2xx
 * (or the status its comment names, `# answers 409`), and when a `json` block follows its shell
 * block, the answer must match it (the block may leave fields out: objects match partially, arrays
 * entry by entry). The commands are read with the docs' shell reader and replayed with fetch as
 * curl would send them; an option the replayer does not know fails the test rather than being
 * ignored, so the page cannot show a command that does something else than what is checked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { parseBlocks, ROOT, SHELL_LANGS, type Block } from './support/blocks.js';
import { shellCommands, type ShellCommand } from './support/shell.js';

const FILE = 'docs/sandbox.md';
/** The base URL the page's commands use (the port its start commands give). */
const DOC_BASE = 'http://127.0.0.1:8081';

/** One curl command of the page with the answer the page shows for it. */
interface Step {
  readonly line: number;
  readonly command: ShellCommand;
  /** The `json` block right after the command's shell block, parsed. */
  readonly expected?: unknown;
}

/** A request as curl would send it. */
interface CurlRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** The steps of a markdown page: its curl commands, each with the json block that follows its shell block (if any). */
function curlSteps(blocks: readonly Block[]): Step[] {
  const steps: Step[] = [];
  blocks.forEach((block, i) => {
    if (!SHELL_LANGS.has(block.lang) || block.marker === 'skip-doc-test') return;
    const curls = shellCommands(block.text).filter((c) => c.argv[0] === 'curl');
    const next = blocks[i + 1];
    const answer = next?.lang === 'json' ? next : undefined;
    if (answer && curls.length !== 1) throw new Error(`${block.file}:${block.line}: a shell block followed by an answer (json) must hold exactly one curl command, it holds ${curls.length}`);
    for (const command of curls) {
      const step: Step = { line: block.line + command.line, command };
      steps.push(answer ? { ...step, expected: parseJson(answer) } : step);
    }
  });
  return steps;
}

function parseJson(block: Block): unknown {
  try {
    return JSON.parse(block.text) as unknown;
  } catch (err) {
    throw new Error(`${block.file}:${block.line}: the answer block is no JSON: ${(err as Error).message}`);
  }
}

/** The request a curl argument list sends (the options the docs use; any other one throws). */
function curlRequest(argv: readonly string[]): CurlRequest {
  let method: string | undefined;
  let url: string | undefined;
  let body: string | undefined;
  const headers: Record<string, string> = {};
  const value = (i: number): string => {
    const v = argv[i];
    if (v === undefined) throw new Error(`curl option ${argv[i - 1]} needs a value`);
    return v;
  };
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '-s' || arg === '--silent' || arg === '-S' || arg === '--show-error' || arg === '-sS') continue;
    if (arg === '-X' || arg === '--request') method = value(++i);
    else if (arg === '-H' || arg === '--header') {
      const header = value(++i);
      const colon = header.indexOf(':');
      if (colon <= 0) throw new Error(`curl -H needs "Name: value", got ${header}`);
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (arg === '-d' || arg === '--data' || arg === '--data-raw') {
      const data = value(++i);
      if (arg !== '--data-raw' && data.startsWith('@')) throw new Error('curl -d @file is not replayed: write the body inline');
      // Several -d are joined with & (curl's rule).
      body = body === undefined ? data : `${body}&${data}`;
    } else if (!arg.startsWith('-') && url === undefined) url = arg;
    else throw new Error(`curl option ${arg} is not known to the replayer in test/docs/sandbox-examples.test.ts: teach it there (as curl handles it) or leave it out of the docs`);
  }
  if (url === undefined) throw new Error('curl without a URL');
  // curl's defaults: -d makes a POST with a form-encoded body unless told otherwise.
  if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  return { method: method ?? (body === undefined ? 'GET' : 'POST'), url, headers, ...(body === undefined ? {} : { body }) };
}

/** The status a command's comment says it answers (`# answers 409`), else undefined (2xx expected). */
function expectedStatus(command: ShellCommand): number | undefined {
  const m = /\banswers (\d{3})\b/.exec(command.comment);
  return m ? Number(m[1]) : undefined;
}

const steps = curlSteps(parseBlocks(readFileSync(join(ROOT, FILE), 'utf8'), FILE));

describe('the curl replayer', () => {
  it('sends what curl sends: -d is a form-encoded POST unless -X and -H say otherwise', () => {
    expect(curlRequest(['curl', '-s', 'http://x/a', '-H', 'Authorization: Bearer t'])).toEqual({ method: 'GET', url: 'http://x/a', headers: { authorization: 'Bearer t' } });
    expect(curlRequest(['curl', '-d', 'a=1', 'http://x/a'])).toMatchObject({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    expect(curlRequest(['curl', '-X', 'PUT', '-H', 'Content-Type: application/json', '-d', '{}', 'http://x/a'])).toMatchObject({ method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(() => curlRequest(['curl', '-k', 'http://x/a'])).toThrow(/not known to the replayer/);
  });

  it('pairs a command with the answer block under it', () => {
    const blocks = parseBlocks('```sh\ncurl http://x/a   # answers 404\n```\n\n```json\n{"success": false}\n```\n\n```sh\ncurl http://x/b\n```\n', 'x.md');
    const [a, b] = curlSteps(blocks);
    expect(a).toMatchObject({ expected: { success: false } });
    expect(expectedStatus(a!.command)).toBe(404);
    expect(b?.expected).toBeUndefined();
  });
});

describe(`the curl examples of ${FILE}, run against a fresh demo sandbox`, () => {
  let shop: SandboxHandle;
  beforeAll(async () => {
    shop = await startSandbox({ port: 0, dbPath: ':memory:', logger: silentLogger });
  });
  afterAll(async () => {
    await shop?.close();
  });

  it('include the customer and the order examples, and start the shop they run against', () => {
    const doc = readFileSync(join(ROOT, FILE), 'utf8');
    expect(doc).toContain('shopsync sandbox --port 8081 --memory\n');
    const urls = steps.map((s) => curlRequest(s.command.argv)).map((r) => `${r.method} ${new URL(r.url).pathname}`);
    expect(urls).toEqual(expect.arrayContaining(['POST /import/json/customers', 'POST /import/json/orders', 'PUT /import/json/orders', 'GET /export/json/orders']));
    expect(steps.filter((s) => s.expected !== undefined).length).toBeGreaterThanOrEqual(6);
  });

  it.each(steps.map((s) => [`${FILE}:${s.line} ${s.command.source.slice(0, 90)}`, s] as const))('%s', async (_, step) => {
    const request = curlRequest(step.command.argv);
    expect(request.url.startsWith(`${DOC_BASE}/`), `${FILE}:${step.line}: the page's commands address ${DOC_BASE}`).toBe(true);
    const res = await fetch(shop.url + request.url.slice(DOC_BASE.length), { method: request.method, headers: request.headers, ...(request.body === undefined ? {} : { body: request.body }) });
    const text = await res.text();
    const status = expectedStatus(step.command);
    if (status === undefined) expect(res.status, `${FILE}:${step.line} answered ${res.status}: ${text}`).toBeLessThan(300);
    else expect(res.status, `${FILE}:${step.line}: ${text}`).toBe(status);
    if (step.expected !== undefined) expect(JSON.parse(text) as unknown, `${FILE}:${step.line}: the answer differs from the JSON shown under the command`).toMatchObject(step.expected as Record<string, unknown>);
  });
});
