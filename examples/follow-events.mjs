#!/usr/bin/env node
// Catch up on what happened (the feed, page by page), then follow it live (Server-Sent Events):
// the same events a webhook endpoint receives, pulled instead of pushed. The stream reconnects by
// itself after the last event it saw. Keep `cursor` somewhere durable to resume after a restart.
// Run against `npm start`'s demo:  set -a; . data/demo.env; set +a; node examples/follow-events.mjs [--for SECONDS]
import { TelematicsClient } from '@telematics/sdk';

const client = new TelematicsClient({
  baseUrl: process.env.BASE ?? 'http://127.0.0.1:8080',
  clientId: process.env.CLIENT_ID,
  clientSecret: process.env.CLIENT_SECRET,
});
const seconds = Number(process.argv[process.argv.indexOf('--for') + 1]) || 30;

const history = client.events.list({ types: ['trip.ended', 'command.succeeded', 'command.failed'] });
const counts = {};
for await (const event of history) counts[event.type] = (counts[event.type] ?? 0) + 1;
console.log('so far:', counts);

console.log(`following for ${seconds} s…`);
const stream = client.events.stream({ after: history.cursor, signal: AbortSignal.timeout(seconds * 1000) });
for await (const event of stream) {
  switch (event.type) {
    case 'trip.ended':
      console.log(`${event.data.vin} drove ${event.data.distance ?? '?'} km in ${event.data.duration}`);
      break;
    case 'vehicle.offline':
      console.log(`${event.data.vin} went quiet; last record ${event.data.last_record}`);
      break;
    default:
      console.log(event.type, event.timestamp);
  }
}
console.log('resume later with after =', stream.lastEventId ?? history.cursor);
