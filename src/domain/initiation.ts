/**
 * How long an initiation may take, and when a command left without a status URL is taken as
 * orphaned (D6). A creation registers the command, calls the automaker (bounded by
 * `INITIATE_TIMEOUT_MS`) and then stores the status URL; on PostgreSQL `Pending` is answered
 * before that commit. A crash in between leaves a `Pending` command the automaker may have
 * accepted and nobody can poll. The command worker initiates such a command again, with the same
 * `Idempotency-Key` (the command id), once its initiation began `REINITIATE_AFTER_MS` ago: by then
 * the request that began it has given up on the automaker (10 s) and had 5 s more to commit the
 * URL, so a command still inside its request is not sent again. Mistaking a slow commit for a
 * crash costs one repeated initiation, which the automaker's contract answers with the same status
 * URL without acting twice (docs/commands.md, "The connector interface").
 */

/** D6: an initiation inside the request is bounded by 10 s. */
export const INITIATE_TIMEOUT_MS = 10_000;

/** D6: one status poll of the automaker is bounded by 5 s; the next poll follows with backoff. */
export const STATUS_POLL_TIMEOUT_MS = 5_000;

/** What a request may take past the automaker's answer to commit its status URL (SQLite's busy timeout is 5 s). */
export const STATUS_URL_COMMIT_MS = 5_000;

/** A `Pending` command still without a status URL this long after its initiation began is initiated again. */
export const REINITIATE_AFTER_MS = INITIATE_TIMEOUT_MS + STATUS_URL_COMMIT_MS;

/** First poll after an initiation: automakers rarely answer sooner. */
export const FIRST_POLL_MS = 1000;
