/**
 * People for tests of the console: the operator invites one (as `admin user invite` does), the
 * link sets the password, and a sign-in through POST /console/session answers the session id of
 * the cookie. The hash cost is low (2^12): tests sign in many times.
 */
import type { Role } from '../../src/domain/roles.js';
import { inviteUser } from '../../src/users/manage-users.js';
import { takeUpPasswordLink } from '../../src/users/password-links.js';
import type { TestService } from './test-service.js';

const HOUR = 3_600_000;
export const TEST_CONSOLE_USERS = { passwordHashCost: 12, passwordLinkLifetimeMs: 72 * HOUR, totpIssuer: 'Telematics' };
export const CONSOLE_HEADER = { 'x-telematics-console': '1' };

export interface TestPerson {
  readonly email: string;
  readonly password: string;
  readonly role: Role;
}

/** A person of `company` with `role`, password set; `<role>@<company>.example` unless named. */
export async function addPerson(svc: TestService, company: string, role: Role, email = `${role}@${company}.example`): Promise<TestPerson> {
  const deps = { store: svc.store, keyring: svc.keyring, clock: svc.clock, users: TEST_CONSOLE_USERS };
  const password = `${role} of ${company}, a long password`;
  const invited = await inviteUser(deps, { kind: 'operator', id: 'test' }, company, { email, role });
  await takeUpPasswordLink(deps, invited.link.token, password);
  return { email: invited.user.email, password, role };
}

/** The person's new session id (the cookie's value); fails the test on any other answer. */
export async function consoleSignIn(svc: TestService, person: TestPerson, headers: Record<string, string> = {}): Promise<string> {
  const res = await svc.request('POST', '/console/session', { json: { email: person.email, password: person.password }, headers: { ...CONSOLE_HEADER, ...headers } });
  if (res.status !== 200) throw new Error(`console sign-in of ${person.email}: ${res.status} ${res.text}`);
  return /telematics_console=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!;
}

/** The cookie header of a session id, with whatever other headers are given. */
export const withSession = (id: string, extra: Record<string, string> = {}) => ({ cookie: `telematics_console=${id}`, ...extra });
