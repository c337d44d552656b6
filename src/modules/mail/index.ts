import type { ServiceParts } from '../../platform/composition/context';
import { defineModule } from '../../platform/composition/module';
import { mailSettings } from './mail.settings';
import type { MeetingService } from '../meeting';
import { MailMessage } from './mail-message.entity';
import { MailResolver } from './mail.resolver';
import { type MailStores, MailService } from './mail.service';
import { MailStore } from './mail.store';
import { type MailDeps, mailDeps, mailHttp, mailWorker } from './mail.wiring';

export { MAIL_PATHS } from './mail.links';

/** Mail: verification, invitations and reminders, made from the change log and sent by SMTP. */
export const mailModule = defineModule({
  name: 'mail',
  settings: mailSettings,
  entities: [MailMessage],
  // The dispatcher's cursor in the change log (mail.store.ts); reminders (reminder.store.ts).
  tables: ['mail_dispatch', 'mail_reminders'],
  resolvers: [MailResolver],
  stores: { mail: MailStore },
  services: {
    mail: (
      p: ServiceParts<MailStores, unknown, { mail: MailDeps }, { meetings: MeetingService }>,
    ) => new MailService(p.stores, p.deps.mail.links, p.services.meetings),
  },
  deps: mailDeps,
  routes: mailHttp,
  worker: mailWorker,
});
