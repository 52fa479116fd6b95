import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { OpError } from '../core/errors.js';
import { scrub, type BoundValues } from '../core/redact.js';
import { BindAudit } from './audit.js';
import { describeSecret, SecretsCatalogue } from './catalogue.js';
import { FilesystemSource } from './filesystem-source.js';
import { inClusterOptions, KubernetesSource } from './kubernetes-source.js';
import { originAllowed, originOf } from './origins.js';
import type { SecretSource } from './source.js';

/** Who is binding: the session (its bound values are where a read value goes) and the call. */
export interface BindContext {
  session: { name: string; bound: BoundValues };
  op: string;
  flow?: string;
  step?: string;
}

export interface SecretRef {
  name: string;
  key: string;
}

/**
 * A secret that was bound but not typed (focus taken, the frame changed origin): the op's error,
 * with the audit's own sentence, which never quotes the page.
 */
export class TypingRefused extends OpError {
  constructor(
    kind: ConstructorParameters<typeof OpError>[0],
    message: string,
    readonly auditReason: string,
  ) {
    super(kind, message);
  }
}

/** Why each op cannot carry a secret; only `fill` binds one (seed §F1.28). */
const REFUSALS: Record<string, string> = {
  evaluate: 'a script is arbitrary code and could send the value anywhere',
  goto: "a URL lands in the browser's history, in Referer headers and in the session record",
  open: "a URL lands in the browser's history, in Referer headers and in the session record",
  tab_new: "a URL lands in the browser's history, in Referer headers and in the session record",
  press: 'press sends keys, not a value',
  expect: 'a condition reports what it observed, which would echo the value',
  assert: 'a condition reports what it observed, which would echo the value',
  wait_for: 'a condition reports what it observed, which would echo the value',
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function carriesSecret(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(carriesSecret);
  if (!isRecord(value)) return false;
  return 'secret' in value || Object.values(value).some(carriesSecret);
}

/** One trailing newline is dropped: `echo pw > password` and editors add one. */
const withoutFinalNewline = (v: string) => v.replace(/\r?\n$/, '');

/** The secrets room: catalogue, binding with its origin check, refusals and the audit. */
export class Secrets {
  constructor(
    readonly catalogue: SecretsCatalogue,
    readonly audit: BindAudit,
  ) {}

  /** The catalogue as a caller sees it (`secrets` op, GET /secrets, MCP resource). */
  async list(session: string): Promise<Record<string, unknown>> {
    const view = await this.catalogue.view(session);
    const out: Record<string, unknown> = { secrets: view.entries.map(describeSecret) };
    if (view.problems.length > 0) out.problems = view.problems;
    if (this.catalogue.sources.length === 0)
      out.note = 'No secret sources are configured (SECRETS_DIRS, SECRETS_KUBERNETES).';
    return out;
  }

  /**
   * Resolves a binding for typing on `pageUrl`: the secret and key must be listed to this
   * session and the page's origin allowed. The value, read fresh and added to the session's bound
   * values, goes to `deliver` (which types it) and is then dropped; without `deliver` it is
   * returned. Every outcome is audited without it: a `deliver` that throws is audited as refused.
   */
  async bind<T = string>(
    ctx: BindContext,
    ref: SecretRef,
    pageUrl: string,
    deliver: (value: string) => Promise<T> | T = (value) => value as T,
  ): Promise<T> {
    const url = scrub(pageUrl, ctx.session.bound);
    const base = { event: 'secret_bind' as const, session: ctx.session.name, op: ctx.op, url };
    const where = {
      ...(ctx.flow ? { flow: ctx.flow } : {}),
      ...(ctx.step ? { step: ctx.step } : {}),
    };
    // The audit's reason is written here, not copied from the error: the caller's strings (a
    // password pasted as a name) never reach the log.
    const refuse = (secret: string, key: string, reason: string, error: Error): never => {
      this.audit.record({ ...base, ...where, secret, key, allowed: false, reason });
      throw error;
    };
    const found = await this.catalogue.find(ctx.session.name, ref.name);
    if (!found) {
      const names = (await this.catalogue.view(ctx.session.name)).entries.map((e) => e.entry.name);
      return refuse(
        '(unknown)',
        '(unknown)',
        'no such secret is listed to this session',
        new OpError(
          'invalid_argument',
          `fill: no secret named ${JSON.stringify(ref.name)} is available to this session. Secrets: ${names.join(', ') || '(none)'}; the secrets op lists them with their keys.`,
        ),
      );
    }
    const { entry, source } = found;
    if (!entry.keys.includes(ref.key)) {
      return refuse(
        entry.name,
        '(unknown)',
        'the secret has no such key',
        new OpError(
          'invalid_argument',
          `fill: secret ${entry.name} has no key ${JSON.stringify(ref.key)}; its keys are ${entry.keys.join(', ') || '(none)'}.`,
        ),
      );
    }
    if (!originAllowed(pageUrl, entry)) {
      const allowed =
        entry.allowedOrigins.join(', ') || 'nowhere (its declaration lists no valid origin)';
      return refuse(
        entry.name,
        ref.key,
        `the page's origin ${originOf(url)} is not allowed`,
        new OpError(
          'permission_denied',
          `fill: secret ${entry.name} may only be typed on ${allowed}; this field is on ${originOf(url)}. Nothing was typed. Check where the page led you before binding again — never type a credential on a site its owner did not allow.`,
          { details: { allowed_origins: entry.allowedOrigins } },
        ),
      );
    }
    let value: string;
    try {
      value = withoutFinalNewline(await source.read(entry, ref.key));
    } catch (e) {
      return refuse(
        entry.name,
        ref.key,
        'the value could not be read from its source',
        new OpError(
          'invalid_argument',
          `fill: secret ${entry.name}/${ref.key} could not be read from ${source.label} (${(e as Error).message}). Nothing was typed; list the secrets again.`,
        ),
      );
    }
    ctx.session.bound.add(value, `${entry.name}/${ref.key}`);
    let delivered: T;
    try {
      delivered = await deliver(value);
    } catch (e) {
      const reason =
        e instanceof TypingRefused ? e.auditReason : 'typing failed before the value was set';
      return refuse(entry.name, ref.key, reason, e as Error);
    }
    this.audit.record({ ...base, ...where, secret: entry.name, key: ref.key, allowed: true });
    return delivered;
  }

  /**
   * Refuses a `secret` anywhere but fill's own argument: in evaluate, goto, press, a condition
   * (`expect`, assert, wait_for)… The refusal names why and is audited at warn.
   */
  refuseMisplaced(ctx: BindContext, args: unknown, op: { secretRefsAsData: boolean }): void {
    if (!isRecord(args) || op.secretRefsAsData) return;
    let place: string | undefined;
    if (ctx.op !== 'fill' && 'secret' in args) place = ctx.op;
    else if (carriesSecret(args.expect)) place = 'expect';
    else if ((ctx.op === 'assert' || ctx.op === 'wait_for') && carriesSecret(args)) place = ctx.op;
    if (!place) return;
    const why = REFUSALS[place] ?? `${ctx.op} has no use for one`;
    const message = `${place === 'expect' ? 'expect' : ctx.op} cannot carry a secret: ${why}. Only fill binds one — fill {target, secret: {name, key}} types it into a field without it passing through you.`;
    this.audit.record({
      event: 'secret_bind',
      session: ctx.session.name,
      op: ctx.op,
      ...(ctx.flow ? { flow: ctx.flow } : {}),
      ...(ctx.step ? { step: ctx.step } : {}),
      secret: '(unknown)',
      key: '(unknown)',
      allowed: false,
      reason: message,
    });
    throw new OpError('permission_denied', message);
  }
}

/** The sources configured: SECRETS_DIRS in order, then Kubernetes when SECRETS_KUBERNETES is on. */
export function createSecrets(config: Config, logger: Logger): Secrets {
  const sources: SecretSource[] = config.secretsDirs.map((d) => new FilesystemSource(d));
  if (config.secretsKubernetes)
    sources.push(new KubernetesSource(inClusterOptions(process.env, config.secretsNamespace)));
  return new Secrets(
    new SecretsCatalogue(sources, config.secretsCacheTtl * 1000),
    new BindAudit(logger),
  );
}
