/**
 * A file that is not a mapping (issue 29 item 8): `mapping: /etc/passwd` must not put the file's
 * content into the error, which reaches logs, the dashboard and alerts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkMappings, compileMapping, loadMapping } from '../../src/mapping/index.js';
import { MappingError } from '../../src/errors.js';

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n';

function failure(text: string, file = 'm.yaml'): MappingError {
  try {
    compileMapping(text, file);
  } catch (err) {
    if (err instanceof MappingError) return err;
    throw err;
  }
  throw new Error('expected a MappingError');
}

describe('a file that is not a mapping', () => {
  it.each([
    ['text (a passwd file)', PASSWD, 'text'],
    ['a number', '4711\n', 'a number'],
    ['a list', '- root:x:0:0\n- daemon:x:1:1\n', 'a list'],
    ['a true/false value', 'true\n', 'true or false'],
  ])('names the file and what it found, never its content: %s', (_, text, found) => {
    const err = failure(text, '/etc/passwd');
    expect(err.code).toBe('MAPPING_NOT_A_MAPPING');
    expect(err.message).toBe(`/etc/passwd:1:1: is not a mapping file: expected a YAML object with name, direction, target, key and fields, found ${found} (the content is not shown)`);
    expect(err.message).not.toMatch(/root|daemon|4711/);
    expect(err).toMatchObject({ file: '/etc/passwd', line: 1, column: 1 });
  });

  it('says an empty file is empty', () => {
    const err = failure('# nothing yet\n');
    expect(err.code).toBe('MAPPING_NOT_A_MAPPING');
    expect(err.message).toMatch(/^m\.yaml:1:1: is empty: expected a YAML object with name/);
  });

  it('keeps the content out of `mappings check` and of a load from disk too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'not-a-mapping-'));
    const file = join(dir, 'passwd');
    writeFileSync(file, PASSWD);
    await expect(loadMapping(file)).rejects.toMatchObject({ code: 'MAPPING_NOT_A_MAPPING' });
    const report = await checkMappings([file]);
    expect(report.ok).toBe(false);
    expect(JSON.stringify(report)).not.toMatch(/root|daemon/);
  });
});
