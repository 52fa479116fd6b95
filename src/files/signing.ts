import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
    try {
      return new LinkSigner(Buffer.from(readFileSync(path, 'utf8').trim(), 'hex'));
    } catch {
      mkdirSync(dataDir, { recursive: true });
      const key = randomBytes(32);
      try {
        writeFileSync(path, key.toString('hex'), { mode: 0o600, flag: 'wx' });
        return new LinkSigner(key);
      } catch {
        // Another server on this DATA_DIR wrote it first: use theirs.
        return new LinkSigner(Buffer.from(readFileSync(path, 'utf8').trim(), 'hex'));
      }
    }
  }

  private mac(path: string, exp: number): Buffer {
    return createHmac('sha256', this.key).update(`${path}\n${exp}`).digest();
  }

  sign(path: string, exp: number): string {
    return this.mac(path, exp).toString('base64url');
  }

  /** Whether `sig` signs `path` until `exp` (epoch seconds) and that moment has not passed. */
  verify(path: string, exp: number, sig: string, now = Date.now()): boolean {
    if (!Number.isSafeInteger(exp) || exp * 1000 <= now) return false;
    const given = Buffer.from(sig, 'base64url');
    const wanted = this.mac(path, exp);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  }
}
