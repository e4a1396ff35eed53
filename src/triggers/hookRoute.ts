/**
 * `POST /hooks/<pipeline>` on the daemon's server. It needs no dashboard token (an ERP has none):
 * its own HMAC signature is its authentication (./hook.ts). The server's Host check still applies,
 * as to every route: an ERP calling by name needs that name in `dashboard.allowedHosts`.
 *
 * Answers: 202 `{ woken }`; 401 for a missing, wrong, stale, replayed or old-format signature (logged at warn
 * with the reason, never the secret or the signature); 404, exactly as for any unknown route, for
 * a pipeline that does not exist or has no `trigger.hook` — a caller without a secret cannot tell
 * those apart; 413 over the body limit; 503 while the daemon's triggers are not running.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../log.js';
import { refusalLogOf } from '../ops/refusals.js';
import type { Runtime } from '../ops/runtime.js';
import { armedHook, HOOK_BODY_LIMIT, ReplayGuard, verifyHook } from './hook.js';

const OLD_FORMAT =
  'signature of the old format (HMAC of "<timestamp>.<body>"): a wake-up now signs "<timestamp>.<pipeline>.<body>", the pipeline\'s name as in the URL between two dots, so that it wakes only that pipeline; update the caller (docs/triggers.md, "Any source: the wake-up hook")';

/** Register the wake-up route (the daemon does, beside the dashboard). */
export async function registerHooks(app: FastifyInstance, runtime: Runtime, logger: Logger): Promise<void> {
  const log = logger.child({ component: 'hooks' });
  const guard = new ReplayGuard();
  const secrets = new Map(runtime.loaded.config.pipelines.flatMap((p) => (p.trigger?.hook ? [[p.name, p.trigger.hook.secret] as const] : [])));
  if (secrets.size === 0) return;
  const sweep = setInterval(() => guard.prune(Date.now()), 60_000);
  // Housekeeping only: the server keeps the process alive.
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  await app.register(async (child) => {
    // The signature covers the bytes as sent: the body is kept raw, whatever its content type.
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: HOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));
    child.post<{ Params: { pipeline: string } }>('/hooks/:pipeline', { bodyLimit: HOOK_BODY_LIMIT }, async (request, reply) => {
      const pipeline = request.params.pipeline;
      const secret = secrets.get(pipeline);
      if (secret === undefined) return reply.callNotFound();
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const refused = verifyHook(secret, pipeline, request.headers, body, guard);
      if (refused) {
        // Cut and counted per source and reason (src/ops/refusals.ts): unsigned wake-ups cost no log space.
        refusalLogOf(app, log).note(request, refused, 'wake-up refused: its signature is missing, wrong, stale or replayed', { pipeline: pipeline.slice(0, 100) });
        if (refused === 'too-many') return reply.code(429).header('retry-after', '60').send({ error: 'too many wake-ups; try again in a minute' });
        if (refused === 'old-format') return reply.code(401).send({ error: OLD_FORMAT });
        return reply.code(401).send({ error: 'invalid or missing signature (X-Shopsync-Timestamp, X-Shopsync-Signature: sha256=HMAC of "<timestamp>.<pipeline>.<body>"; each signature once, within 5 minutes)' });
      }
      const wake = armedHook(runtime, pipeline);
      if (!wake) return reply.code(503).header('retry-after', '5').send({ error: 'the daemon is starting or stopping; try again' });
      wake('hook', request.ip);
      log.debug({ pipeline, remote: request.ip }, 'woken by a signed wake-up');
      return reply.code(202).send({ woken: pipeline });
    });
  });
}
