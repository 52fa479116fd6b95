import { z } from 'zod';
import { defineOp } from './define.js';

export const secrets = defineOp({
  name: 'secrets',
  summary:
    'List the secrets this session may bind: names, keys, where each may be typed — never a value. fill {target, secret: {name, key}} types one',
  browser: false,
  readOnly: true,
  step: false,
  args: z.strictObject({}),
  async run(ctx) {
    return { data: await ctx.secrets.list(ctx.session.name) };
  },
});
