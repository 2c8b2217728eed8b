import type { Command } from 'commander';
import { parseInputDate } from '../../domain/time.js';
import { failPendingDeliveries, pendingDeliveryCounts } from '../../store/webhooks/deliveries.js';
import { findWebhookEndpoint, listAllWebhookEndpoints, updateWebhookEndpoint } from '../../store/webhooks/endpoints.js';
import { queueMissedEvents } from '../../webhooks/endpoints/recover-endpoint.js';
import { emit, table, UsageError } from '../output.js';
import { withStore, withStoreOptions } from '../store-context.js';

/**
 * `admin webhook list|disable|enable|replay`: the operator's view of every application's endpoints
 * (OPERATIONS.md "Events"). Secrets are never shown. An endpoint the operator disabled stays so
 * until the operator enables it; it then waits for its application to answer the challenge again.
 */
export function registerWebhookCommands(admin: Command): void {
  const webhook = admin.command('webhook').description('webhook endpoints of every application');

  withStoreOptions(webhook.command('list').description('list webhook endpoints with their status and pending deliveries'))
    .option('--company <id>', 'only this company\'s')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const endpoints = (await listAllWebhookEndpoints(ctx.store.db)).filter((e) => opts.company === undefined || e.company_id === opts.company);
      const pending = await pendingDeliveryCounts(ctx.store.db);
      const rows = endpoints.map((e) => ({
        id: e.id, company: e.company_id, application: e.application_id, url: e.url, status: e.status,
        disabled_reason: e.disabled_reason, pending: pending.get(e.id) ?? 0,
      }));
      emit(ctx.output, rows, () => (rows.length === 0 ? 'no webhook endpoints' : table(rows, ['id', 'company', 'url', 'status', 'disabled_reason', 'pending'])));
    }));

  withStoreOptions(webhook.command('disable').description('stop deliveries to an endpoint (its application re-verifies it to enable it again)'))
    .requiredOption('--id <id>', 'endpoint id')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const row = await findWebhookEndpoint(ctx.store.db, String(opts.id));
      if (!row) throw new UsageError(`unknown webhook endpoint "${opts.id}" (see admin webhook list)`);
      const now = Date.now();
      await updateWebhookEndpoint(ctx.store.db, row.id, { status: 'disabled', disabled_reason: 'operator', updated_at: now });
      await failPendingDeliveries(ctx.store.db, row.id, 'endpoint disabled (operator)', now);
      emit(ctx.output, { id: row.id, status: 'disabled' }, () => `webhook endpoint ${row.id} disabled`);
    }));

  withStoreOptions(webhook.command('enable').description('lift a disable: the endpoint waits for its application to verify it again'))
    .requiredOption('--id <id>', 'endpoint id')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const row = await findWebhookEndpoint(ctx.store.db, String(opts.id));
      if (!row) throw new UsageError(`unknown webhook endpoint "${opts.id}" (see admin webhook list)`);
      if (row.status !== 'disabled') throw new UsageError(`webhook endpoint ${row.id} is ${row.status}, not disabled`);
      // Not straight to enabled: whoever answers at the URL now must prove it again.
      await updateWebhookEndpoint(ctx.store.db, row.id, { status: 'pending_verification', disabled_reason: null, failing_since: null, updated_at: Date.now() });
      emit(ctx.output, { id: row.id, status: 'pending_verification' }, () => `webhook endpoint ${row.id} waits for its application to verify it (POST /webhook-endpoints/${row.id}/verify)`);
    }));

  withStoreOptions(webhook.command('replay').description('send an endpoint again every event since an instant that it has not received'))
    .requiredOption('--id <id>', 'endpoint id')
    .requiredOption('--since <date>', 'YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS at -03:00, or with an offset')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const since = parseInputDate(String(opts.since));
      if (!since) throw new UsageError('--since must be YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS or YYYY-MM-DDTHH:MM:SS±HH:MM');
      const row = await findWebhookEndpoint(ctx.store.db, String(opts.id));
      if (!row) throw new UsageError(`unknown webhook endpoint "${opts.id}" (see admin webhook list)`);
      if (row.status !== 'enabled') throw new UsageError(`webhook endpoint ${row.id} is ${row.status}: its application must verify it first`);
      const { queued } = await queueMissedEvents(ctx.store, row, since.epochMs, Date.now());
      emit(ctx.output, { id: row.id, queued }, () => `${queued} event(s) queued for webhook endpoint ${row.id}; the workers send them`);
    }));
}
