/** Every VIN's length: a cheaper first check than the pattern, where a wrong length is what matters. */
export const VIN_LENGTH = 17;

/**
 * ISO 3779 VIN shape: 17 characters from digits and capital letters except I, O and Q (they read
 * as 1 and 0). The check digit is not verified: it is mandatory only in North America, and the
 * Brazilian fleets this service targets carry VINs without it.
 */
const VIN_PATTERN = new RegExp(`^[A-HJ-NPR-Z0-9]{${VIN_LENGTH}}$`);

export function isValidVin(value: unknown): value is string {
  return typeof value === 'string' && VIN_PATTERN.test(value);
}

export const VIN_RULE = '17 characters, digits and capital letters except I, O and Q';
