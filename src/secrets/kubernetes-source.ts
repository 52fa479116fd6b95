import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parseAllowedOrigins } from './origins.js';
import type { SecretEntry, SecretSource, SourceListing } from './source.js';

export const EXPOSE_LABEL = 'swiftbrowse.io/expose';
export const SESSION_LABEL = 'swiftbrowse.io/session';
export const DESCRIPTION_ANNOTATION = 'swiftbrowse.io/description';
export const ALLOWED_URLS_ANNOTATION = 'swiftbrowse.io/allowed-urls';

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface KubernetesOptions {
  /** API server base URL, e.g. `https://10.0.0.1:443`. */
  apiUrl: string;
  namespace: string;
  /** Service-account token file; re-read on every call (projected tokens rotate). */
  tokenPath: string;
  /** CA bundle for an https API server. */
  caPath?: string;
}

/** In-cluster settings: the API address from the environment, the rest from the service account. */
export function inClusterOptions(
  env: NodeJS.ProcessEnv = process.env,
  namespace?: string,
): KubernetesOptions {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  if (!host)
    throw new Error(
      'SECRETS_KUBERNETES is on but KUBERNETES_SERVICE_HOST is not set: this is not running in a pod',
    );
  const ns = namespace ?? readFileSync(`${SERVICE_ACCOUNT}/namespace`, 'utf8').trim();
  return {
    apiUrl: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    namespace: ns,
    tokenPath: `${SERVICE_ACCOUNT}/token`,
    caPath: `${SERVICE_ACCOUNT}/ca.crt`,
  };
}

interface ObjectMeta {
  name?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface SecretObject {
  kind?: string;
  metadata?: ObjectMeta;
  data?: Record<string, string>;
}
interface SecretList {
  kind?: string;
  items?: SecretObject[];
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Secrets labelled `swiftbrowse.io/expose: "true"` in one namespace, through the API with the
 * pod's service account. It only ever GETs secrets: one label-selected list projected at once
 * to names and keys (the values in the answer are dropped there), and one get per bind.
 */
export class KubernetesSource implements SecretSource {
  readonly label: string;

  constructor(private readonly options: KubernetesOptions) {
    this.label = `kubernetes:${options.namespace}`;
  }

  private base(): string {
    return `/api/v1/namespaces/${encodeURIComponent(this.options.namespace)}/secrets`;
  }

  private async get<T>(path: string): Promise<T> {
    const token = (await readFile(this.options.tokenPath, 'utf8')).trim();
    const ca = this.options.caPath ? await readFile(this.options.caPath) : undefined;
    const url = new URL(path, this.options.apiUrl);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<T>((resolve, reject) => {
      const req = send(
        url,
        {
          method: 'GET',
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
          ...(ca ? { ca } : {}),
          timeout: 10_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) {
              reject(new ApiError(status, `the Kubernetes API answered ${status}`));
              return;
            }
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as T);
            } catch {
              reject(new Error('the Kubernetes API answered with something that is not JSON'));
            }
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('the Kubernetes API did not answer in 10 s')));
      req.on('error', reject);
      req.end();
    });
  }

  private explain(e: unknown): string {
    const why = e instanceof Error ? e.message : String(e);
    if (e instanceof ApiError && (e.status === 401 || e.status === 403))
      return `${this.label}: ${why}; the service account needs get and list on secrets in ${this.options.namespace}`;
    return `${this.label}: ${why}`;
  }

  async list(): Promise<SourceListing> {
    const selector = encodeURIComponent(`${EXPOSE_LABEL}=true`);
    let list: SecretList;
    try {
      list = await this.get<SecretList>(`${this.base()}?labelSelector=${selector}`);
    } catch (e) {
      return { entries: [], problems: [this.explain(e)] };
    }
    if (list.kind !== 'SecretList')
      return { entries: [], problems: [`${this.label}: expected a SecretList`] };
    // Projected here: nothing below this line holds a value.
    const entries = (list.items ?? []).flatMap((item) => {
      const entry = project(item);
      return entry ? [entry] : [];
    });
    return { entries: entries.sort((a, b) => a.name.localeCompare(b.name)), problems: [] };
  }

  async read(entry: SecretEntry, key: string): Promise<string> {
    const secret = await this.get<SecretObject>(`${this.base()}/${encodeURIComponent(entry.name)}`);
    const labels = secret.metadata?.labels ?? {};
    // The catalogue may be a few seconds old: a secret no longer exposed, or moved to another
    // session, is not read.
    if (
      secret.kind !== 'Secret' ||
      labels[EXPOSE_LABEL] !== 'true' ||
      labels[SESSION_LABEL] !== entry.session
    )
      throw new Error(`secret ${entry.name} is no longer exposed to this session`);
    const encoded = secret.data?.[key];
    if (encoded === undefined) throw new Error(`secret ${entry.name} has no key ${key} any more`);
    return Buffer.from(encoded, 'base64').toString('utf8');
  }
}

function project(item: SecretObject): SecretEntry | undefined {
  const meta = item.metadata ?? {};
  if (!meta.name || meta.labels?.[EXPOSE_LABEL] !== 'true') return undefined;
  const annotations = meta.annotations ?? {};
  const declared = annotations[ALLOWED_URLS_ANNOTATION];
  const parsed = parseAllowedOrigins(declared === undefined ? [] : declared.split(/[\s,]+/));
  const description = annotations[DESCRIPTION_ANNOTATION]?.trim();
  const session = meta.labels?.[SESSION_LABEL];
  return {
    name: meta.name,
    keys: Object.keys(item.data ?? {})
      .filter((k) => !k.startsWith('_'))
      .sort(),
    ...(description ? { description: description.slice(0, 500) } : {}),
    allowedOrigins: parsed.origins,
    restricted: declared !== undefined,
    rejected: parsed.rejected,
    ...(session ? { session } : {}),
  };
}
