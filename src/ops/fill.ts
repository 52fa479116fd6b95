import { z } from 'zod';
import { flag } from '../core/schema.js';
import { OpError } from '../core/errors.js';
import { describeTarget, targetSchema } from '../core/target.js';
import type { BrowserTab } from '../drivers/driver.js';
import { callPage, callPageOnOrigin } from '../drivers/page-script.js';
import type { ComboboxState, ControlInfo } from '../page/protocol.js';
import { auditStep } from '../flows/runner.js';
import { TypingRefused } from '../secrets/secrets.js';
import { defineOp, type OpContext } from './define.js';
import {
  actionableElement,
  frameOrigin,
  probeOrRefuse,
  summarise,
  type ActionableElement,
  type FoundElement,
} from './element.js';
import { clickAt, sleep } from './pointer.js';
import { baseline, settle, type Baseline } from './settle.js';

/** Input types a secret may go into when the input is a combobox. */
const TEXT_TYPES = ['text', 'email', 'search', 'tel', 'url', 'password'];

const valueSchema = z
  .union([z.string(), z.number(), flag(), z.array(z.string())])
  .describe(
    'Text to type; an option (visible text or value, a list for multi-select); true/false for a checkbox or radio; YYYY-MM-DD for a date',
  );

function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'on' || value === 'checked') return true;
  if (value === 'false' || value === 'off' || value === 'unchecked') return false;
  return undefined;
}

/** One left click at the control's centre, as a person toggling or focusing it would. */
function plainClick(ctx: OpContext, tab: BrowserTab, el: ActionableElement): Promise<void> {
  return clickAt(tab, ctx, el, { button: 'left', count: 1, modifiers: [], glide: false });
}

async function setChecked(
  ctx: OpContext,
  tab: BrowserTab,
  el: ActionableElement,
  info: ControlInfo,
  value: unknown,
) {
  const want = asBoolean(value);
  const what = describeTarget(el.target);
  if (want === undefined)
    throw new OpError(
      'invalid_argument',
      `fill: ${what} is a ${info.kind}; give value true or false.`,
    );
  if (info.kind === 'radio' && !want) {
    throw new OpError(
      'invalid_argument',
      `fill: a radio button cannot be set to false; choose another radio of the group instead (${what}).`,
    );
  }
  if (info.checked === want) {
    ctx.notes.push('unchanged: already in that state');
    return { checked: want };
  }
  ctx.delivered();
  await plainClick(ctx, tab, el);
  const now = await callPage(tab, el.frame, 'controlInfo', el.handle);
  if (now.checked !== want) {
    throw new OpError(
      'verification_failed',
      `fill: clicked ${what} but it is still ${now.checked ? 'checked' : 'unchecked'}; the page may block the change.`,
    );
  }
  return { checked: want };
}

async function choose(
  ctx: OpContext,
  tab: BrowserTab,
  el: ActionableElement,
  info: ControlInfo,
  value: unknown,
) {
  const wanted = Array.isArray(value) ? value.map(String) : [String(value)];
  if (wanted.length > 1 && !info.multiple)
    throw new OpError(
      'invalid_argument',
      `fill: ${describeTarget(el.target)} takes one option, not a list.`,
    );
  const known = info.options ?? [];
  const missing = wanted.filter((w) => !known.some((o) => o.value === w || o.text === w.trim()));
  if (missing.length > 0) {
    const list = known.map((o) =>
      o.text === o.value
        ? JSON.stringify(o.text)
        : `${JSON.stringify(o.text)} (value ${JSON.stringify(o.value)})`,
    );
    throw new OpError(
      'invalid_argument',
      `fill: ${describeTarget(el.target)} has no option ${missing.map((m) => JSON.stringify(m)).join(', ')}. Options: ${list.join(', ')}.`,
      {
        details: { options: known },
      },
    );
  }
  ctx.delivered();
  await callPage(tab, el.frame, 'selectOptions', el.handle, wanted);
  return { value: await callPage(tab, el.frame, 'readValue', el.handle) };
}

/**
 * Text up to this long is typed whole; past it the head is inserted at once and only this many
 * last characters are typed: a key press costs 6-30 ms under load (the commit that added it has
 * the figures), and a long comment typed whole would outlast the op's timeout.
 */
