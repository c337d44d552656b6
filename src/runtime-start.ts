import { enableCompileCache } from 'node:module';
import { unsupportedNodeMessage } from './runtime';

// Imported first by every command (start, cluster, migrate, seed).
// On a Node outside package.json's `engines.node` the command stops here with one line, before a
// library that needs a newer runtime fails later and obscurely.
const message = unsupportedNodeMessage(process.versions.node);
if (message !== null) {
  console.error(message);
  process.exit(78);
}

// V8's compiled code for every module loaded after this point is kept on disk (in the system's
// temporary directory) and reused by the next start: loading the service's modules took 1.3 s
// without it and 0.8-1.2 s with it here, which is most of a restart under `npm run dev`.
enableCompileCache();
