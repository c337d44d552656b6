/**
 * Where Monaco starts its web workers: the three files the build bundles beside this script
 * (scripts/build-assets.cjs), from this origin, so the policy's `worker-src 'self'` admits them.
 * Imported first: Monaco asks for a worker as soon as GraphiQL creates its first editor.
 */
const WORKER_FILES: Readonly<Record<string, string>> = {
  graphql: 'graphql.worker.js',
  json: 'json.worker.js',
};

/** The part of Monaco's `Environment` (monaco-editor's types) set here. */
interface MonacoEnvironment {
  getWorker(workerId: string, label: string): Worker;
}

(globalThis as { MonacoEnvironment?: MonacoEnvironment }).MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    const file = WORKER_FILES[label] ?? 'editor.worker.js';
    return new Worker(new URL(`./${file}`, import.meta.url), { name: `monaco-${label}` });
  },
};
