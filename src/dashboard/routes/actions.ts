/**
 * Actions (POST only, CSRF-checked): run a pipeline now, retry or drop dead letters.
 * Forms get a 303 redirect with a flash message; `Accept: application/json` gets JSON.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errorCode, errorLine } from '../../errors.js';
import { withFlash, type FlashTone } from '../flash.js';
import type { RouteEnv } from './env.js';
import { sleep } from '../../util/time.js';

const idList = z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(z.coerce.number().int().positive()).max(10_000));

const runBody = z.object({ pipeline: z.string().min(1).max(200), _csrf: z.string().optional() });
const deadLetterBody = z.object({
  _csrf: z.string().optional(),
  pipeline: z.string().max(200).optional(),
  /** The shop the page was filtered to: "all" then means all of this shop's letters, never every shop's. */
  shop: z.string().max(200).optional(),
  scope: z.enum(['selected', 'all']).optional(),
  /** A row's own button. */
  only: z.coerce.number().int().positive().optional(),
  id: idList,
});

/** How long "run now" waits for the run to appear so the operator can be taken to it. */
const RUN_APPEAR_TIMEOUT_MS = 5000;
/** How long a retry request waits before answering that the retry continues in the background. */
const RETRY_WAIT_MS = 60_000;


function wantsJson(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('application/json') && !(request.headers.accept ?? '').includes('text/html');
}

/** Register the action routes. */
export function registerActions(app: FastifyInstance, env: RouteEnv): void {
  const { deps, security, flash, logger } = env;
  const answer = (request: FastifyRequest, reply: FastifyReply, back: string, tone: FlashTone, text: string, json: Record<string, unknown>): FastifyReply => {
    if (wantsJson(request)) return reply.code(tone === 'ok' ? 200 : 409).send({ ok: tone === 'ok', message: text, ...json });
    return reply.redirect(withFlash(back, flash.put(tone, text)), 303);
  };
  const invalid = (request: FastifyRequest, reply: FastifyReply, back: string, message: string): FastifyReply =>
    wantsJson(request) ? reply.code(400).send({ ok: false, message }) : reply.redirect(withFlash(back, flash.put('bad', message)), 303);

  app.post('/actions/run', async (request, reply) => {
    const body = runBody.safeParse(request.body);
    const refusal = security.checkAction(request, body.success ? body.data._csrf : undefined);
    if (refusal) return env.refuse(request, reply, refusal);
    if (!body.success) return invalid(request, reply, '/', 'Say which pipeline to run.');
    const name = body.data.pipeline;
    if (!deps.pipelines.some((p) => p.name === name)) return invalid(request, reply, '/', `There is no pipeline named "${name}".`);

    const before = (await deps.state.runs.list({ pipeline: name, limit: 1 }))[0]?.id ?? 0;
    let failure: unknown;
    let settled = false;
    logger.info({ pipeline: name }, 'run requested from the dashboard');
    void deps.runNow(name).then(
      () => {
        settled = true;
      },
      (err: unknown) => {
        failure = err;
        settled = true;
        logger.warn({ pipeline: name, code: errorCode(err), err: errorLine(err) }, 'run requested from the dashboard failed');
      },
    );
    // Wait for the run to be recorded so the operator lands on it and watches it live.
    const deadline = Date.now() + RUN_APPEAR_TIMEOUT_MS;
    let runId: number | undefined;
    while (Date.now() < deadline) {
      const latest = (await deps.state.runs.list({ pipeline: name, limit: 1 }))[0];
      if (latest && latest.id > before) {
        runId = latest.id;
        break;
      }
      if (settled) break;
      await sleep(40);
    }
    if (runId !== undefined) {
      if (wantsJson(request)) return reply.send({ ok: true, pipeline: name, runId });
      return reply.redirect(withFlash(`/runs/${runId}`, flash.put('ok', `Started ${name} (run #${runId}).`)), 303);
    }
    if (failure !== undefined) return answer(request, reply, '/', 'bad', `${name} did not start: ${errorLine(failure)}`, { pipeline: name, code: errorCode(failure) });
    return answer(request, reply, '/', 'ok', `${name} was asked to run.`, { pipeline: name });
  });

  const deadLetterAction = (kind: 'retry' | 'drop') => async (request: FastifyRequest, reply: FastifyReply) => {
    const body = deadLetterBody.safeParse(request.body);
    const refusal = security.checkAction(request, body.success ? body.data._csrf : undefined);
    if (refusal) return env.refuse(request, reply, refusal);
    const pipeline = body.success ? body.data.pipeline || undefined : undefined;
    const shop = body.success ? body.data.shop || undefined : undefined;
    const filter = new URLSearchParams({ ...(pipeline ? { pipeline } : {}), ...(shop ? { shop } : {}) }).toString();
    const back = filter ? `/dead-letters?${filter}` : '/dead-letters';
    if (!body.success) return invalid(request, reply, back, 'The dead letters to act on could not be read.');
    const { only, scope, id } = body.data;

    let target: readonly number[] | 'all';
    if (only !== undefined) target = [only];
    else if (scope === 'all') target = pipeline || shop ? (await deps.state.deadLetters.list({ ...(pipeline ? { pipeline } : {}), ...(shop ? { shop } : {}), limit: 1_000_000, excerpt: true })).map((d) => d.id) : 'all';
    else target = id;
    if (target !== 'all' && target.length === 0) return invalid(request, reply, back, 'Select at least one dead letter.');
    const ids = target === 'all' ? (await deps.state.deadLetters.list({ limit: 1_000_000, excerpt: true })).map((d) => d.id) : target;
    const stillThere = async (): Promise<number> => {
      let left = 0;
      for (const i of ids) if ((await deps.state.deadLetters.get(i)) !== undefined) left++;
      return left;
    };
    const n = ids.length;
    const noun = n === 1 ? 'dead letter' : 'dead letters';
    logger.info({ action: kind, count: n, all: target === 'all' }, `dead-letter ${kind} requested from the dashboard`);

    try {
      if (kind === 'drop') {
        await deps.dropDeadLetters(target);
        const left = await stillThere();
        return answer(request, reply, back, 'ok', `Dropped ${n - left} ${noun}.`, { dropped: n - left });
      }
      let done = false;
      const work = deps.retryDeadLetters(target).then(() => {
        done = true;
      });
      await Promise.race([work, sleep(RETRY_WAIT_MS)]);
      if (!done) {
        work.catch((err: unknown) => logger.warn({ err: errorLine(err) }, 'dead-letter retry failed'));
        return answer(request, reply, back, 'ok', `Retrying ${n} ${noun}; this continues in the background.`, { retrying: n });
      }
      const still = await stillThere();
      const text = `Retried ${n} ${noun}: ${n - still} delivered, ${still} still failing.`;
      return answer(request, reply, back, still === 0 ? 'ok' : 'bad', text, { retried: n, delivered: n - still, stillFailing: still });
    } catch (err) {
      logger.warn({ code: errorCode(err), err: errorLine(err) }, `dead-letter ${kind} failed`);
      return answer(request, reply, back, 'bad', `The ${kind} failed: ${errorLine(err)}`, { code: errorCode(err) });
    }
  };
  app.post('/actions/dead-letters/retry', deadLetterAction('retry'));
  app.post('/actions/dead-letters/drop', deadLetterAction('drop'));
}
