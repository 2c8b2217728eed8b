/**
 * A start while the JetStream cluster is still forming (src/queue/ingest-streams.ts): the
 * placement errors a forming cluster answers are waited out, within a bound; anything else
 * fails at once. The cluster test (test/cluster) starts a real three-server cluster with it.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { whileClusterForms } from '../../src/queue/ingest-streams.js';

const logger = createLogger('silent');

describe('whileClusterForms', () => {
  it('when the cluster cannot place streams yet, then the operation is tried again until it can', async () => {
    let calls = 0;
    const result = await whileClusterForms(async () => {
      calls += 1;
      if (calls < 3) throw new Error('no suitable peers for placement');
      return 'placed';
    }, logger, 5_000, 10);
    expect(result).toBe('placed');
    expect(calls).toBe(3);
  });

  it('when another error comes, then it is thrown at once', async () => {
    let calls = 0;
    await expect(whileClusterForms(async () => { calls += 1; throw new Error('stream name already in use with a different configuration'); }, logger, 5_000, 10))
      .rejects.toThrow('already in use');
    expect(calls).toBe(1);
  });

  it('when the cluster never forms, then the last placement error is thrown once the bound has passed', async () => {
    const started = Date.now();
    await expect(whileClusterForms(async () => { throw new Error('JetStream system temporarily unavailable'); }, logger, 200, 20)).rejects.toThrow('temporarily unavailable');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
