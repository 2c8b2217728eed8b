/**
 * What differs between the two databases, as named capabilities. Code outside `store/sqlite` and
 * `store/postgres` asks these flags instead of comparing dialect names.
 */
export interface DialectCapabilities {
  readonly name: 'sqlite' | 'postgres';
  /** `SELECT … FOR UPDATE SKIP LOCKED` exists (PostgreSQL), so several workers can claim rows at once. */
  readonly skipLocked: boolean;
  /** Several connections write at once; SQLite serializes writers on one file. */
  readonly concurrentWriters: boolean;
  /** Tables can be partitioned by range and partitions dropped whole (PostgreSQL). */
  readonly rangePartitions: boolean;
  /** A statement can notify other connections (`NOTIFY`, heard with `LISTEN`: PostgreSQL). */
  readonly notifications: boolean;
  /**
   * A bound parameter can be a whole array (`$1::float8[]`), so a batch of any size goes in one
   * statement of constant text, e.g. `insert … select * from unnest($1, $2, …)` (PostgreSQL).
   */
  readonly arrayParameters: boolean;
  /**
   * How a table gets a growing 64-bit key: `bigserial` (PostgreSQL), or SQLite's
   * `integer primary key autoincrement`.
   */
  readonly serialKey: 'bigserial' | 'autoincrement';
  /**
   * The column type of text that sorts byte by byte whatever collation the database was made
   * with, so a list ordered by it is in the same order on both: `text collate "C"` (PostgreSQL),
   * `text` (SQLite compares text with BINARY unless told otherwise).
   */
  readonly bytewiseText: string;
  /**
   * How a trigger's body is written: a separate function it executes (PostgreSQL's plpgsql), or
   * inline between `begin` and `end` (SQLite).
   */
  readonly triggerBody: 'function' | 'inline';
}

export const sqliteCapabilities: DialectCapabilities = Object.freeze({
  name: 'sqlite',
  skipLocked: false,
  concurrentWriters: false,
  rangePartitions: false,
  notifications: false,
  arrayParameters: false,
  serialKey: 'autoincrement',
  bytewiseText: 'text',
  triggerBody: 'inline',
});

export const postgresCapabilities: DialectCapabilities = Object.freeze({
  name: 'postgres',
  skipLocked: true,
  concurrentWriters: true,
  rangePartitions: true,
  notifications: true,
  arrayParameters: true,
  serialKey: 'bigserial',
  bytewiseText: 'text collate "C"',
  triggerBody: 'function',
});
