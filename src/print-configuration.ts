import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configurationDoc } from './app-config';

export const CONFIGURATION_FILE = resolve(__dirname, '../../docs/configuration.md');

/** Writes the configuration reference the settings declare to docs/configuration.md. */
writeFileSync(CONFIGURATION_FILE, configurationDoc());
console.log(`wrote ${CONFIGURATION_FILE}`);
