/** Signing and sending commands the way a client application does (HMAC of the canonical body). */
import { createHmac } from 'node:crypto';
import { canonicalCommandBody } from '../../src/domain/command-signature.js';
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
    send(body, signature) {
      const sig = signature === undefined
        ? sign(signSecret, String(body.vin), String(body.command))
        : signature;
      return svc.request('POST', '/vehicle-command', { json: body, headers: { ...auth, ...(sig === null ? {} : { 'x-signature': sig }) } });
    },
    status: (id) => svc.request('GET', `/vehicle-command/${id}`, { headers: auth }),
  };
}
