/**
 * buildah as this machine runs containers without a Docker engine (scripts/container-lib.sh):
 * vfs storage in a folder of its own, chroot isolation, the host's network. A container is run
 * the way `docker run` would run it: the image's ENTRYPOINT + CMD, USER, WORKDIR and ENV, with
 * bind mounts and variables; `stop()` sends SIGTERM to the container's main process, as
 * `docker stop` does.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where buildah keeps images and containers (the same place the scripts use). */
export const BUILDAH_ROOT = process.env.SHOPSYNC_BUILDAH_ROOT ?? '/var/tmp/shopsync-containers';

function bahArgs(args: readonly string[]): string[] {
  return ['--root', join(BUILDAH_ROOT, 'storage'), '--runroot', join(BUILDAH_ROOT, 'run'), '--storage-driver', 'vfs', ...args];
}
const bahEnv = { ...process.env, BUILDAH_ISOLATION: 'chroot' };

/** Why the container test cannot run here, or undefined when it can. */
export function containerToolsMissing(): string | undefined {
  if (process.platform !== 'linux') return `buildah runs on Linux only (this is ${process.platform})`;
  const missing = ['buildah', 'mmdebstrap'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
  if (missing.length > 0) return `${missing.join(' and ')} not installed (Debian: apt-get install -y buildah mmdebstrap)`;
  if (process.getuid?.() !== 0) return 'buildah with vfs storage and chroot isolation runs as root here';
  return undefined;
}

/** Result of a command that ran to its end. */
export interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run buildah with these arguments and wait for it. */
export function bah(args: readonly string[]): Ran {
  const r = spawnSync('buildah', bahArgs(args), { env: bahEnv, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function bahOk(args: readonly string[]): string {
  const r = bah(args);
  if (r.status !== 0) throw new Error(`buildah ${args.join(' ')} exited ${r.status}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

/** What `docker run` takes from an image (Docker format, which keeps HEALTHCHECK). */
export interface ImageConfig {
  readonly User: string;
  readonly WorkingDir: string;
  readonly Entrypoint: string[] | null;
  readonly Cmd: string[] | null;
  readonly Env: string[];
  readonly Volumes: Record<string, object> | null;
  readonly ExposedPorts: Record<string, object> | null;
  readonly Healthcheck?: { Test: string[]; Interval: number; Timeout: number; StartPeriod: number; Retries: number };
}

/** The config of an image, as `docker inspect` shows it. */
export function imageConfig(image: string): ImageConfig {
  const all = JSON.parse(bahOk(['inspect', '--type', 'image', image])) as { Docker: { config: ImageConfig } };
  return all.Docker.config;
}

/** The image's size as buildah counts it (uncompressed), e.g. `372 MB`. */
export function imageSize(image: string): string {
  return bahOk(['images', '--format', '{{.Size}}', image]).split('\n')[0]!;
}

/** A bind mount: host path, container path, read-only or not. */
export interface Mount {
  readonly host: string;
  readonly at: string;
  readonly readOnly?: boolean;
}

/** How to run a container. */
export interface RunOptions {
  readonly mounts?: readonly Mount[];
  readonly env?: Readonly<Record<string, string>>;
  /** Instead of the image's CMD (the ENTRYPOINT stays, as with `docker run image cmd…`). */
  readonly cmd?: readonly string[];
}

/** A process started in a container. */
export interface Started {
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (a signal's name when killed). */
  readonly exited: Promise<number | string>;
}

/** A working container made from an image: one `docker run`'s file system. */
export class Container {
  private constructor(
    readonly name: string,
    readonly config: ImageConfig,
  ) {}

  /** `buildah from` the image, never pulling. */
  static create(image: string, name: string): Container {
    bah(['rm', name]);
    bahOk(['from', '--pull=never', '--name', name, image]);
    return new Container(name, imageConfig(image));
  }

  private runArgs(o: RunOptions, command: readonly string[]): string[] {
    // buildah 1.28 with chroot isolation mounts the image's anonymous VOLUME over a bind mount of
    // the same path once three or more mounts are given, so the state would land inside buildah's
    // storage instead of the host folder. `docker run -v host:/app/state` replaces the volume;
    // dropping it from this working container (not from the image) does the same here.
    for (const m of o.mounts ?? []) if (this.config.Volumes?.[m.at]) bahOk(['config', '--volume', `${m.at}-`, this.name]);
    const mounts = (o.mounts ?? []).flatMap((m) => ['-v', `${m.host}:${m.at}${m.readOnly ? ':ro' : ''}`]);
    const env = Object.entries(o.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    return ['run', ...mounts, ...env, this.name, '--', ...command];
  }

  /** ENTRYPOINT + (options' cmd or the image's CMD): what `docker run` starts. */
  command(o: RunOptions = {}): string[] {
    return [...(this.config.Entrypoint ?? []), ...(o.cmd ?? this.config.Cmd ?? [])];
  }

  /**
   * Run to the end, as `docker run --rm image cmd…` would. Asynchronous: a sandbox in the test's
   * own process must go on answering meanwhile.
   */
  async run(o: RunOptions = {}): Promise<Ran> {
    return this.wait(this.runArgs(o, this.command(o)));
  }

  /** Run a command as it is (no ENTRYPOINT), as `docker exec` and HEALTHCHECK do. */
  async exec(command: readonly string[], o: Omit<RunOptions, 'cmd'> = {}): Promise<Ran> {
    return this.wait(this.runArgs(o, command));
  }

  private async wait(args: readonly string[]): Promise<Ran> {
    const child = spawn('buildah', bahArgs(args), { env: bahEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    return { status, stdout, stderr };
  }

  /** Start in the background, as `docker run -d` would. */
  start(o: RunOptions = {}): Started {
    const child = spawn('buildah', bahArgs(this.runArgs(o, this.command(o))), { env: bahEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr.on('data', (d: Buffer) => (text += d.toString()));
    const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
    return { child, output: () => text, exited };
  }

  /** The container's root file system as the host sees it. */
  mount(): string {
    return bahOk(['mount', this.name]);
  }

  /** Remove the working container. */
  remove(): void {
    bah(['umount', this.name]);
    bah(['rm', this.name]);
  }
}

/** Every process below `pid`. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: the parent pid follows the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/**
 * The container's main process (what `docker stop` signals): with chroot isolation there is no PID
 * namespace, so it is the first process below buildah that runs `program`.
 */
export function mainProcess(started: Started, program = 'node'): number | undefined {
  return descendants(started.child.pid!).find((p) => {
    try {
      return readFileSync(`/proc/${p}/comm`, 'utf8').trim() === program;
    } catch {
      return false;
    }
  });
}

/** The real, effective, saved and file-system uid of a process. */
export function uidsOf(pid: number): number[] {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('Uid:'))!;
  return line.split(/\s+/).slice(1).map(Number);
}

/** path → "mtime size mode" of every file (and "folder" for each folder) in a container's root file system. */
export function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const skip = new Set(['/proc', '/sys', '/dev']);
  const walk = (rel: string) => {
    let names: string[];
    try {
      names = readdirSync(join(root, rel));
    } catch {
      return;
    }
    for (const name of names) {
      const path = `${rel}/${name}`;
      if (skip.has(path)) continue;
      const st = lstatSync(join(root, path));
      // A folder's own times change when the runtime adds and removes its files there (buildah does
      // in /run on each run); what a process leaves behind shows as the files themselves.
      out.set(path, st.isDirectory() ? 'folder' : `${st.mtimeMs} ${st.size} ${st.mode}`);
      if (st.isDirectory()) walk(path);
    }
  };
  walk('');
  return out;
}

/** What changed between two snapshots: new, changed and removed paths. */
export function changedPaths(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [path, sig] of after) if (before.get(path) !== sig) out.push(path);
  for (const path of before.keys()) if (!after.has(path)) out.push(`${path} (removed)`);
  return out.sort();
}

