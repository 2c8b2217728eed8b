/**
 * The OsmAnd port's error texts. Fixed, so an answer never carries what the request sent (a URL,
 * a body): a phone app shows the text, and a scanner learns nothing from it.
 */
const FIXED_DETAILS: Readonly<Record<number, string>> = {
  400: 'The request could not be read: send id, lat, lon and timestamp in the query string or a form body, or the JSON of Traccar Client 9.',
  404: 'Not found: the OsmAnd port takes positions by GET, POST or PUT.',
  408: 'The request took too long to arrive.',
  413: 'The request body is too large (at most 512 KiB).',
  415: 'The request body could not be read.',
  500: 'Internal error.',
};

/** A device id that is not registered: said without repeating the id (the app knows which it sent). */
export const UNREGISTERED_DEVICE = 'This device id is not registered.';

/** The text for an error status; the 400 text for one without its own. */
export const fixedDetail = (status: number): string => FIXED_DETAILS[status] ?? FIXED_DETAILS[400]!;

/**
 * The answer when positions were read but `refused` of `total` are dated in the future or before
 * the data kept (the only ones the intake refuses from a known phone). 400, not 200: both
 * OsmAnd-protocol clients treat any status outside 2xx as a failed send and show it (Traccar
 * Client ≤ 8 and the OsmAnd app read the answer through HttpURLConnection, which throws from 400
 * up: "Send failed" in the status log; Traccar Client 9's SDK counts only 200, 201 and 204 as
 * success), where a 200 made the app believe the position was kept. 400 is what this port answers
 * for every other position it cannot use; 422 would be no more visible, and a 5xx would say the
 * service failed. The positions in range of the same request are stored; resent, they are not
 * stored twice.
 */
export function notStored(refused: number, total: number): string {
  const which = total === 1 ? 'The position was' : `${refused} of ${total} positions were`;
  return `${which} not stored: dated in the future or older than the data this service keeps. Check the date and time of the phone.`;
}