const TYPED_CHARS = 64;

/**
 * Types as a person does, a key press per character (keydown, keypress, input, keyup), so a page
 * that filters or autocompletes on keys hears it; a long text's last characters still are.
 */
async function typeInto(tab: BrowserTab, text: string): Promise<void> {
  if (text === '') {
    // The content is selected: Delete clears it, with the key events an empty field expects.
    await tab.keyDown('Delete');
    await tab.keyUp('Delete');
    return;
  }
  const chars = [...text];
  if (chars.length > TYPED_CHARS) await tab.insertText(chars.slice(0, -TYPED_CHARS).join(''));
  await tab.typeText(chars.slice(-TYPED_CHARS).join(''));
}

async function typeText(
  ctx: OpContext,
  tab: BrowserTab,
  el: ActionableElement,
  info: ControlInfo,
  value: unknown,
) {
  const text = String(value);
  if (info.kind === 'text' && info.inputType !== 'textarea' && /[\r\n]/.test(text))
    // Typed, a line break is Enter: it would submit the form instead of going into the field.
    throw new OpError(
      'invalid_argument',
      `fill: ${describeTarget(el.target)} is a single-line input and cannot hold a line break. Fill the text without it, then press Enter if you mean to submit.`,
    );
  const focused = el.focused ?? (await callPage(tab, el.frame, 'focusForTyping', el.handle));
  if (!focused) await plainClick(ctx, tab, el);
  ctx.delivered('queued');
  await typeInto(tab, text);
  const held = await callPage(tab, el.frame, 'readValue', el.handle);
  const expected = info.kind === 'contenteditable' ? text.trim() : text;
  const actual = info.kind === 'contenteditable' ? held.trim() : held;
  if (actual !== expected) {
    const focus = await callPage(tab, el.frame, 'focusInfo', el.handle);
    const thief = focus.inside
      ? ''
      : ` Focus is on \`${focus.desc}\` — a prompt or overlay may have taken it.`;
    const shown = info.password ? 'something else' : JSON.stringify(held.slice(0, 80));
    throw new OpError(
      'verification_failed',
      `fill: typed into ${describeTarget(el.target)}, but it holds ${shown}, not the text typed.${thief} Read the page before retrying.`,
    );
  }
  return { value: info.password ? null : held };
}

/** The option a value names: its accessible name exactly, else ignoring case. */
function optionNamed(options: ComboboxState['options'], value: string) {
  const wanted = value.trim();
  return (
    options.find((o) => o.name === wanted) ??
    options.find((o) => o.name.toLowerCase() === wanted.toLowerCase())
  );
}

/**
 * The combobox's options once its list has had time to show them: what the typing or the click
 * started settles (a suggestion request, a filter); the list of a select-only combobox, which
 * must show its options, is waited for like any target, up to the op's deadline.
 */
async function shownOptions(
  ctx: OpContext,
  tab: BrowserTab,
  el: ActionableElement,
  before: Baseline,
  needsList: boolean,
): Promise<ComboboxState> {
  await settle(tab, before, ctx.config.settleTimeoutMs);
  for (;;) {
    const state = await callPage(tab, el.frame, 'comboboxState', el.handle);
    if (state.options.length || !needsList || Date.now() >= ctx.deadline) return state;
    await sleep(50);
  }
}

/**
 * A custom combobox (role=combobox, its options role=option in the listbox it controls): the value
 * is typed with key events, then the option of that name is clicked. When none matches, an
 * editable combobox keeps the typed text (ARIA lets a text-entry combobox take free text, whatever
 * its aria-autocomplete) and says so; a select-only one has no text of its own, so it is not_found
 * with the options it showed.
 */
