/**
 * How routes document their answers in OpenAPI. The bodies themselves are the contract package's
 * schemas; these are the service's route options around them.
 */
import { Type } from 'typebox';

/** Error answers refer to the contract's ErrorBody, registered once per app under its $id, described per status. */
export const errorResponse = (description: string) => ({ ...Type.Ref('ErrorBody'), description });

export const bearerSecurity = [{ bearerAuth: [] }];

export const authErrors = {
  401: errorResponse('Missing, malformed, expired or revoked bearer token'),
};
