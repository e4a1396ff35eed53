/**
 * Every operation of every registry resource is sent to the registry's path with the registry's
 * method. Generic over `allResources`, so resources added later are covered without edits here.
 */
import { describe, expect, it } from 'vitest';
import { allResources, type OperationDef, type ResourceDef, type ResourceName } from '../../../src/shop/index.js';
import type { ShopClient } from '../../../src/shop/index.js';
import { collect, page, shop, testClient, useNock, writeAnswer } from './helpers.js';

const ID = 7;

/** Fill a registry template the way the test expects the client to. */
function filled(path: string, values: Record<string, number | string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]));
}

/** How the client reaches each resource-specific operation (extra ops must appear here). */
const EXTRA_CALLS: Record<string, (client: ShopClient, resource: ResourceDef, name: string, op: OperationDef) => { expect: () => void; run: () => Promise<unknown> }> = {
  status: (client, resource, _name, op) => ({
    expect: () => {
      shop().intercept(filled(op.path, { id: ID }), op.method, { contracts_status: 2, comment: 'paused by test' }).reply(200, { success: true, api_version: '2.7.0', type: resource.name });
    },
    run: () => client.setContractStatus(ID, 2, 'paused by test'),
  }),
  claims: (client, _resource, _name, op) => ({
    expect: () => {
      shop()
        .intercept(op.path, op.method, { type: 'ticket_claims', data: [{ ticket_id: ID, admin_id: 1, state: 'claimed' }] })
        .reply(200, { success: true, stats: { total: 1, claimed: 1, refreshed: 0, taken_over: 0, released: 0, unchanged: 0, failed: 0 }, errors: [], records: [{ index: 0, ticket_id: ID, status: 'claimed' }] });
    },
    run: () => client.claimTickets([{ ticket_id: ID, admin_id: 1, state: 'claimed' }]),
  }),
  attachments: (client, _resource, _name, op) => ({
    expect: () => {
      shop().intercept(filled(op.path, { id: ID }), op.method).reply(200, { success: true, ticket_id: ID, ticket_link_id: 'T-7', files: [] });
    },
    run: () => client.listTicketAttachments(ID),
  }),
  attachment: (client, _resource, _name, op) => ({
    expect: () => {
      shop().intercept(filled(op.path, { id: ID }), op.method).query({ file: 'a.pdf' }).reply(200, Buffer.from('%PDF'), { 'Content-Type': 'application/pdf' });
    },
    run: () => client.downloadTicketAttachment(ID, 'a.pdf'),
  }),
  media: (client, _resource, _name, op) => ({
    expect: () => {
      shop()
        .intercept(op.path, op.method, { entity_type: 'product_image', files: [{ name: 'a.jpg', content_base64: Buffer.from('jpg').toString('base64') }] })
        .reply(200, { success: true, type: 'media', files: [{ index: 0, name: 'a.jpg', file_name: 'a.jpg', size: 3 }], errors: [] });
    },
    run: () => client.uploadMedia('product_image', [{ name: 'a.jpg', content: Buffer.from('jpg') }]),
  }),
  productlist: (client, resource, _name, op) => ({
    expect: () => {
      const limit = resource.ops.export?.paging.maxLimit ?? 100;
      shop().intercept(op.path, op.method).query({ limit, offset: 0 }).reply(200, page('categories_productlist', [], 0, limit, 0));
    },
    run: () => collect(client.categoryProductList()),
  }),
};

function genericExtra(client: ShopClient, resource: ResourceDef, name: string, op: OperationDef): { expect: () => void; run: () => Promise<unknown> } {
  const paging = resource.ops.export?.paging;
  return {
    expect: () => {
      const scope = shop().intercept(op.path, op.method);
      (paging?.kind === 'limit-offset' ? scope.query({ limit: paging.maxLimit, offset: 0 }) : scope).reply(200, page(resource.name, [], 0, paging?.maxLimit ?? 0, 0));
    },
    run: () => collect(client.exportExtra(resource.name as ResourceName, name)),
  };
}

