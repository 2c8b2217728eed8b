/**
 * How this process connects to the ingest queue's NATS servers: credentials (one way, from the
 * environment or a creds file) and TLS, and what a failed first connection is reported as. A
 * refused credential or certificate is one line naming which, and the process exits: retrying
 * would only hide it. No secret is ever part of a message or a log line.
 */
import { readFileSync } from 'node:fs';
import { credsAuthenticator, nkeyAuthenticator, type ConnectionOptions } from '@nats-io/transport-node';
import type { IngestQueueSettings } from './ingest-streams.js';

export function connectOptions(settings: IngestQueueSettings): ConnectionOptions {
  const options: ConnectionOptions = { servers: [...settings.servers], name: 'telematics', maxReconnectAttempts: -1, reconnectTimeWait: 500, timeout: 5000 };
  const auth = settings.auth;
  if (auth?.kind === 'password') Object.assign(options, { user: auth.user, pass: auth.password });
  else if (auth?.kind === 'token') options.token = auth.token;
  else if (auth?.kind === 'nkey') options.authenticator = nkeyAuthenticator(new TextEncoder().encode(auth.seed));
  // Read again at each (re)connection, so a rotated creds file is taken without a restart.
  else if (auth?.kind === 'creds') options.authenticator = credsAuthenticator(() => readFileSync(auth.file));
  const tls = settings.tls;
  if (tls) {
    options.tls = {
      ...(tls.caFile === undefined ? {} : { caFile: tls.caFile }),
      ...(tls.certFile === undefined ? {} : { certFile: tls.certFile, keyFile: tls.keyFile! }),
    };
  }
  return options;
}

/** The one line a first connection that failed is reported as: unreachable, credentials refused, or TLS. */
export function connectFailure(error: unknown, settings: IngestQueueSettings, servers: string): Error {
  const reason = String((error as Error | undefined)?.message ?? error);
  if (/authorization violation|authentication|user authentication expired|permissions? violation/i.test(reason)) {
    return new Error(`the ingest queue at ${servers} refused this process's credentials (${reason}): check ${credentialsSetting(settings)}`);
  }
  if (/certificate|self[- ]signed|tls|ssl|handshake/i.test(reason)) {
    return new Error(`the ingest queue at ${servers} failed TLS (${reason}): check --ingest-queue-tls-ca (and --ingest-queue-tls-cert/--ingest-queue-tls-key if the servers verify clients)`);
  }
  return new Error(`cannot reach the ingest queue at ${servers}: ${reason} (is nats-server running with JetStream, and is --ingest-queue right?)`);
}

function credentialsSetting(settings: IngestQueueSettings): string {
  switch (settings.auth?.kind) {
    case 'password': return '--ingest-queue-user and TELEMATICS_INGEST_QUEUE_PASSWORD';
    case 'token': return 'TELEMATICS_INGEST_QUEUE_TOKEN';
    case 'nkey': return 'TELEMATICS_INGEST_QUEUE_NKEY_SEED';
    case 'creds': return '--ingest-queue-creds';
    default: return 'the servers ask for credentials and none are set: TELEMATICS_INGEST_QUEUE_USER/_PASSWORD, _TOKEN, _NKEY_SEED or --ingest-queue-creds';
  }
}
