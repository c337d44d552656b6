// The letters' face for the rest of the mail module.
export { reminderLetter } from './reminder.letter';
