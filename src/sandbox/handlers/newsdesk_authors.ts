/** News authors: read only through the API (fields not shown: sandbox decision, see docs/spec-gaps.md). */
import type { ResourceHandler } from '../handler.js';
import { oneReply } from '../kit.js';
import { exportFromStore } from '../exports.js';
import { seedNewsAuthors } from '../seed/newsdesk.js';
import { recordFromPath } from './content/values.js';

export const NEWS_AUTHORS = 'newsdesk_authors';

/** The sandbox handler of newsdesk_authors (registered in handlers/index.ts). */
export const newsdeskAuthorsHandler: ResourceHandler = {
  seed(ctx, kind) {
    if (kind === 'demo') seedNewsAuthors(ctx);
  },
  export: (ctx, req) => exportFromStore(ctx, req, { view: (r) => r }),
  exportOne(ctx, req) {
    const record = recordFromPath(ctx, req, NEWS_AUTHORS, 'News author');
    return oneReply(req.resource, record);
  },
};
