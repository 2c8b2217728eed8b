/** POST /ingest/{oem}: automakers push telemetry (OPERATIONS.md "Ingest"). */
import { Type, type Static } from 'typebox';

/** A batch of 5,000 records of every datapoint is about 3 MB of JSON. */
export const MAX_INGEST_RECORDS = 5000;

export const IngestParams = Type.Object({ oem: Type.String({ description: 'OEM name as registered' }) });
export type IngestParams = Static<typeof IngestParams>;

export const IngestRequest = Type.Object({
  records: Type.Array(Type.Unknown(), { maxItems: MAX_INGEST_RECORDS, description: 'Records: vin, date_time (ISO 8601 with offset), datapoints' }),
});
export type IngestRequest = Static<typeof IngestRequest>;

export const IngestResponse = Type.Object({
  accepted: Type.Integer({ description: 'Records stored (or already stored: the same VIN and instant count once)' }),
  rejected: Type.Array(Type.Object({ index: Type.Integer(), reason: Type.String() }), { description: 'Records refused, by position in the batch' }),
});
export type IngestResponse = Static<typeof IngestResponse>;
