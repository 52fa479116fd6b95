import { jsonDepth, MAX_NESTING_DEPTH, tooDeep } from '../../core/depth.js';
import { OpError } from '../../core/errors.js';
import type { Config } from '../../config.js';

const JSON_TYPE = /^application\/json\b/i;
const YAML_TYPE = /^(application|text)\/(x-)?yaml\b/i;
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** A Host header value split into a lower-case name (IPv6 in brackets) and an optional port. */
function splitHost(value: string): { name: string; port?: string } {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(value.trim().toLowerCase());
  return m ? { name: m[1], port: m[2] || undefined } : { name: value.toLowerCase() };
}

const bracketed = (host: string) =>
  host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;

const isLoopbackName = (name: string) =>
  name === 'localhost' || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);

/**
 * Whether a request's Host names this server (DESIGN §13, DNS rebinding): loopback names, the
 * bound HOST, PUBLIC_URL's host and ALLOWED_HOSTS. Names are compared without the port unless an
 * ALLOWED_HOSTS entry gives one: a rebinding page chooses the port but can only pair it with its
 * own name, while tunnels and proxies change the port legitimately. On a wildcard HOST the server
 * cannot know the names it is reached by (service names, pod IPs), so the check waits for
 * ALLOWED_HOSTS; such a bind always has SWIFTBROWSE_TOKEN, which a rebound page cannot send.
 * Returns undefined when the check is off.
 */
export function hostRule(config: Config): ((host: string | undefined) => boolean) | undefined {
  const listed = config.allowedHosts.map(splitHost);
  if (WILDCARD_HOSTS.has(config.host) && listed.length === 0) return undefined;
  const names = new Set<string>();
  if (!WILDCARD_HOSTS.has(config.host)) names.add(bracketed(config.host.toLowerCase()));
  if (config.publicUrl) names.add(new URL(config.publicUrl).hostname.toLowerCase());
  return (host) => {
    if (!host) return false;
    const { name, port } = splitHost(host);
    if (isLoopbackName(name) || names.has(name)) return true;
    return listed.some((l) => l.name === name && (l.port === undefined || l.port === port));
  };
}

/**
 * Whether a browser Origin is one of this server's own pages (the operator console, the viewer)
 * under any name the server answers to: a loopback name or the bound HOST on the port the request
 * came in on, PUBLIC_URL's origin, an ALLOWED_HOSTS name (on its port when the entry gives one),
 * or the request's own Host (which the Host check vouched for). Pages the driven browser visits
 * are on other ports or names, and stay refused.
 */
export function ownOriginRule(
  config: Config,
): (origin: string, host: string | undefined, localPort: number | undefined) => boolean {
  const listed = config.allowedHosts.map(splitHost);
  const bound = WILDCARD_HOSTS.has(config.host) ? undefined : bracketed(config.host.toLowerCase());
  const publicOrigin = config.publicUrl ? new URL(config.publicUrl).origin : undefined;
  return (origin, host, localPort) => {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // "null", an opaque origin, names no server
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (host !== undefined && url.host === host.toLowerCase()) return true;
    if (url.origin === publicOrigin) return true;
    const name = url.hostname;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    if ((isLoopbackName(name) || name === bound) && port === String(localPort)) return true;
    return listed.some((l) => l.name === name && (l.port === undefined || l.port === port));
  };
}

export function hostRefusal(host: string | undefined): OpError {
  return new OpError(
    'permission_denied',
    `The Host header ${host ? JSON.stringify(host) : '(none)'} is not a name of this server, so the request is refused (DNS rebinding protection). Call it as 127.0.0.1 or localhost; an operator can allow another name with ALLOWED_HOSTS (host or host:port, comma-separated) or PUBLIC_URL.`,
  );
}

/** Routes whose PUT takes a flow document, which may be YAML text (DESIGN §13). */
const FLOW_DOCUMENT = /^\/(flows\/[^/]+|admin\/flows\/[^/]+\/[^/]+)$/;

/**
 * The body rule of every route (DESIGN §13): a request that may change state (POST, PUT, PATCH)
 * says it is JSON (or YAML where a flow document is sent), so no HTML form can post here, and a
 * JSON body nested past MAX_NESTING_DEPTH is refused before it is parsed. Returns the refusal.
 */
export async function checkBody(
  method: string,
  path: string,
  type: string | undefined,
  text: () => Promise<string>,
): Promise<OpError | undefined> {
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') return undefined;
  const yamlAllowed = method === 'PUT' && FLOW_DOCUMENT.test(path);
  const got = type ? JSON.stringify(type) : 'none';
  if (yamlAllowed && type && YAML_TYPE.test(type)) return undefined;
  if (!type || !JSON_TYPE.test(type)) {
    return new OpError(
      'invalid_argument',
      yamlAllowed
        ? `Send the flow as JSON (Content-Type: application/json) or as YAML text (Content-Type: application/yaml); got ${got}.`
        : `Send the body as JSON with Content-Type: application/json, even when it is empty (got ${got}). Plain-text and form bodies are refused so that no web page can post here.`,
    );
  }
  if (jsonDepth(await text()) > MAX_NESTING_DEPTH) {
    return tooDeep('The JSON body nests arrays and objects');
  }
  return undefined;
}

/**
 * A JSON body the body guard let through, parsed; an empty one is `{}`. Bad syntax is
 * invalid_argument quoting the parser, then `hint`: what the route takes.
 */
export function jsonBody(text: string, hint?: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const said = `The body is not valid JSON (${(e as Error).message}).`;
    throw new OpError('invalid_argument', hint ? `${said} ${hint}` : said);
  }
}
