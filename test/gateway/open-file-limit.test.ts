/** The open-file limit as /proc/self/limits writes it, and the tracker caps sized from it. */
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { canOpenDescriptor, parseOpenFileLimit, readOpenFileLimit } from '../../src/gateway/open-file-limit.js';
import { trackerConnectionLimitsOf } from '../../src/gateway/tracker-connection-cap.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             63448                63448                processes
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

/** This process's open descriptors; undefined without /proc. */
function descriptorsOpen(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

describe('open-file limit', () => {
  it('when /proc/self/limits is read, then its "Max open files" line gives soft and hard; unlimited is the most Linux allows; no line is unknown', () => {
    expect(parseOpenFileLimit(LIMITS)).toEqual({ soft: 1024, hard: 524288 });
    expect(parseOpenFileLimit('Max open files            unlimited            unlimited            files\n')).toEqual({ soft: 1_048_576, hard: 1_048_576 });
    expect(parseOpenFileLimit('Max processes 1 1 processes\n')).toBeUndefined();
    // This process's own: Node raised its soft limit to the hard one at start.
    const own = readOpenFileLimit();
    if (own !== undefined) expect(own.soft).toBe(own.hard);
  });

  it('when the caps are sized, then by default the limit less 64 and what the rest keeps, never under half; a configured total is kept unless it leaves fewer than 64 descriptors, then lowered and said so', () => {
    // 20,000 as measured (research fleet-capacity-3), the API's 256 per address and a pool of 10 kept.
    expect(trackerConnectionLimitsOf({ total: undefined, perAddress: 1000, keptForOthers: 266 }, { soft: 20_000, hard: 20_000 })).toEqual({ total: 19_670, perAddress: 1000, lowered: false });
    expect(trackerConnectionLimitsOf({ total: undefined, perAddress: 100, keptForOthers: 256 }, { soft: 1024, hard: 1024 })).toEqual({ total: 704, perAddress: 100, lowered: false });
    expect(trackerConnectionLimitsOf({ total: undefined, perAddress: 100, keptForOthers: 256 }, { soft: 512, hard: 512 })).toEqual({ total: 256, perAddress: 100, lowered: false });
    expect(trackerConnectionLimitsOf({ total: undefined, perAddress: 0, keptForOthers: 0 }, undefined)).toEqual({ total: 960, perAddress: 0, lowered: false });
    expect(trackerConnectionLimitsOf({ total: 900, perAddress: 100, keptForOthers: 256 }, { soft: 1024, hard: 1024 })).toEqual({ total: 900, perAddress: 100, lowered: false });
    expect(trackerConnectionLimitsOf({ total: 5000, perAddress: 100, keptForOthers: 256 }, { soft: 1024, hard: 1024 })).toEqual({ total: 960, perAddress: 100, lowered: true });
  });

  it('when the process can open one more descriptor, then it says so, and no descriptor is left open by asking', () => {
    const before = descriptorsOpen();
    expect(canOpenDescriptor()).toBe(true);
    if (before !== undefined) expect(descriptorsOpen()).toBe(before);
  });
});
