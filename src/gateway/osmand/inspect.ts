/**
 * `telematics devices decode osmand <text>`: a request's query string (`id=…&lat=…`, or the URL
 * `/?id=…`) or a Traccar Client JSON body, through the listener's decoder. OsmAnd answers in
 * HTTP statuses, not bytes: `answer` is null, and a refusal says its status among the problems.
 * The listener's date check (a position in the future or older than the data kept) needs the
 * service's settings and is not made here.
 */
import { frameOf, inspectedRecord, type Inspection } from '../inspected-frame.js';
import { decodeOsmandJson, decodeOsmandQuery, type OsmandDecode } from './decode.js';

function decodeText(text: string, now: number): OsmandDecode | string {
  if (/^[[{]/.test(text)) {
    try {
      return decodeOsmandJson(JSON.parse(text), now);
    } catch {
      return 'the input starts like JSON but is not JSON';
    }
  }
  const query = text.includes('?') ? text.slice(text.indexOf('?') + 1) : text;
  return decodeOsmandQuery(new URLSearchParams(query), now);
}

export function inspectOsmand(input: string, now: number): Inspection {
  const text = input.trim();
  if (text === '') return { ok: false, problem: 'the input is empty: give the query string or the JSON body' };
  const decoded = decodeText(text, now);
  if (typeof decoded === 'string') return { ok: false, problem: decoded };
  if (!decoded.ok) return { ok: true, frames: [frameOf('refused', { problems: [decoded.reason, `answered ${decoded.status}`] })] };
  return { ok: true, frames: [frameOf('positions', { records: decoded.records.map(inspectedRecord), problems: [`device id ${decoded.deviceId}: answered 200 when it is registered`] })] };
}
