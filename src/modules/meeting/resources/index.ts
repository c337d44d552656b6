// The face of a meeting's rooms and resources for the rest of the meeting module.
export { bookAgain } from './booking-plan';
