/** The package version. */
import { readFileSync } from 'node:fs';

/** Read from package.json lazily (no work at import time). */
export function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
