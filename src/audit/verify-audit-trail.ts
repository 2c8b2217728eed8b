/** `admin audit verify`: every chain checked from its first entry, the first break of each named. */
import { ChainCheck, type ChainBreak } from '../domain/audit-chain.js';
import type { Db } from '../store/connection.js';
import { listAuditChains, listChainsOfEntries, readAuditChain } from '../store/audit-queries.js';

export interface AuditVerification {
  readonly chains: number;
  readonly entries: number;
  readonly breaks: readonly ChainBreak[];
}

export async function verifyAuditTrail(db: Db, progress?: (checked: number) => void): Promise<AuditVerification> {
  const heads = new Map((await listAuditChains(db)).map((h) => [h.chain, h]));
  const chains = [...new Set([...heads.keys(), ...await listChainsOfEntries(db)])].sort();
  const breaks: ChainBreak[] = [];
  let entries = 0;
  for (const chain of chains) {
    const check = new ChainCheck(chain);
    for await (const entry of readAuditChain(db, chain)) {
      entries += 1;
      if (entries % 10_000 === 0) progress?.(entries);
      if (!check.feed(entry)) break;
    }
    const found = check.end(heads.get(chain));
    if (found) breaks.push(found);
  }
  return { chains: chains.length, entries, breaks };
}
