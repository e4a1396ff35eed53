/**
 * Chromium driven by playwright-core, never a browser downloaded at run time. First choice: the
 * Chromium inside the npm package @sparticuz/chromium (a devDependency: `npm ci` on a fresh Linux
 * x64 clone brings it, with the libraries and fonts it needs, so no system browser is required).
 * Fallback: Debian's /usr/bin/chromium. `SHOPSYNC_CHROMIUM=<path>` picks a browser instead.
 * Browser tests skip with a loud message when there is none, and fail instead under CI=true.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';

export const SYSTEM_CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(process.cwd(), 'test-results', 'screenshots');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const require = createRequire(import.meta.url);

/** The npm package's entry file, when it is installed and its binary fits this machine. */
function npmChromiumEntry(): string | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  try {
    return require.resolve('@sparticuz/chromium');
  } catch {
    return undefined;
  }
}

/** Whether the browser tests run here; prints why not, and refuses to skip under CI. */
export function browserTestsEnabled(): boolean {
  const chosen = process.env.SHOPSYNC_CHROMIUM;
  if (chosen ? existsSync(chosen) : npmChromiumEntry() !== undefined || existsSync(SYSTEM_CHROMIUM)) return true;
  if (process.env.CI === 'true') return true; // launching fails, and so does the test
  const why = chosen ? `SHOPSYNC_CHROMIUM=${chosen} does not exist` : `neither @sparticuz/chromium (npm install; Linux x64 only) nor ${SYSTEM_CHROMIUM} (apt-get install -y chromium) is there`;
  console.warn(`\n!!! SKIPPING dashboard browser tests: ${why}. Under CI=true they fail instead.\n`);
  return false;
}

/**
 * The NSS and expat libraries the npm package's Chromium links to, which a slim Linux lacks. The
 * package ships them (for Amazon Linux) but unpacks them only on AWS Lambda: unpack them once into
 * the temp folder, as it would (brotli, then tar).
 */
function npmChromiumLibraries(entry: string): string {
  const dir = join(tmpdir(), 'al2023');
  if (existsSync(join(dir, 'lib', 'libnss3.so'))) return join(dir, 'lib');
  mkdirSync(dir, { recursive: true });
  const archive = join(dir, `libs-${process.pid}.tar`);
  writeFileSync(archive, brotliDecompressSync(readFileSync(join(dirname(entry), '..', '..', 'bin', 'al2023.tar.br'))));
  // A file, not a pipe: tar stops reading at the archive's end marker and would cut a pipe short.
  const tar = spawnSync('tar', ['-x', '-f', archive, '-C', dir], { encoding: 'utf8' });
  rmSync(archive, { force: true });
  if (tar.status !== 0) throw new Error(`tar could not unpack @sparticuz/chromium's libraries into ${dir}: ${tar.stderr || tar.error?.message}`);
  return join(dir, 'lib');
}

/** The npm package's Chromium, unpacked (about 4 s, once per machine) into the temp folder with its fonts. */
async function npmChromium(entry: string): Promise<{ executablePath: string; env: Record<string, string> }> {
  const { default: packaged } = await import('@sparticuz/chromium');
  const executablePath = await packaged.executablePath();
  const libs = npmChromiumLibraries(entry);
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const libraryPath = [libs, ...(env.LD_LIBRARY_PATH ? [env.LD_LIBRARY_PATH] : [])].join(':');
  return { executablePath, env: { ...env, LD_LIBRARY_PATH: libraryPath, FONTCONFIG_PATH: join(tmpdir(), 'fonts') } };
}

/** Launch headless Chromium with the flags this machine needs: the npm one, else the system's. */
export async function launchChromium(): Promise<Browser> {
  const chosen = process.env.SHOPSYNC_CHROMIUM;
  if (chosen) return chromium.launch({ executablePath: chosen, args: FLAGS });
  const entry = npmChromiumEntry();
  if (entry) {
    try {
      return await chromium.launch({ ...(await npmChromium(entry)), args: FLAGS });
    } catch (err) {
      if (!existsSync(SYSTEM_CHROMIUM)) throw err;
      console.warn(`\n!!! @sparticuz/chromium did not start (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); using ${SYSTEM_CHROMIUM}\n`);
    }
  }
  return chromium.launch({ executablePath: SYSTEM_CHROMIUM, args: FLAGS });
}

/** Save a full-page screenshot under test-results/screenshots/<name>.png and return its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
