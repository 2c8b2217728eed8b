/**
 * The durable floor of command creations: a bare Fastify process (no logging, no hooks) that
 * does only what the guarantee asks of a creation, batched as the service batches, on a database
 * of its own with the service's schema. POST /floor-durable takes the service's own request (same
 * headers and JSON body, parsed, nothing checked), commits the command's Pending row before the
 * automaker is called (a turn's rows in one statement or transaction), makes the exchange, then
 * writes the status URL: on PostgreSQL in the background, gathered while the statement before
 * commits and not waited for; on SQLite in the next turn's transaction, waited for (as
 * src/commands/create-command.ts and src/store/write-batcher.ts do).
 *
 * No authentication, signature, registry read, log line, metric or idempotency: the service's
 * creations over this floor is how close it comes to the least a creation with the guarantee
 * costs, and this floor over the bare exchange (POST /floor-oem) is what the guarantee itself
 * costs on the machine. A write that fails fails the request (500), which fails the run.
 *
 *   node durable-floor.mjs PORT AUTOMAKER_URL VIN DATABASE_URL
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import Fastify from 'fastify';
import { timeOrderedId } from '../../dist/domain/time-ordered-id.js';
import { checkpointInBackground } from '../../dist/store/sqlite/background-checkpoints.js';
import { floorExchange } from './floor-exchange.mjs';

const require = createRequire(import.meta.url);
const [port, oemUrl, vin, database] = process.argv.slice(2);
/** The columns the service writes for a command created Pending (src/store/commands/insert.ts). */
const COLUMNS = ['id', 'application_id', 'company_id', 'vin', 'oem', 'command', 'status', 'detail', 'created_at', 'updated_at', 'deadline_at', 'code_attempts', 'poll_attempts'];
const MAX_BATCH = 256;
/**
 * The status check of the status URL's update, as the service writes it
 * (src/store/not-from-partial-index.ts): through an expression, so the primary key finds the row
 * rather than the partial index of Pending commands, which grows with every command here.
 */
const STILL_PENDING = "(commands.status || '') = 'Pending'";

/** `write(items)` once per event-loop turn with everything queued in it; each caller settles with its write. */
function perTurn(write) {
  let queue = [];
  const flush = async () => {
    const batch = queue;
    queue = [];
    try {
      await write(batch.map((entry) => entry.item));
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  };
  return (item) => new Promise((resolve, reject) => {
    if (queue.length === 0) setImmediate(flush);
    queue.push({ item, resolve, reject });
  });
}

/** `write(items)` one batch at a time, items gathering while the one before commits; nobody waits. */
function inBackground(write, onError) {
  const queue = [];
  let busy = false;
  const drain = async () => {
    busy = true;
    while (queue.length > 0) await write(queue.splice(0, MAX_BATCH)).catch(onError);
    busy = false;
  };
  return (item) => {
    queue.push(item);
    if (!busy) void drain();
  };
}

/** One statement text per row count, made on first use. */
function textsByCount(make) {
  const texts = new Map();
  return (count) => {
    let text = texts.get(count);
    if (text === undefined) texts.set(count, (text = make(count)));
    return text;
  };
}

async function postgresWrites(url, failed) {
  const pg = (await import('pg')).default;
  // The service's default pool size (DATABASE_POOL_SIZE), and its connections' lifetime, so no
  // plan made on the empty table outlives the first minute (src/store/postgres/connect-postgres.ts).
  const pool = new pg.Pool({ connectionString: url, max: 10, maxLifetimeSeconds: 60 });
  pool.on('error', failed);
  const { rows: [owner] } = await pool.query('select a.id, a.company_id, v.oem from applications a, vehicles v where v.vin = $1 limit 1', [vin]);
  const placeholders = (count, width, cast = () => '') => Array.from({ length: count }, (_, r) => `(${Array.from({ length: width }, (__, c) => `$${r * width + c + 1}${cast(c)}`).join(', ')})`).join(', ');
  const insertText = textsByCount((n) => `insert into commands (${COLUMNS.join(', ')}) values ${placeholders(n, COLUMNS.length)}`);
  const casts = ['::text', '::bigint', '::varchar(36)'];
  const updateText = textsByCount((n) => `update commands set status_url = given.status_url, next_poll_at = given.next_poll_at
    from (values ${placeholders(n, 3, (c) => casts[c])}) as given(status_url, next_poll_at, id) where commands.id = given.id and ${STILL_PENDING}`);
  // Named, so PostgreSQL plans each text once, as the service's pool does for its row statements.
  const run = (name, text, rows) => pool.query({ name: `${name}-${rows.length}`, text: text(rows.length), values: rows.flat() });
  return {
    owner,
    insert: perTurn((rows) => run('insert', insertText, rows)),
    statusUrl: inBackground((rows) => run('status-url', updateText, rows), failed),
  };
}

function sqliteWrites(file) {
  const Database = require('better-sqlite3');
  const db = new Database(file, { fileMustExist: true });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // Checkpoints in a thread of their own, by the service's own code: storage mechanics, not request work.
  checkpointInBackground(db, file);
  const owner = db.prepare('select a.id, a.company_id, v.oem from applications a, vehicles v where v.vin = ? limit 1').get(vin);
  const insert = db.prepare(`insert into commands (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`);
  const update = db.prepare(`update commands set status_url = ?, next_poll_at = ? where id = ? and ${STILL_PENDING}`);
  const turn = perTurn(db.transaction((writes) => { for (const write of writes) write(); }));
  return {
    owner,
    insert: (row) => turn(() => insert.run(row)),
    statusUrl: (row) => turn(() => update.run(row)),
  };
}

let failure;
const writes = /^postgres(ql)?:\/\//i.test(database)
  ? await postgresWrites(database, (error) => { failure = error; })
  : sqliteWrites(database);
const { owner } = writes;
if (owner === undefined) throw new Error(`no application and vehicle ${vin} in ${database}`);
const exchange = floorExchange(oemUrl, vin);
const app = Fastify({ logger: false });
app.get('/floor', async () => ({ status: 'ok' }));
app.post('/floor-durable', async (request) => {
  if (failure !== undefined) throw failure;
  const { vin: asked, command } = request.body;
  const now = Date.now();
  const id = timeOrderedId(now, randomUUID);
  await writes.insert([id, owner.id, owner.company_id, asked, owner.oem, command, 'Pending', '{}', now, now, now + 120_000, 0, 0]);
  const statusUrl = await exchange(id);
  await writes.statusUrl([statusUrl, Date.now() + 1000, id]);
  return { id, vin: asked, command, status: 'Pending', created: new Date(now).toISOString() };
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => app.close().then(() => process.exit(0)));
