import { Connection } from '../../shared/connection';
import { Participant } from '../participant/participant.entity';
import { Meeting } from './meeting.entity';

/** Slices of meeting lists and of participant lists (a meeting's, the caller's invitations). */
export const MeetingConnection = Connection(Meeting, 'Meeting');
export const ParticipantConnection = Connection(Participant, 'Participant');
