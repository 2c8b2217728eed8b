/**
 * The OpenAPI document as clients use it: the committed openapi/openapi.json is what the routes
 * say (stale: run `npm run openapi:export`), it passes a linter, names and types everything a
 * generator needs, lists every error of the catalogue, and openapi-typescript turns it into types
 * (the SDK's committed ones: packages/sdk/src/generated).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import { COMMAND_NAMES, DATAPOINT_NAMES, errors, TRIP_DATAPOINT_NAMES } from '@telematics/contract';
import { openApiDocumentText } from '../../src/cli/openapi-document.js';
import { startTestService, type TestService } from '../support/test-service.js';

const COMMITTED = new URL('../../openapi/openapi.json', import.meta.url);
const GENERATOR = new URL('../../packages/sdk/scripts/generate.mjs', import.meta.url).pathname;
const run = promisify(execFile);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ in: string; name: string; required?: boolean; schema: { pattern?: string } }>;
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: { $ref?: string } }> }>;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;

function operations(doc: Doc): Array<[string, Operation]> {
  return Object.entries(doc.paths as Record<string, Record<string, Operation>>)
    .flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m): [string, Operation] => [`${m.toUpperCase()} ${path}`, item[m]!]));
}

describe('the OpenAPI document', () => {
  let text: string;
  let doc: Doc;
  beforeAll(async () => {
    text = await openApiDocumentText();
    doc = JSON.parse(text);
  });

  it('when built from the routes, then it is the committed openapi/openapi.json (else: npm run openapi:export)', () => {
    expect(text === readFileSync(COMMITTED, 'utf8'), 'openapi/openapi.json is stale: run `npm run openapi:export` and commit it').toBe(true);
  });

  it("when linted with Redocly's recommended rules, a contact and a description per operation asked too, then it has no problem, not even a warning", async () => {
    const config = await createConfig({ extends: ['recommended'], rules: { 'info-contact': 'error', 'operation-description': 'error' } });
    const problems = await lintFromString({ source: text, absoluteRef: '/openapi.json', config });
    const found = problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
    expect(found).toEqual([]);
  });

  it('when every operation is read, then each has its own operationId, a tag and its security said outright', () => {
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThanOrEqual(22);
    const ids = ops.map(([, op]) => op.operationId);
    expect(ids.filter((id) => typeof id !== 'string')).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [name, op] of ops) {
      expect(op.tags?.length, name).toBeGreaterThan(0);
      expect(Array.isArray(op.security), name).toBe(true);
    }
    expect(Object.keys(doc.components.schemas).filter((name) => /^def-\d+$/.test(name))).toEqual([]);
  });

  it('when the error catalogue is read, then every entry is documented under its status with its code and exact text', () => {
    const documented = new Map<string, Set<string>>();
    for (const [, op] of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        // A 502 of command creation is the command itself (status Error), its detail listed like an error's.
        expect(response.content?.['application/json']?.schema.$ref).toBe(status === '502' ? '#/components/schemas/CommandStartFailed' : '#/components/schemas/ErrorBody');
        for (const [, code, text] of response.description.matchAll(/- `([A-Z_]+)`: `([^`]+)`/g)) {
          documented.set(code!, (documented.get(code!) ?? new Set()).add(`${status} ${text}`));
        }
      }
    }
    const inInfo = (entry: { code: string; status: number; text: string }) => (doc.info.description as string).includes(`- ${entry.status} \`${entry.code}\`: \`${entry.text}\``);
    const missing = Object.values(errors).filter((entry) => !documented.has(entry.code) && !inInfo(entry)).map((e) => e.code);
    expect(missing).toEqual([]);
    for (const [code, seen] of documented) {
      const entry = Object.values(errors).find((e) => e.code === code);
      expect(entry, code).toBeDefined();
      expect([...seen]).toEqual([`${entry!.status} ${entry!.text}`]);
    }
  });

  it('when the interface operations are read, then their bodies, answers and headers are typed', () => {
    const byId = new Map(operations(doc).map(([, op]) => [op.operationId, op]));
    const schemas = doc.components.schemas;
    const command = byId.get('createVehicleCommand')!;
    expect(command.requestBody?.content['application/json']?.schema.$ref).toBe('#/components/schemas/VehicleCommandRequest');
    expect(schemas.VehicleCommandRequest.properties.command.enum).toEqual([...COMMAND_NAMES]);
    expect(schemas.VehicleCommandRequest.required).toEqual(['vin', 'command']);
    const signature = command.parameters?.find((p) => p.in === 'header' && p.name === 'x-signature');
    expect(signature?.required).toBe(true);
    expect(signature?.schema.pattern).toBe('^[0-9a-fA-F]{64}$');
    expect(command.responses['200']?.content?.['application/json']?.schema.$ref).toBe('#/components/schemas/CommandCreated');
    expect(command.responses['502']?.content?.['application/json']?.schema.$ref).toBe('#/components/schemas/CommandStartFailed');
    expect(schemas.CommandStatus.properties.status.enum).toEqual(['Confirmation', 'Pending', 'Success', 'Error']);

    expect(schemas.VehicleDataRequest.properties.datapoints.items.enum).toEqual([...DATAPOINT_NAMES]);
    expect(Object.keys(schemas.VehicleDataRecord.properties)).toEqual([...DATAPOINT_NAMES]);
    expect(schemas.VehicleDataRecord.properties.speed.anyOf).toEqual([{ type: 'number', minimum: 0, maximum: 400 }, { type: 'null' }]);
    expect(schemas.VehicleTripsRequest.properties.datapoints.items.enum).toEqual([...TRIP_DATAPOINT_NAMES]);
    expect(Object.keys(schemas.TripRecord.properties)).toEqual([...TRIP_DATAPOINT_NAMES]);
    expect(byId.get('queryVehicleData')?.responses['200']?.content?.['application/json']?.schema.$ref).toBe('#/components/schemas/VehicleDataResponse');
    expect(byId.get('queryVehicleTrips')?.responses['200']?.content?.['application/json']?.schema.$ref).toBe('#/components/schemas/VehicleTripsResponse');
    expect(Object.keys(doc.webhooks)).toContain('command.succeeded');
  });

  it('when openapi-typescript reads it, then the types it writes name the shapes clients use', async () => {
    const types = astToString(await openapiTS(text));
    expect(types).toContain('speed?: number | null;');
    expect(types).toContain('CommandCreated: components["schemas"]["CommandConfirmation"] | components["schemas"]["CommandPending"];');
    expect(types).toMatch(/createVehicleCommand: \{/);
    expect(types).toMatch(/"x-signature": string;/);
  });

  it("when the SDK's generated files are rebuilt from it and the contract, then they are the committed ones (else: npm run openapi:export)", async () => {
    const check = await run(process.execPath, [GENERATOR, '--check']).then(() => ({ code: 0, stderr: '' }), (e: { code: number; stderr: string }) => e);
    expect(check, check.stderr).toEqual({ code: 0, stderr: '' });
  });
});

describe('the OpenAPI document a running service serves', () => {
  let svc: TestService;
  beforeAll(async () => { svc = await startTestService('sqlite'); });
  afterAll(async () => { await svc?.close(); });

  it('when GET /openapi.json is read, then it is the exported document', async () => {
    const served = (await svc.request('GET', '/openapi.json')).body;
    expect(served).toEqual(JSON.parse(readFileSync(COMMITTED, 'utf8')));
  });
});
