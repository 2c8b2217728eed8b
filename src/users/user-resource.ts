/** A user as the API shows it: never a hash or a secret. */
import { formatIsoWithOffset } from '../domain/time.js';
import type { UserRow } from '../store/users-queries.js';

export interface UserResource {
  readonly id: string;
  readonly email: string;
  readonly role: string;
  /** `invited`: the person has not yet set a password (an invitation or a reset link is open). */
  readonly status: 'active' | 'invited';
  readonly second_factor: boolean;
  readonly created_at: string;
}

export function userResource(row: UserRow): UserResource {
  return {
    id: row.id, email: row.email, role: row.role, status: row.password_hash === null ? 'invited' : 'active',
    second_factor: row.totp_sealed !== null, created_at: formatIsoWithOffset(row.created_at),
  };
}
