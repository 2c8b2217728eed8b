/** What the /webhook-endpoints routes share: their schemas and whose endpoints a request is about. */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Owner } from '../../webhooks/endpoints/endpoint-resource.js';
import { principalOf } from '../authenticate-hook.js';
import { AUTH_ERRORS, PATH_ERRORS } from '../schemas.js';

export const EndpointParams = Type.Object({ id: Type.String({ description: 'The endpoint id' }) });
export const AnyObject = (description: string) => Type.Unsafe<Readonly<Record<string, unknown>>>({ type: 'object', description });
export const Endpoint = Type.Object({
  id: Type.String(), url: Type.String(), event_types: Type.Array(Type.String()),
  status: Type.String({ description: 'pending_verification, enabled or disabled' }),
  disabled_reason: Type.Union([Type.String({ description: 'gone (the receiver answered 410), failing, operator' }), Type.Null()]),
  created: Type.String(),
});
/** What every route about one endpoint may answer. */
export const ONE_ENDPOINT = [...AUTH_ERRORS, ...PATH_ERRORS, 'webhookEndpointNotFound'] as const;

/** The caller's application, whose endpoints these are. */
export function ownerOf(request: FastifyRequest): Owner {
  const { companyId, applicationId } = principalOf(request);
  return { companyId, applicationId };
}
