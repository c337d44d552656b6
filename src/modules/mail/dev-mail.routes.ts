import { type Request, type Response, Router } from 'express';
import type { Logger } from 'pino';
import type { RequestInfo } from '../../platform/auth/tokens';
import { escapeHtml, htmlPage } from '../../platform/http/html';
import { currentRequest } from '../../platform/observability/request-tracking';
import type { Context } from './mail.context';
import { MAIL_PATHS } from './mail.links';
import type { MailRecord } from './mail.store';
import { parseMail } from './mail.parse';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ROUTES = { list: '/', message: '/:id', raw: '/:id/message.eml', ics: '/:id/invite.ics' };

function label(route: string): void {
  const scope = currentRequest();
  if (scope) {
    scope.route = `${MAIL_PATHS.devMail}${route === '/' ? '' : route}`;
  }
}

const page = (res: Response, status: number, title: string, body: string): void => {
  res.status(status).set('Cache-Control', 'no-store').type('html').send(htmlPage(title, body));
};

const row = (m: MailRecord): string =>
  `      <tr><td>${escapeHtml(m.createdAt)}</td><td>${escapeHtml(m.recipient)}</td>` +
  `<td>${escapeHtml(m.kind)}</td><td><a href="${MAIL_PATHS.devMail}/${m.id}">` +
  `${escapeHtml(m.subject)}</a></td></tr>`;

/** The list, newest first. */
const listBody = (messages: readonly MailRecord[]): string =>
  messages.length === 0
    ? '    <p>No message yet.</p>'
    : `    <table>\n      <tr><th>Made</th><th>To</th><th>Kind</th><th>Subject</th></tr>\n` +
      `${messages.map(row).join('\n')}\n    </table>`;

/** The calendar of a message (its `invite.ics`), if it has one. */
async function calendarOf(raw: string): Promise<string | null> {
  const parsed = await parseMail(raw);
  const part = parsed.attachments.find(
    (a) => a.filename === 'invite.ics' || a.contentType.startsWith('text/calendar'),
  );
  return part ? part.content.toString('utf8') : null;
}

/** One message whole: its headers, its text, its HTML (sandboxed), and its parts to download. */
async function messageBody(message: MailRecord, raw: string): Promise<string> {
  const parsed = await parseMail(raw);
  const base = `${MAIL_PATHS.devMail}/${message.id}`;
  const headers = ['from', 'to', 'subject', 'date', 'message-id', 'list-unsubscribe']
    .map((name) => [name, parsed.headerLines.find((h) => h.key === name)?.line ?? null] as const)
    .filter(([, line]) => line !== null)
    .map(([, line]) => escapeHtml(String(line)))
    .join('\n');
  const ics = (await calendarOf(raw)) ? ` · <a href="${base}/invite.ics">invite.ics</a>` : '';
  const html = typeof parsed.html === 'string' ? parsed.html : '';
  return `    <p><a href="${MAIL_PATHS.devMail}">All messages</a> · <a href="${base}/message.eml">message.eml</a>${ics}</p>
    <pre>${headers}</pre>
    <h2>Text</h2>
    <pre>${escapeHtml(parsed.text ?? '')}</pre>
    <h2>HTML</h2>
    <iframe sandbox title="HTML part" srcdoc="${escapeHtml(html)}"></iframe>`;
}

/**
 * The development mail page, at MAIL_PATHS.devMail: the messages kept in the database when no
 * SMTP_URL is set outside production, newest first, each viewable whole, its .ics downloadable.
 * With mail sent (or off), it says so and lists nothing.
 */
export function devMailRoutes(options: {
  keeping: boolean;
  createContext: (request: RequestInfo) => Promise<Context>;
  logger: Logger;
}): Router {
  const router = Router();
  const withMessage =
    (route: string, answer: (res: Response, m: MailRecord, raw: string) => Promise<void>) =>
    async (req: Request, res: Response) => {
      label(route);
      const id = String(req.params['id']);
      const context = await options.createContext({ authorization: undefined, ip: req.ip ?? '' });
      const found =
        options.keeping && UUID.test(id) ? await context.services.mail.keptMessage(id) : null;
      if (!found) {
        page(
          res,
          404,
          'No such message',
          `    <p><a href="${MAIL_PATHS.devMail}">All messages</a></p>`,
        );
        return;
      }
      await answer(res, found.message, found.raw);
    };
  router.get(ROUTES.list, async (req, res) => {
    label(ROUTES.list);
    if (!options.keeping) {
      page(
        res,
        200,
        'Mail',
        '    <p>Messages are not kept here: SMTP_URL sends them (or mail is off in production).</p>',
      );
      return;
    }
    const context = await options.createContext({ authorization: undefined, ip: req.ip ?? '' });
    page(res, 200, 'Mail', listBody(await context.services.mail.keptMessages()));
  });
  router.get(
    ROUTES.raw,
    withMessage(ROUTES.raw, async (res, _m, raw) => {
      res.status(200).type('message/rfc822').send(raw);
    }),
  );
  router.get(
    ROUTES.ics,
    withMessage(ROUTES.ics, async (res, _m, raw) => {
      const ics = await calendarOf(raw);
      if (ics === null) {
        res.status(404).type('text').send('This message has no calendar.');
        return;
      }
      res
        .status(200)
        .set('Content-Disposition', 'attachment; filename="invite.ics"')
        .type('text/calendar; charset=utf-8')
        .send(ics);
    }),
  );
  router.get(
    ROUTES.message,
    withMessage(ROUTES.message, async (res, message, raw) => {
      page(res, 200, message.subject, await messageBody(message, raw));
    }),
  );
  return router;
}
