/**
 * How long a command takes to start (docs/development.md, "Start-up"). Loaded before the CLI:
 *
 *   node --import ./scripts/startup-probe.mjs bin/shopsync.js sync <pipeline>
 *
 * prints to stderr, in ms since the process started, when the first statement was prepared on the
 * ERP's SQLite file (the run's first read; the file name ends in $STARTUP_PROBE_ERP, default
 * erp.sqlite) and when the process ended, each with the CPU time (user + system, all threads) so far.
 * STARTUP_PROBE_EXIT=1 ends the process at that read (to time the start alone with /usr/bin/time);
 * STARTUP_PROBE_MODULES=1 also lists every module loaded (ES modules as they are read, CommonJS
 * ones taking over 0.5 ms with their time), which is how to see what a command loads and why.
 *
 * Nothing of the CLI is changed: better-sqlite3's `prepare` is wrapped when the package is required.
 */
import Module, { register } from 'node:module';
import { writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const erpFile = process.env.STARTUP_PROBE_ERP || 'erp.sqlite';
const say = (text) => writeSync(2, `startup-probe: ${text}\n`);
const at = () => {
  const cpu = process.cpuUsage();
  return `${performance.now().toFixed(1)} ms (cpu ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms)`;
};

if (process.env.STARTUP_PROBE_MODULES) {
  // ES modules are read in the loader thread: it posts each URL with the time it was read.
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (m) => say(`esm ${(m.at - performance.timeOrigin).toFixed(1)} ms ${m.url}`));
  port1.unref();
  const loader = `let port; export function initialize(d) { port = d.port; }
export async function load(url, context, next) { const r = await next(url, context); port.postMessage({ url, at: performance.timeOrigin + performance.now() }); return r; }`;
  register(`data:text/javascript,${encodeURIComponent(loader)}`, { data: { port: port2 }, transferList: [port2] });
}

const load = Module._load;
let depth = 0;
let wrapped = false;
Module._load = function probedLoad(request, parent) {
  const start = performance.now();
  depth++;
  let exported;
  try {
    exported = load.apply(this, arguments);
  } finally {
    depth--;
  }
  const took = performance.now() - start;
  if (process.env.STARTUP_PROBE_MODULES && took > 0.5) say(`cjs ${start.toFixed(1)} ms +${took.toFixed(1)} ms ${'  '.repeat(depth)}${request}`);
  // better-sqlite3's Database class: the one export with prepare and pragma on its prototype.
  if (!wrapped && typeof exported === 'function' && typeof exported.prototype?.prepare === 'function' && typeof exported.prototype?.pragma === 'function') {
    wrapped = true;
    const prepare = exported.prototype.prepare;
    let seen = false;
    exported.prototype.prepare = function probedPrepare(sql) {
      if (!seen && String(this.name).endsWith(erpFile)) {
        seen = true;
        say(`first ERP read at ${at()}: ${String(sql).slice(0, 60)}`);
        if (process.env.STARTUP_PROBE_EXIT) process.exit(0);
      }
      return prepare.apply(this, arguments);
    };
  }
  return exported;
};

process.on('exit', () => say(`exit at ${at()}`));
