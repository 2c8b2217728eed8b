/** POST /token: a form-encoded body (D3); either field pair names the client. */
import { Type, type Static } from 'typebox';

export const TokenRequest = Type.Object(
  {
    client_id: Type.Optional(Type.String({ description: 'Client id (or send it as `username`)' })),
    client_secret: Type.Optional(Type.String({ description: 'Client secret (or send it as `password`)' })),
    username: Type.Optional(Type.String({ description: 'Client id, as the authentication guide names it' })),
    password: Type.Optional(Type.String({ description: 'Client secret, as the authentication guide names it' })),
    grant_type: Type.Optional(Type.String({ description: 'Ignored if sent' })),
  },
  { additionalProperties: true },
);
export type TokenRequest = Static<typeof TokenRequest>;

export const TokenResponse = Type.Object({
  token: Type.String({ description: 'JWT to send as `Authorization: Bearer <token>`' }),
  expiration: Type.Integer({ description: 'Lifetime in seconds (3600 unless the application is configured otherwise)' }),
});
export type TokenResponse = Static<typeof TokenResponse>;
