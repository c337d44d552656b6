import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  InMemoryLRUCache,
  type KeyValueCache,
  PrefixingKeyValueCache,
} from '@apollo/utils.keyvaluecache';
import { type DocumentNode, parse, print } from 'graphql';
import type { Logger } from 'pino';
import type { TrustedDocumentsConfig } from './graphql.settings';

/** What GRAPHQL_TRUSTED_DOCUMENTS asks of a document that is not trusted, when it is not off. */
export type TrustedDocumentsMode = Exclude<TrustedDocumentsConfig['mode'], 'off'>;

/** What a request names: a document id (documentId, APQ's sha256Hash), or a document's text. */
export interface NamedDocument {
  id?: string;
  text?: string;
  operationName?: unknown;
}

/** The lowercase hex sha256 of a document's text: its id in APQ and in a Codegen manifest. */
export const documentHash = (text: string): string =>
  createHash('sha256').update(text).digest('hex');

/** A GraphQL-over-HTTP persisted-documents id of this form names the document by its sha256. */
const SHA256_PREFIX = 'sha256:';

/** An id as the trusted documents key it: `sha256:<hex>` is the bare hex of APQ and manifests. */
export const bareId = (id: string): string =>
  id.startsWith(SHA256_PREFIX) ? id.slice(SHA256_PREFIX.length) : id;

/** Distinct unknown documents logged (GRAPHQL_TRUSTED_DOCUMENTS=log): a bound on what it holds. */
const MAX_LOGGED = 1000;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The APQ id of a request's `extensions` (`persistedQuery.sha256Hash`), if it names one. */
export function apqHashOf(extensions: unknown): string | undefined {
  const persisted = isRecord(extensions) ? extensions['persistedQuery'] : undefined;
  const hash = isRecord(persisted) ? persisted['sha256Hash'] : undefined;
  return typeof hash === 'string' ? hash : undefined;
}

/**
 * The operations /graphql and its subscriptions may run (an allow-list): each by its id and by
 * its exact text. Looking a request up is one map lookup; ids are hashed once, at start-up.
 */
export class TrustedDocuments {
  private readonly texts: ReadonlySet<string>;
  private readonly logged = new Set<string>();

  constructor(
    readonly mode: TrustedDocumentsMode,
    /** Id → text. */
    private readonly byId: ReadonlyMap<string, string>,
    private readonly logger: Logger,
  ) {
    this.texts = new Set(byId.values());
  }

  get size(): number {
    return this.byId.size;
  }

  /** The text of the trusted document `id` names (a manifest key, bare or after `sha256:`). */
  textOf(id: string): string | undefined {
    return this.byId.get(bareId(id));
  }

  /** Whether `text` is, byte for byte, the text of a trusted document. */
  trusts(text: string): boolean {
    return this.texts.has(text);
  }

  /**
   * Whether a document that is not trusted runs anyway: only while unknown documents are logged
   * rather than refused. Each distinct one is logged once (by id, or by the hash of its text).
   */
  admitsUnknown(named: NamedDocument, transport: 'http' | 'subscription'): boolean {
    if (this.mode === 'enforce') {
      return false;
    }
    const key = named.id ?? documentHash(named.text ?? '');
    if (!this.logged.has(key) && this.logged.size < MAX_LOGGED) {
      this.logged.add(key);
      const operationName = typeof named.operationName === 'string' ? named.operationName : null;
      this.logger.warn(
        { component: 'graphql', transport, documentId: key, operationName },
        'a document outside the trusted documents ran (GRAPHQL_TRUSTED_DOCUMENTS=log)',
      );
    }
    return true;
  }

  /**
   * The store Apollo's automatic persisted queries read ids from: the trusted documents, so a
   * request by id alone finds them; while enforced it holds nothing else (registering a new
   * document is refused before it gets here), while logged it also keeps what clients register,
   * bounded as Apollo's own store is.
   */
  persistedQueryStore(): KeyValueCache<string> {
    const registered = this.mode === 'log' ? new InMemoryLRUCache<string>() : null;
    // Apollo's keys are the clients' hashes as they are: this store is the APQ store alone.
    return PrefixingKeyValueCache.cacheDangerouslyDoesNotNeedPrefixesForIsolation({
      get: async (key) => this.textOf(key) ?? registered?.get(key),
      set: async (key, value, options) => registered?.set(key, value, options),
      delete: async (key) => registered?.delete(key),
    });
  }
}

/**
 * A manifest as a client build writes it: a JSON object of id → document text, GraphQL Code
 * Generator's client preset `persisted-documents.json` (ids `sha256:<hex>`) and Relay's persisted
 * queries file (ids md5 hex) alike. Every document must parse; start-up fails naming any that
 * does not.
 */
function readManifest(file: string): Map<string, string> {
  const where = `GRAPHQL_TRUSTED_DOCUMENTS_FILE (${file})`;
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${where} cannot be read as JSON: ${(error as Error).message}`);
  }
  if (!isRecord(manifest)) {
    throw new Error(`${where} must be a JSON object of document id → document text`);
  }
  const documents = new Map<string, string>();
  for (const [id, text] of Object.entries(manifest)) {
    if (typeof text !== 'string') {
      throw new Error(`${where}: the document ${id} is not a string`);
    }
    try {
      parse(text);
    } catch (error) {
      throw new Error(`${where}: the document ${id} does not parse: ${(error as Error).message}`);
    }
    documents.set(id, text);
  }
  return documents;
}

/**
 * The trusted documents, or null when GRAPHQL_TRUSTED_DOCUMENTS is off: the `builtIn` documents
 * (the REST operations), each printed and known by the sha256 of its print, then the manifest's.
 */
export function loadTrustedDocuments(options: {
  config: TrustedDocumentsConfig;
  builtIn: readonly DocumentNode[];
  logger: Logger;
}): TrustedDocuments | null {
  const { mode, file } = options.config;
  if (mode === 'off') {
    return null;
  }
  const byId = new Map(Object.entries(manifestOf(options.builtIn)));
  for (const [id, text] of file ? readManifest(file) : []) {
    // The client preset writes `sha256:<hex>` keys; APQ sends the bare hex.
    byId.set(bareId(id), text);
  }
  return new TrustedDocuments(mode, byId, options.logger);
}

/** Documents as a manifest: each printed, under the sha256 of its print. */
export function manifestOf(documents: readonly DocumentNode[]): Record<string, string> {
  return Object.fromEntries(
    documents.map((document) => {
      const text = print(document);
      return [documentHash(text), text];
    }),
  );
}
