#!/usr/bin/env node
// A webhook receiver: verifies every delivery on its raw body with the endpoint's secret,
// answers the verification challenge, and handles events by type. Against `npm start`:
//   npm start                                              # terminal 1: the demo
//   set -a; . data/demo.env; set +a                        # terminal 2: its credentials
//   node examples/webhook-receiver.mjs
// What it does, in order:
//   1. listens on a free port of 127.0.0.1 (the service itself has 8080);
//   2. registers http://127.0.0.1:<that port>/telematics: the answer holds the endpoint's secret,
//      shown only then (the demo accepts receivers on this machine; a service without --demo
//      needs `--webhook-allow-cidr 127.0.0.0/8`);
//   3. the service sends a signed `webhook.verification`; the receiver checks its signature with
//      that secret and echoes its challenge, and the endpoint turns `enabled`;
//   4. sends a diagnostics command and exits once the command's outcome has arrived by webhook.
import { createServer } from 'node:http';
import { TelematicsClient, WebhookVerificationError } from '@telematics/sdk';

const client = new TelematicsClient({
  baseUrl: process.env.BASE ?? 'http://127.0.0.1:8080',
  clientId: process.env.CLIENT_ID,
  clientSecret: process.env.CLIENT_SECRET,
  signSecret: process.env.SIGN_SECRET,
});

let secret = '';
let registered;
const secretKnown = new Promise((resolve) => { registered = resolve; });
let onOutcome;
const outcome = new Promise((resolve) => { onOutcome = resolve; });
const seen = new Set(); // deliveries are at least once: deduplicate by event id

const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const raw = Buffer.concat(chunks); // the bytes as sent: never re-serialize before verifying
  await secretKnown; // the challenge may arrive before the registration has answered
  try {
    const event = await client.webhooks.verify(raw, req.headers, secret);
    if (event.type === 'webhook.verification') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(client.webhooks.verificationResponse(event)));
      return;
    }
    res.writeHead(204).end(); // answer fast; work after
    if (seen.has(event.id)) return;
    seen.add(event.id);
    console.log(`received ${event.type} ${event.id}`);
    if (event.type === 'command.succeeded' || event.type === 'command.failed') onOutcome(event.data);
  } catch (error) {
    res.writeHead(error instanceof WebhookVerificationError ? 400 : 500).end();
    console.error('refused a delivery:', error.message);
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/telematics`;

const endpoint = await client.webhookEndpoints.create({ url, event_types: ['command.succeeded', 'command.failed'] }).catch((error) => {
  server.close();
  console.error(`registering ${url} failed: ${error.message}`);
  process.exit(1);
});
secret = endpoint.secret; // shown once: keep it in your secret store
registered();
console.log(`registered ${endpoint.id} at ${url}`);
try {
  for (let i = 0; (await client.webhookEndpoints.get(endpoint.id)).status !== 'enabled'; i += 1) {
    if (i === 20) throw new Error(`the endpoint was not enabled: did ${url} answer the verification?`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const vin = (await client.vehicles.list())[0].vin;
  const handle = await client.commands.send(vin, 'diagnostics');
  console.log(`sent diagnostics ${handle.id}; waiting for its webhook…`);
  const giveUp = setTimeout(() => onOutcome(undefined), 150_000);
  const data = await outcome;
  clearTimeout(giveUp);
  if (data === undefined) throw new Error('no webhook within 150 s');
  console.log(`command ${data.id} ended ${data.status}`);
} finally {
  await client.webhookEndpoints.delete(endpoint.id);
  server.close();
}
