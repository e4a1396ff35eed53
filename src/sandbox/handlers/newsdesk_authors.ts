/** News authors: read only through the API (fields not shown: sandbox decision, see docs/gaps/sandbox.md). */
import type { ResourceHandler } from '../handler.js';
import { fail, oneReply } from '../kit.js';
import { seedNewsAuthors } from '../seed/newsdesk.js';
import { exportFiltered, pathId } from './content/values.js';

export const NEWS_AUTHORS = 'newsdesk_authors';

/** The sandbox handler of newsdesk_authors (registered in handlers/index.ts). */
export const newsdeskAuthorsHandler: ResourceHandler = {
  seed(ctx, kind) {
    if (kind === 'demo') seedNewsAuthors(ctx);
  },
  export: (ctx, req) => exportFiltered(ctx, req, { view: (r) => r }),
  exportOne(ctx, req) {
    const record = ctx.store.get(NEWS_AUTHORS, pathId(req));
    if (!record) fail(404, 'Not found', `News author ${req.params.id} does not exist`);
    return oneReply(req.resource, record);
  },
};
