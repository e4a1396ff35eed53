/**
 * The daemon's HTTP server in a process of its own, for the slow-client test: started under a low
 * `ulimit -n`, with a `POST /hooks/:pipeline` that reads its raw body as the wake-up route does,
 * and a stand-in for the inbox watcher that opens a file every 200 ms and says on stderr when it
 * cannot (EMFILE). Prints `listening <url>` once it listens.
 */
import { closeSync, openSync } from 'node:fs';
import { silentLogger } from '../../../src/log.js';
import { createMetrics } from '../../../src/ops/metrics.js';
import { readiness } from '../../../src/ops/readiness.js';
import { startOpsServer } from '../../../src/ops/server.js';

const server = await startOpsServer({
  port: 0,
  metrics: createMetrics(),
  readiness: () => readiness({}),
  logger: silentLogger,
  requestTimeoutMs: Number(process.env.REQUEST_TIMEOUT_MS ?? 3000),
  headersTimeoutMs: Number(process.env.HEADERS_TIMEOUT_MS ?? 2000),
  register: async (app) => {
    await app.register(async (child) => {
      child.removeAllContentTypeParsers();
      child.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_request, body, done) => done(null, body));
      child.post('/hooks/:pipeline', async (_request, reply) => reply.code(401).send({ error: 'invalid or missing signature' }));
    });
  },
});
setInterval(() => {
  try {
    closeSync(openSync(process.execPath, 'r'));
  } catch (err) {
    process.stderr.write(`inbox: ${(err as NodeJS.ErrnoException).code ?? String(err)}\n`);
  }
}, 200);
process.stdout.write(`listening ${server.url}\n`);
