import { answerCacheSettings } from './platform/answer-cache/answer-cache.settings';
import { authSettings, rateLimitSettings } from './platform/auth/auth.settings';
import type { ModuleDescriptor, SettingsOf } from './platform/composition/module';
import { costSettings } from './platform/graphql/cost.settings';
import { graphqlSettings } from './platform/graphql/graphql.settings';
import { httpSettings } from './platform/http/http.settings';
import { liveSettings } from './platform/live/live.settings';
import { observabilitySettings } from './platform/observability/observability.settings';
import { databaseSettings } from './platform/postgres/database.settings';
import { environmentSettings } from './platform/settings/environment.settings';
import { settingsReference } from './platform/settings/reference';
import {
  type AnySettings,
  assembleSettings,
  type ConfigOf,
  type Settings,
} from './platform/settings/settings';

// The configuration, assembled: the platform's settings (each declared beside what uses it), then
// those the modules given declare (their descriptors' `settings`). Nothing here knows a module.

export { ConfigError } from './platform/settings/settings';
export type { DatabaseConfig, Pooler } from './platform/postgres/database-config';

/** The platform's settings, in the order the reference lists them and problems are named. */
export const PLATFORM_SETTINGS = [
  environmentSettings,
  httpSettings,
  observabilitySettings,
  databaseSettings,
  authSettings,
  rateLimitSettings,
  graphqlSettings,
  costSettings,
  liveSettings,
  answerCacheSettings,
] as const;

type PlatformSettings = (typeof PLATFORM_SETTINGS)[number];

/** The settings of a service made of the modules `M`: the platform's and theirs. */
export type ServiceSettings<M extends readonly ModuleDescriptor[]> = Settings<
  PlatformSettings | SettingsOf<M>
>;

/** The validated configuration of one instance of a service made of the modules `M`. */
export type ConfigFor<M extends readonly ModuleDescriptor[]> = ConfigOf<
  PlatformSettings | SettingsOf<M>
>;

/** The settings of a service made of `modules`: the platform's, then each module's, in order. */
export function settingsOf<const M extends readonly ModuleDescriptor[]>(
  modules: M,
): ServiceSettings<M> {
  const declared = modules.flatMap((module) =>
    module.settings ? [module.settings as SettingsOf<M>] : [],
  );
  return assembleSettings<PlatformSettings | SettingsOf<M>>([...PLATFORM_SETTINGS, ...declared]);
}

/** docs/configuration.md: every variable of `settings`, its default and its meaning, by area. */
export function configurationReference(settings: Pick<Settings<AnySettings>, 'groups'>): string {
  return settingsReference(
    'Configuration reference',
    `
Every environment variable the service reads, by area: its default and what it means. All are
validated at start; a bad value stops the service (exit code 78) with a message naming every bad
variable. [Operations](operations.md) explains how they fit together.

This file is written by \`npm run docs:config\` from the settings' declarations (each area's
\`*.settings.ts\`, beside the code that uses them); a test fails when it is out of date.
`,
    settings.groups,
  );
}
