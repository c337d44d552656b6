import 'reflect-metadata';
import { type ConfigFor, configurationReference, settingsOf } from './config';
import { modules } from './modules';

// The configuration of this service: the platform's settings and those of its modules.

const settings = settingsOf(modules);

/** The validated configuration of one service instance. */
export type Config = ConfigFor<typeof modules>;

/** The environment variables the service reads (docs/configuration.md explains each). */
export const CONFIG_VARIABLES: readonly string[] = settings.variables;

/** Parses and validates the environment once; throws ConfigError naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  return settings.read(source);
}

/** docs/configuration.md as the settings declare it now. */
export const configurationDoc = (): string => configurationReference(settings);
