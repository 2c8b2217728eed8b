/**
 * How routes document their answers in OpenAPI. The bodies themselves are the contract package's
 * schemas; these are the service's route options around them.
 */
import type { SwaggerTransform } from '@fastify/swagger';
import { errors, type ErrorEntry, type ErrorName } from '@telematics/contract';
import { Type, type TSchema } from 'typebox';

/** Error answers refer to the contract's ErrorBody, registered once per app under its $id, described per status. */
const errorResponse = (description: string) => ({ ...Type.Ref('ErrorBody'), description });

export const bearerSecurity = [{ bearerAuth: [] }];
/** Said outright on routes anyone may call, so the document never leaves it to be guessed. */
export const noSecurity = [];

/** What any route may answer when the service itself fails. */
const SERVER_ERRORS: readonly ErrorName[] = ['internal', 'unavailable'];
/** What a route with a JSON body may answer before its own checks run. */
export const JSON_BODY_ERRORS: readonly ErrorName[] = ['malformedJson', 'invalidRequest', 'bodyTooLarge', 'unsupportedMediaType'];
/** What the bearer authentication answers, and the scope check after it (every bearer route requires one scope). */
export const AUTH_ERRORS: readonly ErrorName[] = ['notAuthenticated', 'invalidToken', 'insufficientScope'];
/**
 * What any request may be answered before a route is chosen; listed on the routes that refuse
 * nothing of their own (probes, metrics), so no operation reads as if it could not fail.
 */
export const REQUEST_ERRORS: readonly ErrorName[] = ['malformedHttp', 'requestTimeout', 'headersTooLarge'];
/** A path parameter too long to route (before authentication). */
export const PATH_ERRORS: readonly ErrorName[] = ['urlTooLong'];

const RETRY_AFTER = { 'retry-after': { type: 'integer', description: 'Seconds to wait before trying again' } };

/**
 * A route's error answers, by status: each lists the catalogue entries it can be (stable code and
 * exact text, `{…}` filled in by the service), and the server's own failures are added. Clients
 * match `detail` against these texts; the SDK maps them to the codes.
 */
/** The statuses errors are answered with (the catalogue's); named so route types see each one. */
type ErrorStatus = 400 | 401 | 403 | 404 | 406 | 408 | 409 | 410 | 413 | 414 | 415 | 422 | 429 | 431 | 500 | 503;

export function errorResponses(...groups: ReadonlyArray<ErrorName | readonly ErrorName[]>): { [S in ErrorStatus]: ReturnType<typeof errorResponse> } {
  const byStatus = new Map<number, ErrorEntry[]>();
  for (const name of new Set([...groups.flat(), ...SERVER_ERRORS])) {
    const entry = errors[name];
    byStatus.set(entry.status, [...(byStatus.get(entry.status) ?? []), entry]);
  }
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, entries]) => [status, {
    ...errorResponse(entries.map((e) => `- \`${e.code}\`: \`${e.text}\``).join('\n')),
    ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
  }])) as { [S in ErrorStatus]: ReturnType<typeof errorResponse> };
}

/**
 * Shows a route in the OpenAPI document with typed shapes (the contract's typed-shapes.ts) in
 * place of the permissive schemas it validates with, so its own checks answer the interface's
 * texts while clients still get types. Only the parts named are replaced.
 */
export function documentedAs(shapes: { readonly body?: TSchema; readonly headers?: TSchema; readonly response?: Readonly<Record<number, TSchema>> }): SwaggerTransform {
  return ({ schema, url }) => {
    const shown = { ...schema } as Record<string, unknown>;
    if (shapes.body) shown['body'] = shapes.body;
    if (shapes.headers) shown['headers'] = shapes.headers;
    if (shapes.response) shown['response'] = { ...(schema.response as object | undefined), ...shapes.response };
    return { schema: shown, url };
  };
}
