import { Type, type Static } from 'typebox';

/** The body of every error answer; `detail` is one of the catalogue's texts (errors.ts). */
export const ErrorBody = Type.Object(
  { detail: Type.String({ description: 'What went wrong; exact texts are listed in docs/errors.md' }) },
  { $id: 'ErrorBody', description: 'Every error response' },
);
export type ErrorBody = Static<typeof ErrorBody>;
