import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { LinkKeySource } from '../../platform/auth/link-tokens';

/** A participant's id, in hex, without its hyphens. */
const ID_HEX = 32;
/** Bytes of the expiry (seconds) and of the MAC that follow it. */
const EXP_BYTES = 4;
const MAC_BYTES = 8;

/** The token part of a reply address: 56 hexadecimal digits (case does not matter to mail). */
const TOKEN = /^[0-9a-f]{56}$/;

/**
 * The per-invitation reply address `<local>+<token>@<domain>`: the token names a participant
 * (its id, an expiry and an HMAC-SHA256 tag of them), in hexadecimal so that the whole address
 * fits SMTP's 64 characters of a local part and survives mail systems that change case.
 */
export class ReplyAddresses {
  private constructor(
    private readonly key: Buffer,
    private readonly reply: { local: string; domain: string },
  ) {}

  static of(source: LinkKeySource, reply: { local: string; domain: string }): ReplyAddresses {
    const material = source.privateKeyPem ?? source.secret;
    const key = Buffer.from(hkdfSync('sha256', material, 'meeting-api', 'reply-address', 32));
    return new ReplyAddresses(key, reply);
  }

  /** The address a participant's calendar app sends its REPLY to, good until `expires`. */
  addressOf(participantId: string, expires: Date): string {
    const body = Buffer.alloc(16 + EXP_BYTES);
    Buffer.from(participantId.replace(/-/g, ''), 'hex').copy(body);
    body.writeUInt32BE(Math.min(Math.floor(expires.getTime() / 1000), 0xffffffff), 16);
    const token = Buffer.concat([body, this.mac(body)]).toString('hex');
    return `${this.reply.local}+${token}@${this.reply.domain}`;
  }

  /** The participant a reply address names, if it is one of ours, genuine and not expired. */
  participantOf(address: string, now = Date.now()): string | null {
    const [local, domain] = address.toLowerCase().split('@');
    const prefix = `${this.reply.local.toLowerCase()}+`;
    if (domain !== this.reply.domain.toLowerCase() || !local?.startsWith(prefix)) {
      return null;
    }
    const token = local.slice(prefix.length);
    if (!TOKEN.test(token)) {
      return null;
    }
    const bytes = Buffer.from(token, 'hex');
    const body = bytes.subarray(0, 16 + EXP_BYTES);
    const tag = bytes.subarray(16 + EXP_BYTES);
    if (!timingSafeEqual(tag, this.mac(body)) || body.readUInt32BE(16) * 1000 <= now) {
      return null;
    }
    const hex = body.subarray(0, 16).toString('hex');
    const at = [0, 8, 12, 16, 20, ID_HEX];
    return at
      .slice(1)
      .map((end, i) => hex.slice(at[i], end))
      .join('-');
  }

  private mac(body: Buffer): Buffer {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, MAC_BYTES);
  }
}
