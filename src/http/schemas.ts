/** Schemas shared by several routes; they validate, serialize and document (OpenAPI) at once. */
import { Type } from 'typebox';

export const ErrorBody = Type.Object(
  { detail: Type.String({ description: 'What went wrong; exact texts are listed in docs/errors.md' }) },
  { $id: 'ErrorBody', description: 'Every error response' },
);

export const errorResponse = (description: string) => ({ ...Type.Ref('ErrorBody'), description });

export const Vehicle = Type.Object(
  {
    company: Type.String({ description: 'Name of the company the vehicle is connected to' }),
    vin: Type.String({ description: 'Vehicle Identification Number (17 characters)' }),
    plate: Type.String({ description: 'License plate' }),
    oem: Type.String({ description: 'Automaker' }),
    model: Type.String({ description: 'Vehicle model' }),
    year: Type.Integer({ description: 'Vehicle year' }),
    status: Type.String({ description: 'Connection status: active (connected and sending data) or inactive' }),
    created: Type.String({ description: 'When the vehicle connection was created, YYYY-MM-DDTHH:MM:SS at -03:00' }),
  },
  { $id: 'Vehicle' },
);

export const bearerSecurity = [{ bearerAuth: [] }];

export const authErrors = {
  401: errorResponse('Missing, malformed, expired or revoked bearer token'),
};
