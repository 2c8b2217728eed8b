/** The chain's rules without a database: each kind of tampering found at the right entry. */
import { describe, expect, it } from 'vitest';
import { chainEntries, findChainBreak, GENESIS_HASH, type AuditDraft } from '../../src/domain/audit-chain.js';

const draft = (action: string): AuditDraft => ({ companyId: 'acme', actor: { kind: 'application', id: 'app-1' }, action, target: 'VIN', outcome: 'success', details: { n: action } });
const chain = () => chainEntries('acme', { seq: 0, hash: GENESIS_HASH }, ['a.one', 'a.two', 'a.three', 'a.four'].map(draft), 1000);
const headOf = (entries: ReturnType<typeof chain>) => ({ seq: entries.at(-1)!.seq, hash: entries.at(-1)!.hash });

describe('audit chain', () => {
  it('when entries are chained, then they are numbered from 1, each links to the one before, and the whole chain holds', () => {
    const entries = chain();
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(entries[0]!.prevHash).toBe(GENESIS_HASH);
    for (let i = 1; i < entries.length; i += 1) expect(entries[i]!.prevHash).toBe(entries[i - 1]!.hash);
    expect(findChainBreak('acme', entries, headOf(entries))).toBeUndefined();
    // Appending after a head carries on its numbering and hash.
    const more = chainEntries('acme', headOf(entries), [draft('a.five')], 2000);
    expect(more[0]).toMatchObject({ seq: 5, prevHash: entries[3]!.hash });
    expect(findChainBreak('acme', [...entries, ...more], headOf(more))).toBeUndefined();
  });

  it('when an entry\'s content is changed, then that entry is named', () => {
    const entries = chain();
    const tampered = entries.map((e) => (e.seq === 2 ? { ...e, outcome: 'failure' } : e));
    expect(findChainBreak('acme', tampered, headOf(entries))).toMatchObject({ seq: 2, reason: expect.stringContaining('changed') });
  });

  it('when an entry is changed and its hash recomputed, then the next entry is named (its link no longer matches)', async () => {
    const { auditEntryHash } = await import('../../src/domain/audit-chain.js');
    const entries = chain();
    const edited = { ...entries[1]!, outcome: 'failure' };
    const rehashed = { ...edited, hash: auditEntryHash(edited) };
    expect(findChainBreak('acme', [entries[0]!, rehashed, entries[2]!, entries[3]!], headOf(entries))).toMatchObject({ seq: 3 });
  });

  it('when an entry is removed from the middle or cut off the end, then the missing number is named', () => {
    const entries = chain();
    expect(findChainBreak('acme', [entries[0]!, entries[2]!, entries[3]!], headOf(entries))).toMatchObject({ seq: 2, reason: expect.stringContaining('missing') });
    expect(findChainBreak('acme', entries.slice(0, 3), headOf(entries))).toMatchObject({ seq: 4, reason: expect.stringContaining('missing from the end') });
    expect(findChainBreak('acme', entries, undefined)).toMatchObject({ seq: 4, reason: expect.stringContaining('no head') });
  });
});
