import { json, type RouteDoc } from './route-docs.js';

// The documentation of app.ts's own service routes, kept here so app.ts stays a list of routes.

export const HEALTH_DOC: RouteDoc = {
  id: 'health',
  summary: 'Whether the server is up',
  description: 'Open to every caller and every Host: orchestrators probe it by address.',
  tag: 'service',
  access: 'open',
  answers: {
    200: {
      description: 'The server is up',
      content: json(
        {
          type: 'object',
          properties: { ok: { const: true }, version: { type: 'string' } },
          required: ['ok', 'version'],
        },
        { ok: true, version: '0.1.0' },
      ),
    },
  },
};

const readiness = {
  type: 'object',
  properties: {
    ready: { type: 'boolean' },
    browser: {
      type: ['string', 'null'],
      description: 'The local browser’s path, or the browsers the Grid offers',
    },
    grid: { type: 'object', description: 'The Grid’s URL and status, when GRID_URL is set' },
    store: { type: 'object', description: 'Whether the session store answers' },
    sessions: { type: 'integer', description: 'Live browsers' },
  },
  required: ['ready', 'browser', 'store', 'sessions'],
};

export const READY_DOC: RouteDoc = {
  id: 'ready',
  summary: 'Whether a browser can be opened and the session store answers',
  tag: 'service',
  access: 'caller',
  answers: {
    200: { description: 'Ready', content: json(readiness) },
    503: {
      description: 'Not ready: no browser to open, or the store does not answer',
      content: json(readiness),
    },
  },
};

export const OPS_DOC: RouteDoc = {
  id: 'ops_list',
  summary: 'Every op with its summary, flags and argument schema',
  tag: 'service',
  access: 'caller',
  answers: {
    200: {
      description: 'The op listing (the same as the CLI’s ops --json)',
      content: json({
        type: 'object',
        properties: { ops: { type: 'array', items: { type: 'object' } } },
      }),
    },
  },
};
