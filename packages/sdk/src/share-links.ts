/** /share-links: links to one vehicle's live position for someone without an account, expiring and revocable. */
import { eachOfPages } from './pages.js';
import type { Transport } from './transport.js';
import type { CreatedShareLink, RequestOptions, ShareLink, ShareLinkRequest, ShareLinksPage } from './types.js';

const path = (id: string) => `/share-links/${encodeURIComponent(id)}`;

export interface ShareLinksQuery {
  /** Only this vehicle's links. */
  readonly vin?: string;
  readonly state?: 'active' | 'expired' | 'revoked';
  /** 1 to 200, default 50. */
  readonly limit?: number;
  /** A next_cursor of an earlier page: the links created before it. */
  readonly before?: string;
}

export class ShareLinks {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  /** The answer's `url` is the only time the link is shown. Not retried: a retry after a lost answer would make a second link. */
  async create(request: ShareLinkRequest, options: RequestOptions = {}): Promise<CreatedShareLink> {
    return (await this.transport.json<CreatedShareLink>({ method: 'POST', path: '/share-links', json: request, retry: 'never', ...options })).data;
  }

  /** One page of the company's links, newest first. */
  async page(query: ShareLinksQuery = {}, options: RequestOptions = {}): Promise<ShareLinksPage> {
    const { vin, state, limit, before } = query;
    return (await this.transport.json<ShareLinksPage>({ method: 'GET', path: '/share-links', query: { vin, state, limit, before }, retry: 'read', ...options })).data;
  }

  /** Every link the query selects, newest first, page by page for as long as you iterate. */
  list(query: ShareLinksQuery = {}, options: RequestOptions = {}): AsyncGenerator<ShareLink> {
    return eachOfPages(query.before, (before) => this.page({ ...query, before }, options));
  }

  async get(id: string, options: RequestOptions = {}): Promise<ShareLink> {
    return (await this.transport.json<ShareLink>({ method: 'GET', path: path(id), retry: 'read', ...options })).data;
  }

  /** The link answers 410 from now on. Revoking twice changes nothing, so it is retried. */
  async revoke(id: string, options: RequestOptions = {}): Promise<void> {
    await this.transport.json<undefined>({ method: 'DELETE', path: path(id), retry: 'read', ...options });
  }
}
