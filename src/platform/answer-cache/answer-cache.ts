import { AsyncLocalStorage } from 'node:async_hooks';
import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { TableWatch } from './table-watch';
import { addTablesRead, addTablesWritten, readsClock } from './sql-tables';

/** An answer as a face keeps it: its bytes, and their strong ETag when the face sends one. */
export interface AnswerText {
  text: string;
  etag?: string;
}

/** A kept answer, and the tables it was read from (its tags). */
export interface KeptAnswer extends AnswerText {
  tags: readonly string[];
}

/**
 * What one request's statements touched, recorded from where the caller is known (after the
 * bearer token and its user were read: the caller is part of the key) to its answer.
 */
export interface Recording {
  /** The cache's epoch when the request began to read: a drop after it makes the answer stale. */
  readonly since: number;
  readonly reads: Set<string>;
  readonly writes: Set<string>;
  /** A statement read the clock: the answer may change with no write. */
  clock: boolean;
  /** Whether the request ran a read operation whose answer may be kept (set by each face). */
  keepable: boolean;
  /**
   * Whether statements are recorded now: from where the caller is known (a GraphQL request's
   * context is made inside the recording, and its caller lookup is not what the answer read).
   */
  active: boolean;
  /** The answer's key, once the face knows it. */
  key?: string;
  /** Answered from a kept answer (not kept again). */
  hit?: boolean;
}

const recordings = new AsyncLocalStorage<Recording>();

/** The recording of the request in progress, if any (the faces mark their answers keepable). */
export const currentRecording = (): Recording | undefined => recordings.getStore();

/**
 * Says that the answer being built depends on the time it is built at (code that reads the
 * clock for it, as a statement calling now() does): it is not kept.
 */
export function answerReadsClock(): void {
  const recording = recordings.getStore();
  if (recording) {
    recording.clock = true;
  }
}

/** The channel on which the database says which tables a commit wrote (migration 20261208000000). */
export const TABLES_CHANGED_CHANNEL = 'tables_changed';

/**
 * Sees every statement a request sends (QueryCounter's observer): adds what it reads and writes
 * to the request's recording, if one is under way.
 */
export function observeStatement(sql: string): void {
  const recording = recordings.getStore();
  if (recording?.active) {
    addTablesRead(sql, recording.reads);
    addTablesWritten(sql, recording.writes);
    if (!recording.clock && readsClock(sql)) {
      recording.clock = true;
    }
  }
}

// Per kept answer, besides its body: the key, the tag list and the entry's own bookkeeping.
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * Whole answers to read operations, keyed by the caller, the operation and its variables, and
 * tagged with every table they were read from; any write to one of those tables drops them: at
 * once on the instance that wrote (before its answer is sent), and on every instance when the
 * database's notice of the commit arrives (a trigger on each table, see the migration
 * 20261208000000). An answer whose reading overlapped a drop of one of its tables is not kept,
 * and nothing is kept or served while the notices cannot be heard (the listener reconnecting:
 * every answer is dropped then). Bounded in bytes, least recently used first out.
 */
export class AnswerCache implements TableWatch {
  readonly channel = TABLES_CHANGED_CHANNEL;
  private readonly answers: LRUCache<string, KeptAnswer>;
  private readonly byTag = new Map<string, Set<string>>();
  /** Advances at every drop; a recording remembers it at its start. */
  private epoch = 0;
  private readonly droppedAt = new Map<string, number>();
  private clearedAt = 0;
  /** Whether the database's notices are heard: until then nothing is kept or served. */
  private hearing = false;
  readonly counts = { hits: 0, misses: 0, kept: 0, dropped: 0 };

  constructor(maxBytes: number) {
    this.answers = new LRUCache<string, KeptAnswer>({
      maxSize: maxBytes,
      sizeCalculation: (answer, key) => answer.text.length * 2 + key.length + ENTRY_OVERHEAD_BYTES,
      dispose: (answer, key) => this.unindex(key, answer),
    });
  }

  /** The key of an answer: what makes two requests the same question from the same caller. */
  static keyOf(...parts: readonly string[]): string {
    return hash('sha256', parts.join('\u0000'), 'base64url');
  }

  /** Runs `work` recording the statements it sends (see observeStatement). */
  record<T>(work: (recording: Recording) => T, active = true): T {
    const recording: Recording = {
      since: this.epoch,
      reads: new Set(),
      writes: new Set(),
      clock: false,
      keepable: false,
      active,
    };
    return recordings.run(recording, () => work(recording));
  }

  /** The answer kept under `key`, if any (and if kept answers may be served now). */
  get(key: string): KeptAnswer | undefined {
    const answer = this.hearing ? this.answers.get(key) : undefined;
    if (answer) {
      this.counts.hits += 1;
    } else {
      this.counts.misses += 1;
    }
    return answer;
  }

  /**
   * Keeps `answer` under `key`, read as `recording` saw, unless it may already be stale:
   * a table it read was written since it began, it read the clock, or notices were not heard.
   */
  keep(key: string, answer: AnswerText, recording: Recording): void {
    if (!this.hearing || !recording.keepable || recording.clock) {
      return;
    }
    if (recording.since < this.clearedAt) {
      return;
    }
    for (const table of recording.reads) {
      if ((this.droppedAt.get(table) ?? -1) > recording.since) {
        return;
      }
    }
    const tags = [...recording.reads];
    this.answers.set(key, { ...answer, tags });
    if (!this.answers.has(key)) {
      return; // larger than the whole cache
    }
    for (const tag of tags) {
      let keys = this.byTag.get(tag);
      if (!keys) {
        keys = new Set();
        this.byTag.set(tag, keys);
      }
      keys.add(key);
    }
    this.counts.kept += 1;
  }

  /** Drops every answer read from one of `tables` (they were written). */
  drop(tables: Iterable<string>): void {
    this.epoch += 1;
    for (const table of tables) {
      this.droppedAt.set(table, this.epoch);
      const keys = this.byTag.get(table);
      if (!keys) {
        continue;
      }
      this.byTag.delete(table);
      for (const key of keys) {
        if (this.answers.delete(key)) {
          this.counts.dropped += 1;
        }
      }
    }
  }

  /** A commit on some instance wrote `table` (the database's notice). */
  changed(table: string): void {
    this.drop([table]);
  }

  /**
   * Runs a request's operation recording what it reads and writes; what it wrote is dropped as
   * soon as it is done (committed), before its answer is sent: a caller always reads their own
   * write, on the instance that made it, without waiting for the database's notice.
   */
  async run<T>(work: () => Promise<T>, active = true): Promise<{ value: T; recording: Recording }> {
    return this.record(async (recording) => {
      try {
        return { value: await work(), recording };
      } finally {
        if (recording.writes.size > 0) {
          this.drop(recording.writes);
        }
      }
    }, active);
  }

  /** The database's notices are heard (again): answers may be kept and served. */
  heard(): void {
    this.clear();
    this.hearing = true;
  }

  /** The notices can no longer be heard: every answer goes, none is kept until heard again. */
  deaf(): void {
    this.hearing = false;
    this.clear();
  }

  /** The bytes the kept answers take (as counted against the bound). */
  get bytes(): number {
    return this.answers.calculatedSize;
  }

  private clear(): void {
    this.epoch += 1;
    this.clearedAt = this.epoch;
    this.answers.clear();
    this.byTag.clear();
  }

  private unindex(key: string, answer: KeptAnswer): void {
    for (const tag of answer.tags) {
      const keys = this.byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) {
        this.byTag.delete(tag);
      }
    }
  }
}
