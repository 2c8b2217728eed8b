import { describe, expect, it } from 'vitest';
import { TRIP_DATAPOINT_NAMES } from '@telematics/contract';
import { TRIP_FIELDS } from '../../src/trips/query-trips.js';

describe('trip datapoint names', () => {
  it('when the contract lists the trip fields, then the service renders exactly those, in that order', () => {
    expect(Object.keys(TRIP_FIELDS)).toEqual([...TRIP_DATAPOINT_NAMES]);
  });
});
