import { RestError } from './errors.ts';
import type { RestRequest } from './request.ts';
import type { RestResponse } from './response.ts';

export interface PaginationInput {
  /** Items matching the query, all pages. */
  total: number;
  perPage: number;
  page: number;
  /** Absolute URL of the collection (rest_url of the route), without query. */
  baseUrl: string;
  /** The error code for a page past the end (e.g. `rest_post_invalid_page_number`). */
  invalidPageCode?: string;
}

/**
 * Sets `X-CMS-Total` / `X-CMS-TotalPages` and the `Link` rel prev/next headers as the WordPress
 * collection controllers do, keeping the request's query parameters. Throws the controller's
 * invalid-page error (400) when `page` is past the last page and there are results.
 */
export function setPaginationHeaders(
  response: RestResponse,
  request: RestRequest,
  input: PaginationInput,
  headerPrefix = 'X-CMS',
): void {
  const maxPages = input.perPage > 0 ? Math.ceil(input.total / input.perPage) : 0;
  if (input.page > maxPages && input.total > 0 && input.invalidPageCode) {
    throw new RestError(
      input.invalidPageCode,
      'The page number requested is larger than the number of pages available.',
      { status: 400 },
    );
  }
  response.header(`${headerPrefix}-Total`, input.total);
  response.header(`${headerPrefix}-TotalPages`, maxPages);
  // add_query_arg( 'page', N, $base ): `page` keeps its place among the request's parameters, or comes last.
  const query = request.query;
  if (input.page > 1) {
    let prev = input.page - 1;
    if (prev > maxPages) prev = maxPages;
    response.linkHeader('prev', buildUrl(input.baseUrl, { ...query, page: prev }));
  }
  if (maxPages > input.page) response.linkHeader('next', buildUrl(input.baseUrl, { ...query, page: input.page + 1 }));
}

/** PHP's urlencode(): only letters, digits and `-_.` stay; a space is `+`. */
function phpUrlencode(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*~]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/**
 * add_query_arg() over urlencode_deep() values, for nested PHP-style params (`a[]=1&a[]=2`, `a[b]=c`): keys
 * keep their order (a key given again keeps its first place), values are encoded like PHP's urlencode(),
 * and an empty value loses its `=` (`hide_empty`, not `hide_empty=`).
 */
export function buildUrl(base: string, params: Record<string, unknown>): string {
  const parts: string[] = [];
  const add = (key: string, value: unknown) => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) add(`${key}[${i}]`, v);
    } else if (typeof value === 'object') for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    else {
      const encoded = phpUrlencode(String(value === true ? 1 : value === false ? '' : value));
      parts.push(encoded === '' ? encodeURIComponent(key) : `${encodeURIComponent(key)}=${encoded}`);
    }
  };
  for (const [k, v] of Object.entries(params)) add(k, v);
  if (parts.length === 0) return base;
  return `${base}${base.includes('?') ? '&' : '?'}${parts.join('&')}`;
}
