/**
 * A set of allowed names as package plans and OEMs declare it: every known name (`"*"`) or a list.
 * What a company may use for a vehicle is its plan's set ∩ the vehicle OEM's set (D10).
 */
export type NameSet = '*' | readonly string[];

export function allows(set: NameSet, name: string): boolean {
  return set === '*' || set.includes(name);
}

export function serializeNameSet(set: NameSet): string {
  return JSON.stringify(set === '*' ? '*' : [...set].sort());
}

export function parseNameSet(stored: string): NameSet {
  const value: unknown = JSON.parse(stored);
  if (value === '*') return '*';
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  throw new Error(`stored name set is neither "*" nor a list of names: ${stored}`);
}

export function describeNameSet(set: NameSet): string {
  return set === '*' ? '*' : set.join(',');
}
