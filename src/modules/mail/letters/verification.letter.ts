import type { Letter } from '../mail.compose';
import { bodyOf } from '../mail.text';

/** The message that proves an address: a link to the page that verifies it. */
export function verificationLetter(to: { name: string; address: string }, link: string): Letter {
  return {
    to,
    subject: 'Confirm your e-mail address',
    ...bodyOf([
      `Hello ${to.name},`,
      'Please confirm that this address is yours, so that invitations and reminders can reach you.',
      { link, label: 'Confirm my address' },
      'If you did not sign up, ignore this message: nothing will be sent to you.',
    ]),
  };
}