async function fillCombobox(
  ctx: OpContext,
  tab: BrowserTab,
  el: ActionableElement,
  value: unknown,
) {
  const text = String(value);
  const what = describeTarget(el.target);
  const first = await callPage(tab, el.frame, 'comboboxState', el.handle);
  const before = await baseline(tab);
  ctx.delivered();
  if (first.entry !== null) {
    const focused = await callPage(tab, el.frame, 'focusForTyping', first.entry);
    if (!focused) await plainClick(ctx, tab, el);
    await typeInto(tab, text);
  } else if (!first.options.length) await plainClick(ctx, tab, el);
  const state = await shownOptions(ctx, tab, el, before, first.entry === null);
  const seen = state.options.slice(0, 20).map((o) => JSON.stringify(o.name));
  const listed = seen.length
    ? `Options shown: ${seen.join(', ')}${state.options.length > seen.length ? `, … (${state.options.length} in all)` : ''}.`
    : 'It showed no options.';
  const pick = optionNamed(state.options, text);
  if (!pick) {
    if (state.entry === null)
      throw new OpError(
        'not_found',
        `fill: the combobox ${what} on ${tab.url()} has no option named ${JSON.stringify(text)}; it takes only its options. ${listed} Fill one of them.`,
        { final: true, details: { options: state.options.map((o) => o.name) } },
      );
    ctx.notes.push(
      `no_option: no option of ${what} is named ${JSON.stringify(text)}, so it keeps the typed text (a combobox you type into takes free text, aria-autocomplete=${state.autocomplete}; the page may still discard it on blur). ${listed}`,
    );
    return { value: await callPage(tab, el.frame, 'readValue', state.entry) };
  }
  const option: FoundElement = {
    frame: el.frame,
    frameAddress: el.frameAddress,
    handle: pick.handle,
    info: {
      handle: pick.handle,
      tag: 'option',
      role: 'option',
      name: pick.name,
      visible: true,
      desc: `option "${pick.name}"`,
    },
    target: { role: 'option', name: pick.name },
    candidates: 1,
  };
  const verdict = await probeOrRefuse(
    tab,
    ctx.elements,
    option,
    { enabled: true, hitTest: true },
    'when its option was picked',
  );
  const origin = await frameOrigin(tab, el.frame);
  const point = { x: verdict.point.x + origin.x, y: verdict.point.y + origin.y };
  const box = verdict.box ?? { x: verdict.point.x, y: verdict.point.y, width: 0, height: 0 };
  await clickAt(
    tab,
    ctx,
    { ...option, point, origin, box: { ...box, x: box.x + origin.x, y: box.y + origin.y } },
    { button: 'left', count: 1, modifiers: [], glide: false },
  );
  return {
    value: await callPage(tab, el.frame, 'readValue', state.entry ?? el.handle),
    option: pick.name,
  };
}

async function setDirect(
  ctx: OpContext,
  tab: BrowserTab,
  el: ActionableElement,
  info: ControlInfo,
  value: unknown,
) {
  const text = String(value);
  ctx.delivered();
  await callPage(tab, el.frame, 'setDirectValue', el.handle, text);
  const held = await callPage(tab, el.frame, 'readValue', el.handle);
  if (held !== text) {
    const format =
      info.inputType === 'date'
        ? ' Dates are YYYY-MM-DD.'
        : info.inputType === 'time'
          ? ' Times are HH:MM.'
          : '';
    throw new OpError(
      'invalid_argument',
      `fill: the ${info.inputType} input ${describeTarget(el.target)} did not accept ${JSON.stringify(text)} (it holds ${JSON.stringify(held)}).${format}`,
    );
  }
  return { value: held };
}

const secretSchema = z
  .strictObject({
    name: z.string().min(1).describe('As the secrets op lists it'),
    key: z.string().min(1).describe('One of its keys, e.g. "password"'),
  })
  .describe(
    'A secret to type instead of a value: the server types it, only on the origins it allows; you never see it',
  );

/**
 * Types a secret's value: the field's frame origin is checked at the moment of typing, the value
 * is set on that very element in a script that re-reads the origin and refuses a moved focus (no
 * keystroke goes wherever focus happens to be), the field is masked in the text track and blanked
 * in screenshots, and it is never read back (DESIGN §10).
 */