describe('registry routes', () => {
  useNock();

  it('covers at least products, orders and customers', () => {
    expect(allResources.map((r) => r.name)).toEqual(expect.arrayContaining(['products', 'orders', 'customers']));
  });

  for (const resource of allResources) {
    const name = resource.name as ResourceName;
    const { ops } = resource;
    describe(resource.name, () => {
      if (ops.export) {
        const op = ops.export;
        it(`exports with ${op.method} ${op.path} at the maximum page size`, async () => {
          const scope = shop().intercept(op.path, op.method);
          (op.paging.kind === 'limit-offset' ? scope.query({ limit: op.paging.maxLimit, offset: 0 }) : scope).reply(200, page(resource.name, [], 0, op.paging.maxLimit, 0));
          const { client } = testClient();
          expect(await collect(client.exportAll(name))).toEqual([]);
        });
      }
      if (ops.exportOne) {
        const op = ops.exportOne;
        it(`reads one record with ${op.method} ${op.path}`, async () => {
          shop().intercept(filled(op.path, { id: ID }), op.method).reply(200, { success: true, type: resource.name, data: [] });
          const { client } = testClient();
          expect(await client.exportOne(name, ID)).toBeUndefined();
        });
      }
      if (ops.range) {
        const op = ops.range;
        it(`reads an id range with ${op.method} ${op.path}`, async () => {
          const paging = resource.ops.export?.paging;
          const scope = shop().intercept(filled(op.path, { start: 1, end: 9, id: 1 }), op.method);
          (paging?.kind === 'limit-offset' ? scope.query({ limit: paging.maxLimit, offset: 0 }) : scope).reply(200, page(resource.name, [], 0, paging?.maxLimit ?? 0, 0));
          const { client } = testClient();
          expect(await client.exportRange(name, 1, 9)).toEqual([]);
        });
      }
      for (const kind of ['create', 'update'] as const) {
        const op = ops[kind];
        if (!op) continue;
        it(`${kind}s with ${op.method} ${op.path} in a {type, data} envelope`, async () => {
          shop()
            .intercept(op.path, op.method, { type: resource.writeType ?? resource.name, data: [{ marker: 1 }] })
            .reply(200, writeAnswer(resource.name, kind, { data: [{ index: 0 }] }));
          const { client } = testClient();
          const result = await client[kind](name, [{ marker: 1 }]);
          expect(result.outcomes).toEqual([{ index: 0, ok: true, data: { index: 0 }, warnings: [] }]);
        });
      }
      if (ops.delete) {
        const op = ops.delete;
        it(`deletes with ${op.method} ${op.path}, id in the ${op.idIn}`, async () => {
          const deleted = { success: true, type: resource.name, deleted: [ID] };
          if (op.idIn === 'path') shop().intercept(filled(op.path, { id: ID, [op.param]: ID }), op.method).reply(200, deleted);
          else if (op.idIn === 'query') shop().intercept(op.path, op.method).query({ [op.param]: ID }).reply(200, deleted);
          else shop().intercept(op.path, op.method, { [op.param]: ID }).reply(200, deleted);
          const { client } = testClient();
          expect((await client.delete(name, ID)).deleted).toEqual([ID]);
        });
      }
      if (ops.bulkDelete) {
        const op = ops.bulkDelete;
        it(`bulk deletes with ${op.method} ${op.path} (${op.style})`, async () => {
          const deleted = { success: true, type: resource.name, deleted: [1, 2] };
          let selector: Record<string, unknown>;
          if (op.style === 'ids') {
            selector = { [op.param]: [1, 2] };
            shop().intercept(op.path, op.method, { [op.param]: [1, 2] }).reply(200, deleted);
          } else if (op.style === 'envelope') {
            selector = { data: [{ [resource.key.id]: 1 }, { [resource.key.id]: 2 }] };
            shop().intercept(op.path, op.method, { type: resource.writeType ?? resource.name, data: selector.data as Record<string, number>[] }).reply(200, deleted);
          } else {
            selector = { [op.param]: 1 };
            shop().intercept(op.path, op.method).query({ [op.param]: 1 }).reply(200, deleted);
          }
          const { client } = testClient();
          expect((await client.bulkDelete(name, selector)).deleted).toEqual([1, 2]);
        });
      }
      for (const [extraName, op] of Object.entries(ops.extra ?? {})) {
        it(`runs \`${extraName}\` with ${op.method} ${op.path}`, async () => {
          const { client } = testClient();
          const call = EXTRA_CALLS[extraName]?.(client, resource, extraName, op) ?? (op.method === 'GET' ? genericExtra(client, resource, extraName, op) : undefined);
          if (!call) throw new Error(`The client has no method for ${resource.name} \`${extraName}\` (${op.method} ${op.path}); add one`);
          call.expect();
          await call.run();
        });
      }
    });
  }
});
