/**
 * The doc checkers themselves: a renamed key, flag or command in an example is caught, and the
 * shell reader splits command lines the way a shell would.
 */
import { describe, expect, it } from 'vitest';
import { parseBlocks, type Block } from './support/blocks.js';
import { parseProblem, synopsisProblem } from './support/cli.js';
import { shellCommands, shopsyncArgs } from './support/shell.js';
import { checkYamlBlock, impliedYamlMarker } from './support/yaml.js';

const block = (info: string, text: string): Block => {
  const [b] = parseBlocks(`\`\`\`${info}\n${text}\`\`\`\n`, 'example.md');
  return b as Block;
};

describe('the YAML checker', () => {
  it('accepts a documented retention block and refuses one with a misspelt key', async () => {
    await expect(checkYamlBlock(block('yaml config-fragment', 'state:\n  retention:\n    eventsDays: 30\n'))).resolves.toBeUndefined();
    await expect(checkYamlBlock(block('yaml config-fragment', 'state:\n  retention:\n    eventDays: 30\n'))).rejects.toThrow(/example\.md:1: .*eventDays/);
  });

  it('refuses a source fragment whose key the file source does not know', async () => {
    await expect(checkYamlBlock(block('yaml source-fragment connection=drop', 'format: xml\nrecordPath: A.B\n'))).resolves.toBeUndefined();
    await expect(checkYamlBlock(block('yaml source-fragment connection=drop', 'format: xml\nrecordsPat: A.B\n'))).rejects.toThrow(/recordsPat/);
  });

  it('refuses a pipeline whose shipped mapping writes another resource', async () => {
    const pipeline = (mapping: string) => `pipelines:\n  - { name: p, direction: push, resource: products, mapping: ${mapping}, source: { connection: erp, query: SELECT 1, cursor: c, key: k } }\n`;
    await expect(checkYamlBlock(block('yaml config-fragment', pipeline('stock.yaml')))).resolves.toBeUndefined();
    await expect(checkYamlBlock(block('yaml config-fragment', pipeline('customers.yaml')))).rejects.toThrow(/customers/);
  });

  it('compiles mapping fragments against the registry: an unknown target field or rule key fails', async () => {
    await expect(checkYamlBlock(block('yaml mapping-fragment target=products', 'fields:\n  products_ean: EAN\n'))).resolves.toBeUndefined();
    await expect(checkYamlBlock(block('yaml mapping-fragment target=products', 'fields:\n  products_eam: EAN\n'))).rejects.toThrow(/products_ean/);
    await expect(checkYamlBlock(block('yaml mapping-fragment target=products', 'fields:\n  products_ean: { from: EAN, defualt: "" }\n'))).rejects.toThrow(/defualt/);
  });

  it('tells an unmarked config fragment from a mapping, and gives up on anything else', () => {
    expect(impliedYamlMarker(block('yaml', 'alerts:\n  maxPerHour: 3\n'))).toBe('config-fragment');
    expect(impliedYamlMarker(block('yaml', 'name: m\ndirection: erp-to-shop\nfields: {}\n'))).toBe('mapping');
    expect(impliedYamlMarker(block('yaml', 'fields:\n  a: b\n'))).toBeUndefined();
  });
});

describe('the CLI checker', () => {
  it('accepts what the CLI accepts and names what it does not', async () => {
    expect(await parseProblem(['sync', 'products', '--dry-run', '--json'])).toBeUndefined();
    expect(await parseProblem(['--help'])).toBeUndefined();
    expect(await parseProblem(['sync', 'products', '--dryrun'])).toMatch(/unknown option '--dryrun'/);
    expect(await parseProblem(['synch', 'products'])).toMatch(/unknown command 'synch'/);
    expect(await parseProblem(['backfill', 'products', '--from', '1'])).toMatch(/--to/);
    expect(await parseProblem(['sandbox', '--seed', 'full'])).toMatch(/full/);
  });

  it('checks synopses written in prose', () => {
    expect(synopsisProblem('shopsync dlq retry <ids…> | --all [-p <pipeline>] [--json]')).toBeUndefined();
    expect(synopsisProblem('shopsync status [--json] [-c <file>]')).toBeUndefined();
    expect(synopsisProblem('shopsync dlq list [--pipline <name>]')).toMatch(/--pipline/);
    expect(synopsisProblem('shopsync dlq purge --all')).toMatch(/unknown command "purge"/);
  });
});

describe('the shell reader', () => {
  it('joins continued lines, keeps quoted words, takes VAR=value prefixes and trailing comments', () => {
    const [a, b, c] = shellCommands("BENCH_QUICK=1 npm run bench   # quick sizes\nshopsync sandbox --token 'ci=products:read' \\\n  --port 8081 &\ncurl -H \"Authorization: Bearer $T\" http://x | jq .\n");
    expect(a).toMatchObject({ assignments: { BENCH_QUICK: '1' }, argv: ['npm', 'run', 'bench'], comment: 'quick sizes' });
    expect(b).toMatchObject({ argv: ['shopsync', 'sandbox', '--token', 'ci=products:read', '--port', '8081'], background: true });
    expect(shopsyncArgs(b?.argv ?? [])).toEqual(['sandbox', '--token', 'ci=products:read', '--port', '8081']);
    expect(c?.argv).toEqual(['curl', '-H', 'Authorization: Bearer $T', 'http://x']);
  });
});