async function typeSecret(
  ctx: OpContext,
  tab: BrowserTab,
  el: ActionableElement,
  info: ControlInfo,
  ref: { name: string; key: string },
) {
  const what = describeTarget(el.target);
  // An <input role=combobox> (a sign-in name with suggestions) is a text field for a secret.
  const textInput = info.kind === 'combobox' && TEXT_TYPES.includes(info.inputType ?? '');
  if (info.kind !== 'text' && info.kind !== 'contenteditable' && !textInput)
    throw new OpError(
      'invalid_argument',
      `fill: ${what} is not a text field; a secret is typed into an input, textarea or contenteditable element.`,
    );
  const focused = await callPage(tab, el.frame, 'focusForTyping', el.handle);
  if (!focused) await plainClick(ctx, tab, el);
  // The field's own document, read now: its origin is checked, and the typing refuses any other.
  const [here, origin] = (await tab.evaluate(el.frame, '[location.href, location.origin]')) as [
    string,
    string,
  ];
  const bind = { session: ctx.session, op: 'fill', ...auditStep(ctx.run) };
  const typed = await ctx.secrets.bind(bind, ref, here, async (value) => {
    ctx.delivered();
    const r = await callPageOnOrigin(tab, el.frame, origin, 'typeSecret', el.handle, value);
    if ('otherOrigin' in r)
      throw new TypingRefused(
        'permission_denied',
        `fill: the frame of ${what} changed from ${origin} to ${r.otherOrigin} before the secret was typed. Nothing was typed. Read the page (snapshot) before binding again.`,
        `the field's frame changed origin to ${r.otherOrigin} before typing`,
      );
    const t = r.result;
    if (t.typed) return t;
    if (t.cause === 'focus')
      throw new TypingRefused(
        'not_actionable',
        `fill: focus was taken from ${what} the moment it was focused — ${t.focus ?? 'another element'} holds it. Nothing was typed: a secret only goes into the field whose origin was checked. The page (or a frame in it) moves focus; read the page (snapshot) and do not retry blindly.`,
        'focus was taken from the field, nothing was typed',
      );
    throw new TypingRefused(
      'stale_element',
      `fill: ${what} was removed or stopped being editable before the secret was typed. Nothing was typed; take a new snapshot and retry.`,
      'the field was gone before typing, nothing was typed',
    );
  });
  if (typed.held === false)
    throw new OpError(
      'verification_failed',
      `fill: the secret was set on ${what}, but the field does not hold it now (the page may limit its length, filter characters or reset it). Read the page before retrying.`,
    );
  return { value: null, secret: { name: ref.name, key: ref.key } };
}

export const fill = defineOp({
  name: 'fill',
  summary:
    'Set a form control: type text (key by key, as a person does), choose an option (<select>, or role=combobox: typed, then its option clicked), tick a checkbox or radio, set a date; or a secret you never see',
  acts: true,
  args: z
    .strictObject({
      target: targetSchema,
      value: valueSchema.optional(),
      secret: secretSchema.optional(),
    })
    .refine((a) => (a.value === undefined) !== (a.secret === undefined), {
      message: 'give exactly one of value or secret',
    }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    const el = await actionableElement(
      tab,
      ctx.elements,
      args.target,
      { enabled: true, hitTest: false, editable: true },
      // Typed text goes in focused; a secret is typed under its own origin check.
      { control: true, typing: args.secret === undefined },
    );
    const info = el.control ?? (await callPage(tab, el.frame, 'controlInfo', el.handle));
    if (args.secret)
      return { target: summarise(el), data: await typeSecret(ctx, tab, el, info, args.secret) };
    let data: Record<string, unknown>;
    switch (info.kind) {
      case 'checkbox':
      case 'radio':
        data = await setChecked(ctx, tab, el, info, args.value);
        break;
      case 'select':
        data = await choose(ctx, tab, el, info, args.value);
        break;
      case 'direct':
        data = await setDirect(ctx, tab, el, info, args.value);
        break;
      case 'text':
      case 'contenteditable':
        data = await typeText(ctx, tab, el, info, args.value);
        break;
      case 'combobox':
        data = await fillCombobox(ctx, tab, el, args.value);
        break;
      case 'file':
        throw new OpError(
          'invalid_argument',
          `fill: ${describeTarget(args.target)} is a file input; use upload with paths.`,
        );
      default:
        throw new OpError(
          'invalid_argument',
          `fill: ${describeTarget(args.target)} is a <${el.info.tag}>, not a form control; target an input, textarea, select, role=combobox or contenteditable element.`,
        );
    }
    return { target: summarise(el), data };
  },
});
