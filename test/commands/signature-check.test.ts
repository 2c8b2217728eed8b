import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { commandClient, sign } from '../support/command-client.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { rotateApplicationSecrets } from '../../src/registry/manage-applications.js';

const VIN = ALPHA_VINS[0];

/** A signature that differs from `signature` in its last hex digit only. */
const lastDigitChanged = (signature: string) => `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;

// Expected signatures are kept once computed (verify-command-signature.ts): what was accepted
// once must not let anything else through afterwards.
describe.each(DATABASE_KINDS)('X-Signature checked against kept expected signatures on %s', (kind) => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService(kind);
    await svc.useSimulatedCloud();
  });
  afterAll(async () => { await svc?.close(); });

  it('when a body was accepted with its signature, then a signature one digit off, or of another vin or command, is still refused', async () => {
    const alpha = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
    const right = sign(SECRETS.alphaDispatch.sign, VIN, 'lock_doors');
    expect((await alpha.send({ vin: VIN, command: 'lock_doors' }, right)).status).toBe(200);
    expect(await alpha.send({ vin: VIN, command: 'lock_doors' }, lastDigitChanged(right))).toMatchObject({ status: 403, body: { detail: 'X-Signature invalid.' } });
    expect(await alpha.send({ vin: VIN, command: 'unlock_doors' }, right)).toMatchObject({ status: 403, body: { detail: 'X-Signature invalid.' } });
    expect(await alpha.send({ vin: ALPHA_VINS[1], command: 'lock_doors' }, right)).toMatchObject({ status: 403, body: { detail: 'X-Signature invalid.' } });
    expect((await alpha.send({ vin: VIN, command: 'lock_doors' }, right)).status).toBe(200);
  });

  it('when the sign-secret is rotated, then the old secret\'s signature of a body accepted before is refused and the new secret\'s accepted', async () => {
    const before = commandClient(svc, await svc.token('alpha-reports', SECRETS.alphaReports.client), SECRETS.alphaReports.sign);
    const old = sign(SECRETS.alphaReports.sign, VIN, 'diagnostics');
    expect((await before.send({ vin: VIN, command: 'diagnostics' }, old)).status).toBe(200);

    const { sign_secret: rotated } = await rotateApplicationSecrets(svc.store.db, svc.keyring, 'alpha-reports', 'sign', svc.clock.now());
    const after = commandClient(svc, await svc.token('alpha-reports', SECRETS.alphaReports.client), rotated!);
    expect(await after.send({ vin: VIN, command: 'diagnostics' }, old)).toMatchObject({ status: 403, body: { detail: 'X-Signature invalid.' } });
    expect((await after.send({ vin: VIN, command: 'diagnostics' })).status).toBe(200);
  });
});
