import { unsupportedNodeMessage } from './runtime';

// Imported first by every command (start, cluster, migrate, seed).
// On a Node outside package.json's `engines.node` the command stops here with one line, before a
// library that needs a newer runtime fails later and obscurely.
const message = unsupportedNodeMessage(process.versions.node);
if (message !== null) {
  console.error(message);
  process.exit(78);
}
