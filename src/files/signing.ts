import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config.js';

/**
 * Signs file links: HMAC-SHA256 over the file's path and the expiry, so a link names one file
 * until one moment. The key is SIGNING_KEY, or one generated once and kept in DATA_DIR so links
 * survive a restart.
 */
export class LinkSigner {
  constructor(private readonly key: Buffer) {}

  /** SIGNING_KEY when set; else DATA_DIR/signing.key, created (mode 0600) on first use. */
  static load(dataDir: string, configured?: string): LinkSigner {
    if (configured) return new LinkSigner(Buffer.from(configured, 'utf8'));
    const path = join(dataDir, 'signing.key');
    const read = () => new LinkSigner(Buffer.from(readFileSync(path, 'utf8').trim(), 'hex'));
    // Only a missing key is made, and only a key made meanwhile is read back: any other failure
    // (EACCES, EROFS) is what the operator must hear, not the ENOENT of the read that followed.
    try {
      return read();
    } catch (e) {
      if (codeOf(e) !== 'ENOENT') throw keyError(path, 'read', e);
    }
    const key = randomBytes(32);
    try {
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(path, key.toString('hex'), { mode: 0o600, flag: 'wx' });
      return new LinkSigner(key);
    } catch (e) {
      if (codeOf(e) !== 'EEXIST') throw keyError(path, 'written', e);
    }
    // Another server on this DATA_DIR wrote it first: use theirs.
    try {
      return read();
    } catch (e) {
      throw keyError(path, 'read', e);
    }
  }

  private mac(path: string, exp: number): Buffer {
    return createHmac('sha256', this.key).update(`${path}\n${exp}`).digest();
  }

  sign(path: string, exp: number): string {
    return this.mac(path, exp).toString('base64url');
  }

  /**
   * What a link's `sig` says of `path` until `exp` (epoch seconds): `altered` when it does not sign
   * them with this key, else `expired` once that moment has passed, else `valid`. The signature is
   * checked first, so an expiry is only reported for a link this server signed.
   */
  check(path: string, exp: number, sig: string, now = Date.now()): LinkVerdict {
    if (!Number.isSafeInteger(exp)) return 'altered';
    const given = Buffer.from(sig, 'base64url');
    const wanted = this.mac(path, exp);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return 'altered';
    return exp * 1000 <= now ? 'expired' : 'valid';
  }
}

export type LinkVerdict = 'valid' | 'altered' | 'expired';

const codeOf = (e: unknown) => (e as NodeJS.ErrnoException).code;

function keyError(path: string, what: 'read' | 'written', e: unknown): ConfigError {
  return new ConfigError(
    `The link-signing key ${path} (in DATA_DIR) cannot be ${what}: ${(e as Error).message}. Make DATA_DIR writable and the key readable by this user, or set SIGNING_KEY.`,
  );
}
