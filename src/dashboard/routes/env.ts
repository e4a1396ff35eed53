/** What the route modules share. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../log.js';
import type { RefusalLog } from '../../ops/refusals.js';
import type { FlashStore } from '../flash.js';
import type { LiveHub } from '../live.js';
import type { DashboardSecurity, Refusal } from '../security.js';
import type { DashboardDeps } from '../types.js';

/** Shared state of the dashboard's routes. */
export interface RouteEnv {
  readonly deps: DashboardDeps;
  readonly security: DashboardSecurity;
  readonly flash: FlashStore;
  readonly live: LiveHub;
  readonly logger: Logger;
  /** Where refused requests are logged (cut and counted). */
  readonly refusals: RefusalLog;
  /** Answer a refused request (page or JSON). */
  refuse(request: FastifyRequest, reply: FastifyReply, refusal: Refusal): FastifyReply;
}
