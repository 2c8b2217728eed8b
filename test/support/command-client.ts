/** Signing and sending commands the way a client application does (HMAC of the canonical body). */
import { createHmac } from 'node:crypto';
import { canonicalCommandBody } from '../../src/domain/command-signature.js';
import { backgroundWritesSettled } from '../../src/store/write-batcher.js';
import type { TestResponse, TestService } from './test-service.js';

export const sign = (secret: string, vin: string, command: string) =>
  createHmac('sha256', secret).update(canonicalCommandBody(vin, command)).digest('hex');

export interface CommandClient {
  send(body: Record<string, unknown>, signature?: string | null): Promise<TestResponse>;
  status(id: string): Promise<TestResponse>;
}

export function commandClient(svc: TestService, token: string, signSecret: string): CommandClient {
  const auth = { authorization: `Bearer ${token}` };
  return {
    async send(body, signature) {
      const sig = signature === undefined
        ? sign(signSecret, String(body.vin), String(body.command))
        : signature;
      const res = await svc.request('POST', '/vehicle-command', { json: body, headers: { ...auth, ...(sig === null ? {} : { 'x-signature': sig }) } });
      // A Pending answer goes out before its status URL commits (create-command.ts): tests read
      // the command as a worker would find it a moment later.
      await backgroundWritesSettled(svc.store);
      return res;
    },
    status: (id) => svc.request('GET', `/vehicle-command/${id}`, { headers: auth }),
  };
}
