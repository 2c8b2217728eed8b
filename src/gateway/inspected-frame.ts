/**
 * What `telematics devices decode` prints of a device's bytes or text: each protocol's module
 * reads the input with the code its listener runs, and says, frame by frame, what would be stored
 * and what would be answered. No registry is asked: an id is taken as registered, and records
 * carry no VIN.
 */

export interface InspectedRecord {
  readonly ts: number;
  /** The datapoints as the intake would store them. */
  readonly values: Readonly<Record<string, unknown>>;
}

export interface InspectedFrame {
  /** What the frame is (`login`, `location`, `packet`, …), or why it is none (`crc`, `junk`, `incomplete`). */
  readonly kind: string;
  readonly records: readonly InspectedRecord[];
  /** The bytes the service sends back; null when it sends none. */
  readonly answer: Buffer | null;
  /** What is wrong with it, or what the listener does besides (texts for people). */
  readonly problems: readonly string[];
}

/** The frames of `input`, or why `input` cannot be read at all. */
export type Inspection = { readonly ok: true; readonly frames: readonly InspectedFrame[] } | { readonly ok: false; readonly problem: string };

/** Hex digits, with spaces, colons or a leading 0x allowed between them, as captures are pasted. */
export function hexInput(input: string): Buffer | string {
  const digits = input.replace(/^0x/i, '').replace(/[\s:]/g, '');
  if (digits.length === 0) return 'the input is empty: give the bytes as hex';
  if (!/^[0-9a-f]*$/i.test(digits)) return 'the input is not hex: give the bytes as hex digits';
  if (digits.length % 2 !== 0) return 'the input has an odd number of hex digits';
  return Buffer.from(digits, 'hex');
}

/** A record as the intake takes it, without what no registry was asked for (its VIN). */
export const inspectedRecord = ({ ts, values }: InspectedRecord): InspectedRecord => ({ ts, values });

export const frameOf = (kind: string, fields: Partial<Omit<InspectedFrame, 'kind'>> = {}): InspectedFrame =>
  ({ kind, records: fields.records ?? [], answer: fields.answer ?? null, problems: fields.problems ?? [] });
