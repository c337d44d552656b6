import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import nodemailerAddress from 'nodemailer/lib/addressparser';
import type { Logger } from 'pino';
import { LinkTokens } from '../../platform/auth/link-tokens';
import type { RequestInfo } from '../../platform/auth/tokens';
import type { ModuleRoute, ModuleWorker } from '../../platform/composition/module';
import { publicBaseUrl } from '../../platform/http/public-url';
import type { EventHub } from '../../platform/live/event-hub';
import type { Metrics } from '../../platform/observability/metrics';
import { ALL_CHANGES_TOPIC, type ChangeNotice } from '../meeting';
import type { UserRecord } from '../user';
import { devMailRoutes } from './dev-mail.routes';
import type { Context } from './mail.context';
import { MAIL_PATHS } from './mail.links';
import { mailMetrics } from './mail.metrics';
import type { MailConfig } from './mail.settings';
import { smtpTransport } from './mail.transport';
import { startMailWorker } from './mail.worker';
import { inboundRoutes } from './inbound.routes';
import { ReplyAddresses } from './mail.reply-address';
import type { MailMode } from './mail.dispatch';
import { rsvpRoutes } from './rsvp.routes';
import { unsubscribeRoutes } from './unsubscribe.routes';
import { verifyEmailRoutes } from './verify-email.routes';

/** Connections of the mail worker's statements (its job queue has its own). */
const MAIL_POOL_SIZE = 2;

/** What mail needs of the process. */
export interface MailDeps {
  links: LinkTokens;
  /** The base of the links in messages (PUBLIC_URL, else this host's). */
  publicUrl: string;
  mode: MailMode;
  /** Per-invitation reply addresses (MAIL_REPLY_DOMAIN), or null. */
  replies: ReplyAddresses | null;
}

/** What the mail module reads of the configuration. */
interface MailSetupConfig {
  env: string;
  publicUrl: string | null;
  port: number;
  auth: { secret: string; privateKeyPem: string | null };
  mail: MailConfig;
}

/** Without SMTP_URL: kept for the development page, or off in production. */
const modeOf = (config: MailSetupConfig): MailMode =>
  config.mail.smtpUrl ? 'smtp' : config.env === 'production' ? 'off' : 'keep';

/** Builds mail's process dependencies from the configuration. */
export const mailDeps = (setup: { config: MailSetupConfig }): { mail: MailDeps } => ({
  mail: {
    links: LinkTokens.of(setup.config.auth),
    publicUrl: publicBaseUrl(setup.config),
    mode: modeOf(setup.config),
    replies: setup.config.mail.reply
      ? ReplyAddresses.of(setup.config.auth, setup.config.mail.reply)
      : null,
  },
});

/** What mail's routes and worker need of the app. */
interface MailRuntime {
  config: MailSetupConfig;
  deps: { mail: MailDeps };
  logger: Logger;
  sessionUrl: string;
  hub: EventHub<ChangeNotice>;
  metrics: Metrics | null;
  createContext(request: RequestInfo): Promise<Context>;
  /** A context acting as `user` outside any request (a method: the app's takes its own back). */
  contextOf(user: UserRecord, over: EntityManager | Context): Context;
  backgroundOrm(work: string, poolSize: number): Promise<MikroORM>;
}

/** The verification page, and the development mail page. */
export const mailHttp = (runtime: MailRuntime): ModuleRoute[] => {
  const createContext = (request: RequestInfo) => runtime.createContext(request);
  return [
    {
      path: MAIL_PATHS.verifyEmail,
      handler: verifyEmailRoutes({ createContext, logger: runtime.logger }),
    },
    { path: MAIL_PATHS.rsvp, handler: rsvpRoutes({ createContext, logger: runtime.logger }) },
    {
      path: MAIL_PATHS.unsubscribe,
      handler: unsubscribeRoutes({ createContext, logger: runtime.logger }),
    },
    {
      path: MAIL_PATHS.inbound,
      handler: inboundRoutes({
        secret: runtime.config.mail.inboundSecret,
        replies: runtime.deps.mail.replies,
        createContext,
        logger: runtime.logger,
      }),
    },
    {
      path: MAIL_PATHS.devMail,
      handler: devMailRoutes({
        keeping: runtime.deps.mail.mode === 'keep',
        createContext,
        logger: runtime.logger,
      }),
    },
  ];
};

/** MAIL_FROM's address, for the envelope. */
function addressOf(from: string): string {
  const [first] = nodemailerAddress(from, { flatten: true });
  return first?.address ?? from;
}

/**
 * Mail is made from the change log and sent by jobs any instance runs (graphile-worker), on
 * connections of its own; in production without SMTP_URL it is off, and the start log says so.
 * Reminders are scheduled and come due either way: their events reach webhooks and
 * subscriptions without mail.
 */
export async function mailWorker(runtime: MailRuntime): Promise<ModuleWorker> {
  const { config, deps, logger } = runtime;
  const { mode, links, publicUrl } = deps.mail;
  if (mode === 'off') {
    logger.info(
      { component: 'mail' },
      'mail is off: set SMTP_URL to send invitations and reminders',
    );
  }
  const orm = await runtime.backgroundOrm('mail', MAIL_POOL_SIZE);
  const worker = await startMailWorker({
    orm,
    sessionUrl: runtime.sessionUrl,
    hub: runtime.hub,
    topic: ALL_CHANGES_TOPIC,
    dispatch: {
      contextOf: (user, over) => runtime.contextOf(user, over),
      env: { links, publicUrl },
      perSenderPerHour: config.mail.perSenderPerHour,
      replies: deps.mail.replies,
      from: config.mail.from,
      mode,
      metrics: mailMetrics(runtime.metrics),
    },
    transport: config.mail.smtpUrl ? smtpTransport(config.mail.smtpUrl) : null,
    envelopeFrom: addressOf(config.mail.from),
    retrySchedule: config.mail.retrySchedule,
    logger,
  });
  return {
    async close() {
      await worker.close();
      await orm.close(true);
    },
  };
}
