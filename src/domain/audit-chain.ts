/**
 * The audit trail's chain: each entry's hash covers its own fields and the hash before it, so an
 * entry edited, removed or inserted afterwards breaks every hash from it on, and the chain's head
 * (kept beside the entries) shows an entry cut off the end. A chain per company keeps companies
 * from waiting on each other's lock; the operator's own changes form the service-wide chain.
 */
import { createHash } from 'node:crypto';

/** The chain of entries that belong to no company: the operator's registry and credential work. */
export const SERVICE_CHAIN = '-';

/** Whose act an entry records. */
export type AuditActorKind = 'application' | 'user' | 'operator' | 'system';

export interface AuditActor {
  readonly kind: AuditActorKind;
  /** The application's client id, the user's e-mail, the operator's sign-in name; `service` for the service itself. */
  readonly id: string;
}

/** The operator at the command line (`telematics admin …`), as the audit trail names them. */
export const CLI_OPERATOR: AuditActor = Object.freeze({ kind: 'operator', id: 'cli' });

/** What a caller records: the store numbers and chains it. */
export interface AuditDraft {
  /** The company whose chain it joins; null for the service-wide chain. */
  readonly companyId: string | null;
  readonly actor: AuditActor;
  /** A dotted name, `<thing>.<act>`: `command.created`, `geofence.deleted`, `application.rotated`, … */
  readonly action: string;
  /** What was acted on: a VIN, a command or geofence id, a client id, a company id. */
  readonly target: string | null;
  /** `success`, `failure`, or a command's status. */
  readonly outcome: string;
  /** Facts that say more (a command's vin and name, the fields changed); never a secret. */
  readonly details?: Readonly<Record<string, unknown>>;
  /** When it happened, if not when it is appended. */
  readonly at?: number;
}

/** An entry as stored: the draft, its place in its chain and its time. */
export interface AuditEntry {
  readonly chain: string;
  readonly seq: number;
  readonly at: number;
  readonly actorKind: string;
  readonly actorId: string;
  readonly action: string;
  readonly target: string | null;
  readonly outcome: string;
  /** JSON text, exactly as stored (the hash covers the text, not a re-serialization). */
  readonly details: string;
  readonly prevHash: string;
  readonly hash: string;
}

/** The hash before a chain's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

export const chainOf = (companyId: string | null): string => companyId ?? SERVICE_CHAIN;

/**
 * SHA-256 over the previous hash and every field, as a JSON array: unambiguous whatever a field
 * holds (a separator inside a value cannot shift one field into the next).
 */
export function auditEntryHash(entry: Omit<AuditEntry, 'hash'>): string {
  const fields = [entry.prevHash, entry.chain, entry.seq, entry.at, entry.actorKind, entry.actorId, entry.action, entry.target, entry.outcome, entry.details];
  return createHash('sha256').update(JSON.stringify(fields), 'utf8').digest('hex');
}

/** Numbers and hashes `drafts` after a chain's head (its last seq and hash). */
export function chainEntries(chain: string, head: { seq: number; hash: string }, drafts: readonly AuditDraft[], at: number): AuditEntry[] {
  let { seq, hash } = head;
  return drafts.map((d) => {
    seq += 1;
    const unhashed = {
      chain, seq, at: d.at ?? at, actorKind: d.actor.kind, actorId: d.actor.id, action: d.action, target: d.target, outcome: d.outcome,
      details: JSON.stringify(d.details ?? {}), prevHash: hash,
    };
    hash = auditEntryHash(unhashed);
    return { ...unhashed, hash };
  });
}

/** Why a chain does not hold: the first entry found wrong, or the head that disagrees. */
export interface ChainBreak {
  readonly chain: string;
  /** The seq of the first entry that fails, or of the entry the head expected last. */
  readonly seq: number;
  readonly reason: string;
}

/**
 * Checks one chain's entries, fed in seq order, against each other and its head: hashes
 * recomputed, each linked to the one before, no seq missing, and the head naming the last entry
 * (an entry cut off the end). Fed one at a time, so a long chain is checked in bounded memory.
 */
export class ChainCheck {
  #expectedSeq = 1;
  #prev = GENESIS_HASH;
  #broken: ChainBreak | undefined;

  constructor(readonly chain: string) {}

  /** False once a break is found: the rest of the chain need not be read. */
  feed(entry: AuditEntry): boolean {
    if (this.#broken) return false;
    const { chain } = this;
    if (entry.seq !== this.#expectedSeq) this.#broken = { chain, seq: this.#expectedSeq, reason: `entry ${this.#expectedSeq} is missing (found ${entry.seq} next)` };
    else if (entry.prevHash !== this.#prev) this.#broken = { chain, seq: entry.seq, reason: 'its previous hash does not match the entry before it' };
    else if (auditEntryHash(entry) !== entry.hash) this.#broken = { chain, seq: entry.seq, reason: 'its content does not match its hash (the entry was changed)' };
    if (this.#broken) return false;
    this.#prev = entry.hash;
    this.#expectedSeq += 1;
    return true;
  }

  /** The first break, once every entry was fed; undefined when the chain is whole. */
  end(head: { seq: number; hash: string } | undefined): ChainBreak | undefined {
    if (this.#broken) return this.#broken;
    const { chain } = this;
    const last = this.#expectedSeq - 1;
    if (head === undefined) return last === 0 ? undefined : { chain, seq: last, reason: 'the chain has entries but no head' };
    if (head.seq === last && head.hash === this.#prev) return undefined;
    return head.seq > last
      ? { chain, seq: last + 1, reason: `entries ${last + 1}–${head.seq} are missing from the end` }
      : { chain, seq: head.seq, reason: 'the chain\'s head does not name its last entry' };
  }
}

/** `ChainCheck` over entries at hand. */
export function findChainBreak(chain: string, entries: Iterable<AuditEntry>, head: { seq: number; hash: string } | undefined): ChainBreak | undefined {
  const check = new ChainCheck(chain);
  for (const entry of entries) if (!check.feed(entry)) break;
  return check.end(head);
}
