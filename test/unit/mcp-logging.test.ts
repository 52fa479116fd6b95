import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { BoundValues } from '../../src/core/redact.js';
import { ServerLogTap, tappedLogger } from '../../src/logs/server-log.js';
import { forwardServerLog, LOG_LINES_PER_SECOND } from '../../src/surfaces/mcp/logging.js';

/** A real SDK client and server in memory, the server forwarding `tap` for session "s". */
async function connected(tap: ServerLogTap, bound = new BoundValues()) {
  const server = new Server({ name: 't', version: '1' }, { capabilities: { logging: {} } });
  forwardServerLog(server, tap, { session: 's', boundOf: (n) => (n === 's' ? bound : undefined) });
  const client = new Client({ name: 'c', version: '1' });
  const lines: LoggingMessageNotification['params'][] = [];
  const heard: (() => void)[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    lines.push(n.params);
    heard.shift()?.();
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  const next = () => new Promise<void>((r) => heard.push(r));
  return { client, server, lines, next };
}

test('a value typed from a secret never reaches the host in a log line', async () => {
  const tap = new ServerLogTap();
  const logger = tappedLogger(pino({ level: 'silent' }), tap);
  const bound = new BoundValues();
  bound.add('hunter2-very-secret', 'shop/password');
  const { client, lines, next } = await connected(tap, bound);
  await client.setLoggingLevel('info');
  const arrived = next();
  logger.info({ session: 's', url: 'https://a:b@x.example/?p=hunter2-very-secret' }, 'typed');
  await arrived;
  assert.doesNotMatch(JSON.stringify(lines), /hunter2|a:b@/);
  assert.match(JSON.stringify(lines), /\[secret:shop\/password\]/);
  await client.close();
});

test('a chatty log reaches a host at most LOG_LINES_PER_SECOND a second, the rest counted', async () => {
  const tap = new ServerLogTap();
  const logger = tappedLogger(pino({ level: 'silent' }), tap);
  const { client, lines } = await connected(tap);
  await client.setLoggingLevel('debug');
  for (let i = 0; i < LOG_LINES_PER_SECOND + 30; i++) logger.debug({ session: 's', i }, 'busy');
  while (!lines.some((l) => /left out/.test(JSON.stringify(l.data))))
    await new Promise((r) => setTimeout(r, 20));
  const busy = lines.filter((l) => /busy/.test(JSON.stringify(l.data)));
  assert.ok(busy.length <= LOG_LINES_PER_SECOND, `${busy.length} lines`);
  const said = lines.at(-1)!;
  assert.equal(said.level, 'warning');
  assert.match(
    JSON.stringify(said.data),
    new RegExp(`${50 - busy.length} server log lines left out`),
  );
  await client.close();
});
