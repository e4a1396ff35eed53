/**
 * Checking the shop while the person is still there to fix it: one read of the target resource
 * with the given URL and credentials (a token, or an OAuth client whose token is fetched first).
 */
import { AuthenticationError, createShopClient, getResource, ScopeError, ShopApiError, TransportError, type ResourceName } from '../shop/index.js';
import type { Logger } from '../log.js';
import { errorLine } from '../errors.js';
import { INIT_CODES, InitError } from './errors.js';
import type { planShop } from './connection.js';

/** What the shop said. */
export interface ShopCheck {
  /** The resource that was read. */
  readonly resource: string;
  /** Records of the resource the shop reports (when it says). */
  readonly total?: number;
  /** The first record of the export, if any. */
  readonly sample?: Record<string, unknown>;
}

/** Read one record of `resource`; throws InitError saying what to fix when the shop refuses. */
export async function checkShop(shop: ReturnType<typeof planShop>['live'], resource: string, logger: Logger): Promise<ShopCheck> {
  const client = createShopClient({
    baseUrl: shop.baseUrl,
    auth: shop.oauth ? { kind: 'oauth', ...shop.oauth } : { kind: 'token', token: shop.token ?? '' },
    // A person is waiting: fail fast instead of the daemon's patient retries.
    retry: { retries: 1, baseDelayMs: 200, maxDelayMs: 1000 },
    timeoutMs: 15_000,
    logger,
  });
  const readable = getResource(resource).ops.export ? resource : 'products';
  try {
    for await (const page of client.exportPages(readable as ResourceName, { pageSize: 1 })) {
      return { resource: readable, ...(page.total !== undefined ? { total: page.total } : {}), ...(page.records[0] ? { sample: page.records[0] } : {}) };
    }
    return { resource: readable };
  } catch (err) {
    const where = shop.baseUrl;
    if (err instanceof AuthenticationError) {
      throw new InitError(INIT_CODES.shop, `${where} refuses the ${shop.oauth ? 'OAuth client' : 'token'} (401); check ${shop.oauth ? 'the client id and secret' : 'the access token'} in the shop's API settings`, { cause: err });
    }
    if (err instanceof ScopeError) {
      throw new InitError(INIT_CODES.shop, `${where}: the credentials lack the scope ${getResource(readable).ops.export?.scope ?? `${readable}:read`}; grant it in the shop (init reads one ${readable} record to check the connection)`, { cause: err });
    }
    if (err instanceof TransportError) {
      throw new InitError(INIT_CODES.shop, `${where} does not answer (${errorLine(err)}); check the URL (it ends before /export, e.g. https://shop.example.com/api) and that this machine can reach it`, { cause: err });
    }
    if (err instanceof ShopApiError) throw new InitError(INIT_CODES.shop, `${where} answered ${errorLine(err)}; is this the shop's Administration JSON API URL?`, { cause: err });
    throw err;
  } finally {
    await client.close();
  }
}
