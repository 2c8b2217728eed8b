import { describe, expect, it } from 'vitest';
import { CloseStack } from '../../src/roles/close-stack.js';

const part = (name: string, closed: string[]) => ({ close: async () => { closed.push(name); } });

describe('the close stack', () => {
  it('when parts started in order are closed, then the newest closes first, each once, and absent parts are skipped', async () => {
    const closed: string[] = [];
    const stack = new CloseStack();
    const store = stack.push(part('store', closed));
    stack.push(undefined);
    stack.push({ close: () => { closed.push('sender'); } });
    stack.push(part('api', closed));
    await stack.close();
    await stack.close();
    expect(closed).toEqual(['api', 'sender', 'store']);
    expect(store.close).toBeTypeOf('function');
  });

  it('when a start fails part way, then closing unwinds only what had started', async () => {
    const closed: string[] = [];
    const stack = new CloseStack();
    const start = async () => {
      stack.push(part('store', closed));
      stack.push(part('queue', closed));
      throw new Error('the API port is taken');
    };
    await expect(start().catch(async (error: unknown) => { await stack.close(); throw error; })).rejects.toThrow('the API port is taken');
    expect(closed).toEqual(['queue', 'store']);
  });
});
