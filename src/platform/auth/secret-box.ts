import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The form of sealed text, so another scheme can follow this one. */
const VERSION = 'v1';
/** The same scheme's first bytes when sealed as bytes: no JSON text starts so. */
const BYTES_VERSION = Buffer.from([0, 0x76, 0x31]);

/** Where the key of a {@link SecretBox} comes from. */
export interface SecretBoxKeySource {
  /** A key of its own: 32 bytes, base64. */
  key: string | null;
  /** Otherwise derived from the service's signing material: the PEM key if any, else the secret. */
  privateKeyPem: string | null;
  secret: string;
}

/** A sealed secret that cannot be opened: another key sealed it, or it was changed. */
export class SecretUnreadableError extends Error {
  constructor() {
    super('the secret cannot be decrypted: it was sealed with another key, or altered');
  }
}

/**
 * Keeps secrets the service must read back (webhook signing secrets, the answers idempotency
 * keys keep: tokens and secrets among them) encrypted at rest with
 * AES-256-GCM. Each is bound to what it belongs to (`context`, e.g. its row's id), so a sealed
 * value copied to another row does not open there.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /**
   * The box of a configured key, or of one derived (HKDF-SHA256) from the key material the
   * service already has, so every instance sharing it opens what another sealed.
   */
  static of(source: SecretBoxKeySource): SecretBox {
    if (source.key !== null) {
      return new SecretBox(Buffer.from(source.key, 'base64'));
    }
    const material = source.privateKeyPem ?? source.secret;
    return new SecretBox(
      Buffer.from(hkdfSync('sha256', material, 'meeting-api', 'secret-box-encryption', 32)),
    );
  }

  /** `v1.<base64url of iv, tag and ciphertext>`. */
  seal(plain: string, context: string): string {
    return `${VERSION}.${this.encrypt(Buffer.from(plain, 'utf8'), context).toString('base64url')}`;
  }

  /** The plain text of a sealed value; SecretUnreadableError if it does not open. */
  open(sealed: string, context: string): string {
    const [version, data] = sealed.split('.');
    if (version !== VERSION) {
      throw new SecretUnreadableError();
    }
    return this.decrypt(Buffer.from(data ?? '', 'base64url'), context).toString('utf8');
  }

  /** Bytes sealed as bytes (for a bytea column): the version's bytes, iv, tag, ciphertext. */
  sealBytes(plain: Buffer, context: string): Buffer {
    return Buffer.concat([BYTES_VERSION, this.encrypt(plain, context)]);
  }

  /** The plain bytes of sealed bytes; SecretUnreadableError if they do not open. */
  openBytes(sealed: Buffer, context: string): Buffer {
    if (!this.isSealedBytes(sealed)) {
      throw new SecretUnreadableError();
    }
    return this.decrypt(sealed.subarray(BYTES_VERSION.length), context);
  }

  /** Whether bytes are in the sealed form (those stored before sealing began are not). */
  isSealedBytes(value: Buffer): boolean {
    return value.subarray(0, BYTES_VERSION.length).equals(BYTES_VERSION);
  }

  private encrypt(plain: Buffer, context: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context));
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
  }

  private decrypt(bytes: Buffer, context: string): Buffer {
    if (bytes.length < IV_BYTES + TAG_BYTES) {
      throw new SecretUnreadableError();
    }
    try {
      const decipher = createDecipheriv(ALGORITHM, this.key, bytes.subarray(0, IV_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new SecretUnreadableError();
    }
  }
}
