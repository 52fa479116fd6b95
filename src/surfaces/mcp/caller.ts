import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { createHash } from 'node:crypto';
import { bearerToken } from '../http/bearer.js';

/** Who opens an MCP session over HTTP, for its share of the sessions (MCP_SESSIONS_PER_CALLER). */
export interface McpCaller {
  /** Equal for two requests from one caller; it holds a hash of the token, never the token. */
  key: string;
  /** How a refusal names the caller to itself, at the start of a sentence. */
  name: string;
}

/** The peer's address; an IPv4 client of a dual-stack socket reads as plain IPv4. */
function clientAddress(c: Context): string {
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    // Not served by node (app.fetch called directly): no socket to read.
  }
  return address?.replace(/^::ffff:(?=\d+\.)/, '') ?? 'unknown';
}

/**
 * The caller is its client address and, on a server with SWIFTBROWSE_TOKEN, the token it sent.
 * The address stays in the key even then: one token shared by a team would otherwise put every
 * holder in one share. Forwarded-for headers are not read (any client can write them), so behind
 * a proxy every caller has the proxy's address.
 */
export function mcpCallerOf(c: Context, token: string | undefined): McpCaller {
  const address = clientAddress(c);
  const sent = token ? bearerToken(c.req.header('authorization')) : undefined;
  if (sent === undefined) return { key: address, name: `The client address ${address}` };
  const hash = createHash('sha256').update(sent).digest('hex').slice(0, 16);
  return { key: `${hash}@${address}`, name: `Your token from ${address}` };
}
