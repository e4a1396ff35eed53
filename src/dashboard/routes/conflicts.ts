/**
 * The conflicts action (POST only, CSRF-checked like every dashboard action): take the ERP's value or
 * keep the shop's for one field of a record, or every open field of it (src/conflicts/resolve.ts).
 * Forms get a 303 redirect back with a flash message; `Accept: application/json` gets JSON.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ConflictNotFoundError, resolutionText, resolveConflicts } from '../../conflicts/index.js';
import { errorCode, errorLine } from '../../errors.js';
import { withFlash } from '../flash.js';
import type { RouteEnv } from './env.js';

const resolveBody = z.object({
  _csrf: z.string().optional(),
  pipeline: z.string().min(1).max(200),
  erpKey: z.string().min(1).max(2000),
  /** One field; absent: every open conflict of the record. */
  field: z.string().max(1000).optional(),
  take: z.enum(['erp', 'shop']),
  /** The page to return to. */
  back: z.enum(['conflicts', 'record']).optional(),
});

function wantsJson(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('application/json') && !(request.headers.accept ?? '').includes('text/html');
}

/** Register the conflict action. */
export function registerConflictActions(app: FastifyInstance, env: RouteEnv): void {
  const { deps, security, flash, logger } = env;
  app.post('/actions/conflicts/resolve', async (request: FastifyRequest, reply: FastifyReply) => {
    const body = resolveBody.safeParse(request.body);
    const refusal = security.checkAction(request, body.success ? body.data._csrf : undefined);
    if (refusal) return env.refuse(request, reply, refusal);
    const back = !body.success ? '/conflicts' : body.data.back === 'record' ? `/records?q=${encodeURIComponent(body.data.erpKey)}` : `/conflicts?pipeline=${encodeURIComponent(body.data.pipeline)}`;
    const answer = (ok: boolean, status: number, text: string, json: Record<string, unknown> = {}): FastifyReply =>
      wantsJson(request) ? reply.code(status).send({ ok, message: text, ...json }) : reply.redirect(withFlash(back, flash.put(ok ? 'ok' : 'bad', text)), 303);
    if (!body.success) return answer(false, 400, 'Say which conflict to decide, and whether to take the ERP value or keep the shop value.');
    const { pipeline, erpKey, field, take } = body.data;
    if (!deps.pipelines.some((p) => p.name === pipeline)) return answer(false, 400, `There is no pipeline named "${pipeline}".`);
    try {
      const decided = await resolveConflicts(deps.state, { pipeline, erpKey, ...(field ? { field } : {}) }, take);
      logger.info({ pipeline, erpKey, field, take, conflicts: decided.length }, 'conflict decided from the dashboard');
      // The CLI's words, without its code quotes.
      const text = resolutionText(decided, take).replace(/`/g, '');
      return answer(true, 200, `${text.charAt(0).toUpperCase()}${text.slice(1)}.`, { decided });
    } catch (err) {
      if (err instanceof ConflictNotFoundError) return answer(false, 409, err.message, { code: err.code });
      logger.warn({ code: errorCode(err), err: errorLine(err) }, 'deciding a conflict failed');
      return answer(false, 409, `Deciding the conflict failed: ${errorLine(err)}`, { code: errorCode(err) });
    }
  });
}
