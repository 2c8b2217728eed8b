/**
 * `telematics devices decode <protocol> <hex | text>`: what the service would store and answer for
 * what a device sent, through the code its listener runs, with no database (OPERATIONS.md fixes
 * the output). An installer pastes a capture and sees, before the device is on the road, which
 * datapoints come out of it and whether it would be answered.
 */
import type { Command } from 'commander';
import { DEVICE_PROTOCOLS, isDeviceProtocol } from '../domain/trackers.js';
import type { InspectedFrame } from '../gateway/inspected-frame.js';
import { trackerProtocol } from '../gateway/tracker-protocols.js';
import { processOutput, UsageError } from './output.js';

const isoUtc = (ts: number) => new Date(ts).toISOString().replace(/\.000Z$/, 'Z');

function printable(frame: InspectedFrame) {
  return {
    kind: frame.kind,
    records: frame.records.map((r) => ({ date_time: isoUtc(r.ts), ...r.values })),
    answer: frame.answer === null ? null : frame.answer.toString('hex'),
    problems: frame.problems,
  };
}

export function registerDevices(program: Command): void {
  const devices = program.command('devices').description('check what a tracker sends, without a database');
  devices.command('decode <protocol> <input>')
    .description(`print what the service would store and answer for what a device sent (hex for ${DEVICE_PROTOCOLS.filter((p) => p !== 'osmand').join(', ')}; the query string or JSON body for osmand)`)
    .action((protocol: string, input: string) => {
      if (!isDeviceProtocol(protocol)) throw new UsageError(`unknown protocol ${JSON.stringify(protocol)}: one of ${DEVICE_PROTOCOLS.join(', ')}`);
      const inspection = trackerProtocol(protocol).explain(input, Date.now());
      if (!inspection.ok) throw new UsageError(inspection.problem);
      processOutput(false).out(JSON.stringify({ frames: inspection.frames.map(printable) }, null, 2));
    });
}
