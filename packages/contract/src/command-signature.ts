/**
 * The signed body of POST /vehicle-command (interface "Authentication" 5, D4): the JSON object
 * `{"command": …, "vin": …}` with keys sorted, no spaces, non-ASCII escaped as \uXXXX, exactly
 * what Python's `json.dumps({"vin": v, "command": c}, separators=(",", ":"), sort_keys=True)`
 * produces. `code` is never part of it.
 */
const escapeNonAscii = (json: string) => json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export function canonicalCommandBody(vin: string, command: string): string {
  return escapeNonAscii(`{"command":${JSON.stringify(command)},"vin":${JSON.stringify(vin)}}`);
}

/** The only header shape ever decoded: 64 hex digits, either case (D4). */
export const SIGNATURE_PATTERN = /^[0-9a-fA-F]{64}$/;
