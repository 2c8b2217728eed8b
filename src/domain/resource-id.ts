/**
 * The ids of a company's geofences and alert rules (UUIDs the service issues, stored lower case),
 * checked in one way wherever one is given: a path, or a preview's `geofence_id` / `rule_id`. Any
 * case is the same id (RFC 9562 has UUIDs compared case-insensitively), so an id upper-cased by a
 * client's tooling finds its resource everywhere, not in one place only.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The id as stored, or undefined when the value cannot be one (then the resource is not found). */
export function storedIdOf(value: unknown): string | undefined {
  return typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : undefined;
}
