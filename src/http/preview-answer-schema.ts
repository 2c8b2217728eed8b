/**
 * The answer of a preview (POST /geofences/preview, POST /alert-rules/preview), one shape for
 * both: the span, the id of the saved thing tried (null for one given in full), what was judged,
 * the bounds reached, and the events.
 */
import { EventEnvelope } from '@telematics/contract';
import { Type } from 'typebox';

/** `idField`: geofence_id or rule_id; `judged`: positions or records, what the count counts. */
export function previewAnswerSchema<I extends string, J extends string>(idField: I, judged: J) {
  return Type.Object({
    from: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS-03:00' }),
    to: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS-03:00: now' }),
    [idField]: Type.Union([Type.String(), Type.Null()]),
    vehicles: Type.Integer({ description: 'Vehicles judged' }),
    [judged]: Type.Integer({ description: `${judged[0]!.toUpperCase()}${judged.slice(1)} judged` }),
    truncated: Type.Boolean({ description: `A bound was reached: not every vehicle or ${judged.replace(/s$/, '')} was judged` }),
    events: Type.Array(EventEnvelope, { description: 'Oldest first, as GET /events would show them; at most 1,000, the oldest' }),
    events_truncated: Type.Boolean({ description: 'More events than the 1,000 shown: the oldest 1,000 are' }),
  } as const);
}
