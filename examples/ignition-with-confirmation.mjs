#!/usr/bin/env node
// Immobilize a vehicle, as a dispatcher's tool would: the service answers with a confirmation
// (a Portuguese alert to show the person), the person confirms, the command runs, we wait for it.
// Run against `npm start`'s demo:  set -a; . data/demo.env; set +a; node examples/ignition-with-confirmation.mjs [VIN] [--yes]
import { createInterface } from 'node:readline/promises';
import { ConfirmationDeclinedError, TelematicsClient } from '@telematics/sdk';

const client = new TelematicsClient({
  baseUrl: process.env.BASE ?? 'http://127.0.0.1:8080',
  clientId: process.env.CLIENT_ID,
  clientSecret: process.env.CLIENT_SECRET,
  signSecret: process.env.SIGN_SECRET,
});

const vin = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? (await client.vehicles.list())[0].vin;
const assumeYes = process.argv.includes('--yes');

async function askPerson({ message, command, vin }) {
  console.log(`\n${message}\n`);
  if (assumeYes) return true;
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^s|^y/i.test(await terminal.question(`Send ${command} to ${vin}? (s/n) `));
  } finally {
    terminal.close();
  }
}

try {
  const handle = await client.commands.send(vin, 'disable_ignition', { confirm: askPerson });
  console.log(`disable_ignition ${handle.id} accepted at ${handle.created}; waiting for the vehicle…`);
  const outcome = await handle.wait({ timeoutMs: 150_000 });
  console.log(outcome.status === 'Success' ? `immobilized: ${JSON.stringify(outcome.detail)}` : `refused: ${outcome.detail}`);
  if (outcome.status === 'Success') {
    // Undo it, so the demo vehicle can drive on.
    const undo = await client.commands.send(vin, 'enable_ignition', { confirm: askPerson });
    console.log(`enable_ignition: ${(await undo.wait({ timeoutMs: 150_000 })).status}`);
  }
} catch (error) {
  if (!(error instanceof ConfirmationDeclinedError)) throw error;
  console.log('not confirmed: nothing was sent to the vehicle');
}
