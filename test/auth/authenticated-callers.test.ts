/**
 * Callers remembered by their Authorization header: only while the token is unexpired and the
 * registry is unchanged since the check that let them in, and never while changes cannot be seen.
 */
import { describe, expect, it } from 'vitest';
import { AuthenticatedCallers } from '../../src/auth/authenticated-callers.js';
import { RegistryChanges } from '../../src/store/registry-changes.js';

const principal = { applicationId: 'app-1', clientId: 'client-1', companyId: 'acme', signSecretSealed: null, scopes: 0 };
const T = Date.UTC(2026, 10, 27, 12);
const HEADER = 'Bearer abc.def.ghi';

function liveChanges(): RegistryChanges {
  const changes = new RegistryChanges();
  changes.setLive(true);
  return changes;
}

describe('authenticated callers', () => {
  it('when a checked header comes again, then it is the same caller until the second its token expires', () => {
    const changes = liveChanges();
    const callers = new AuthenticatedCallers();
    callers.remember(HEADER, principal, T + 60_000, AuthenticatedCallers.generationOf(changes), changes);
    expect(callers.get(HEADER, T, changes)).toBe(principal);
    expect(callers.get(HEADER, T + 59_999, changes)).toBe(principal);
    expect(callers.get(HEADER, T + 60_000, changes)).toBeUndefined();
    // Gone, not only refused: a later clock going back does not bring it back.
    expect(callers.get(HEADER, T, changes)).toBeUndefined();
    expect(callers.get('Bearer other', T, changes)).toBeUndefined();
  });

  it('when the registry changes after the check, then the caller must be checked again', () => {
    const changes = liveChanges();
    const callers = new AuthenticatedCallers();
    callers.remember(HEADER, principal, T + 60_000, AuthenticatedCallers.generationOf(changes), changes);
    changes.changed();
    expect(callers.get(HEADER, T, changes)).toBeUndefined();
  });

  it('when the registry changed during the check, or changes cannot be seen, then nothing is remembered', () => {
    const changes = liveChanges();
    const callers = new AuthenticatedCallers();
    const before = AuthenticatedCallers.generationOf(changes);
    changes.changed();
    callers.remember(HEADER, principal, T + 60_000, before, changes);
    expect(callers.size).toBe(0);

    const notLive = new RegistryChanges();
    expect(AuthenticatedCallers.generationOf(notLive)).toBeUndefined();
    callers.remember(HEADER, principal, T + 60_000, AuthenticatedCallers.generationOf(notLive), notLive);
    expect(callers.size).toBe(0);
    callers.remember(HEADER, principal, T + 60_000, AuthenticatedCallers.generationOf(undefined), undefined);
    expect(callers.size).toBe(0);

    // Remembered while live, then the channel goes down: not served from memory.
    callers.remember(HEADER, principal, T + 60_000, AuthenticatedCallers.generationOf(changes), changes);
    changes.setLive(false);
    expect(callers.get(HEADER, T, changes)).toBeUndefined();
  });

  it('when more callers than the bound are remembered, then the oldest makes room', () => {
    const changes = liveChanges();
    const callers = new AuthenticatedCallers(2);
    const generation = AuthenticatedCallers.generationOf(changes);
    for (const h of ['Bearer a', 'Bearer b', 'Bearer c']) callers.remember(h, principal, T + 60_000, generation, changes);
    expect(callers.size).toBe(2);
    expect(callers.get('Bearer a', T, changes)).toBeUndefined();
    expect(callers.get('Bearer c', T, changes)).toBe(principal);
  });

  it('when a connection presents its last header again, then it is the same caller under the same checks', () => {
    const changes = liveChanges();
    const callers = new AuthenticatedCallers(1);
    const other = { ...principal, applicationId: 'app-2' };
    const connection = {};
    const generation = AuthenticatedCallers.generationOf(changes);
    callers.remember(HEADER, principal, T + 60_000, generation, changes);
    expect(callers.get(HEADER, T, changes, connection)).toBe(principal);
    // Another header on the same connection is looked up, not taken for the last caller (the
    // table holds one caller: 'Bearer other' takes HEADER's place).
    callers.remember('Bearer other', other, T + 60_000, generation, changes);
    expect(callers.get('Bearer other', T, changes, connection)).toBe(other);
    expect(callers.get(HEADER, T, changes, connection)).toBeUndefined();
    // The table makes room for a third; the connection still holds 'Bearer other', which passes
    // the same checks the table's entry would.
    callers.remember('Bearer third', principal, T + 60_000, generation, changes);
    expect(callers.get('Bearer other', T, changes)).toBeUndefined();
    expect(callers.get('Bearer other', T, changes, connection)).toBe(other);
    // Expired, or the registry changed: refused through the connection too, and forgotten there.
    expect(callers.get('Bearer other', T + 60_000, changes, connection)).toBeUndefined();
    expect(callers.get('Bearer other', T, changes, connection)).toBeUndefined();
    callers.remember(HEADER, principal, T + 60_000, AuthenticatedCallers.generationOf(changes), changes);
    expect(callers.get(HEADER, T, changes, connection)).toBe(principal);
    changes.changed();
    expect(callers.get(HEADER, T, changes, connection)).toBeUndefined();
  });

  it('when a connection holds a caller the registry has since outdated, then refusing it leaves the table the newer check', () => {
    const changes = liveChanges();
    const callers = new AuthenticatedCallers();
    const connection = {};
    callers.remember(HEADER, principal, T + 60_000, AuthenticatedCallers.generationOf(changes), changes);
    expect(callers.get(HEADER, T, changes, connection)).toBe(principal);
    changes.changed();
    // Another connection's request went through the whole check again after the change.
    callers.remember(HEADER, principal, T + 60_000, AuthenticatedCallers.generationOf(changes), changes);
    expect(callers.get(HEADER, T, changes, connection)).toBe(principal);
    expect(callers.size).toBe(1);
  });
});
