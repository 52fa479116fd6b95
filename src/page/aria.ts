/**
 * ARIA roles (HTML-AAM) and accessible names (accname 1.2) as the page exposes them, for
 * role/name targets and snapshots. Runs inside the page and imports nothing.
 */

const ARIA_ROLES = new Set(
  [
    'alert alertdialog application article banner blockquote button caption cell checkbox code',
    'columnheader combobox complementary contentinfo definition deletion dialog directory document',
    'emphasis feed figure form generic grid gridcell group heading img insertion link list listbox',
    'listitem log main marquee math meter menu menubar menuitem menuitemcheckbox menuitemradio',
    'navigation none note option paragraph presentation progressbar radio radiogroup region row',
    'rowgroup rowheader scrollbar search searchbox separator slider spinbutton status strong',
    'subscript superscript switch tab table tablist tabpanel term textbox time timer toolbar',
    'tooltip tree treegrid treeitem',
  ]
    .join(' ')
    .split(' '),
);

const TAG_ROLES: Record<string, string> = {
  article: 'article',
  aside: 'complementary',
  button: 'button',
  details: 'group',
  dialog: 'dialog',
  fieldset: 'group',
  h1: 'heading',
  h2: 'heading',
  h3: 'heading',
  h4: 'heading',
  h5: 'heading',
  h6: 'heading',
  hr: 'separator',
  li: 'listitem',
  main: 'main',
  menu: 'list',
  meter: 'meter',
  nav: 'navigation',
  ol: 'list',
  option: 'option',
  output: 'status',
  progress: 'progressbar',
  summary: 'button',
  table: 'table',
  textarea: 'textbox',
  tr: 'row',
  ul: 'list',
};

/** Roles that depend on attributes or position, not on the tag alone. */
const CONTEXT_ROLES: Record<string, (el: Element) => string | null> = {
  a: (el) => (el.hasAttribute('href') ? 'link' : null),
  area: (el) => (el.hasAttribute('href') ? 'link' : null),
  input: (el) => inputRole(el as HTMLInputElement),
  select: (el) => {
    const select = el as HTMLSelectElement;
    return select.multiple || select.size > 1 ? 'listbox' : 'combobox';
  },
  img: (el) => (el.getAttribute('alt') === '' ? null : 'img'),
  td: (el) => (isInGrid(el) ? 'gridcell' : 'cell'),
  th: headerCellRole,
  header: (el) => (inSectioningContent(el) ? null : 'banner'),
  footer: (el) => (inSectioningContent(el) ? null : 'contentinfo'),
  section: (el) => (hasAuthorName(el) ? 'region' : null),
  form: (el) => (hasAuthorName(el) ? 'form' : null),
};

const INPUT_ROLES: Record<string, string> = {
  button: 'button',
  submit: 'button',
  reset: 'button',
  image: 'button',
  text: 'textbox',
  email: 'textbox',
  tel: 'textbox',
  url: 'textbox',
  search: 'searchbox',
  number: 'spinbutton',
  range: 'slider',
  checkbox: 'checkbox',
  radio: 'radio',
};

const NAME_FROM_CONTENT = new Set([
  'button',
  'row',
  'cell',
  'checkbox',
  'columnheader',
  'gridcell',
  'heading',
  'link',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'radio',
  'rowheader',
  'switch',
  'tab',
  'tooltip',
  'treeitem',
]);

/** Controls whose current value, not their label, is their part of an enclosing name. */
const EMBEDDED_CONTROLS = new Set([
  'textbox',
  'searchbox',
  'combobox',
  'listbox',
  'slider',
  'spinbutton',
]);

/** Form elements named by their `<label>`s, then `title`, then `placeholder`. */
const LABELABLE = new Set(['select', 'textarea', 'meter', 'progress', 'output']);

const NEVER_NAMED_FROM = new Set(['script', 'style', 'template', 'noscript']);

const FOCUSABLE =
  'a[href], area[href], button, input:not([type=hidden]), select, textarea, summary, iframe, ' +
  '[tabindex], [contenteditable]:not([contenteditable=false])';

const SECTIONING =
  'article, aside, main, nav, section, [role=article], [role=complementary], [role=main], ' +
  '[role=navigation], [role=region]';

/** The element's ARIA role, lowercase: the first recognised `role` token, else the implicit one. */
export function roleOf(el: Element): string | null {
  const explicit = explicitRole(el);
  return explicit !== undefined ? explicit : implicitRole(el);
}

/** `undefined` when no explicit role applies; `null` for presentation/none. */
function explicitRole(el: Element): string | null | undefined {
  const tokens = (el.getAttribute('role') ?? '').trim().toLowerCase().split(/\s+/);
  for (const token of tokens) {
    if (!ARIA_ROLES.has(token)) continue;
    const presentational = token === 'presentation' || token === 'none';
    // A focusable element cannot be hidden from assistive technology (ARIA §presentation conflicts).
    if (presentational && isFocusable(el)) continue;
    return presentational ? null : token;
  }
  return undefined;
}

function implicitRole(el: Element): string | null {
  const tag = el.localName;
  if (Object.hasOwn(CONTEXT_ROLES, tag)) return CONTEXT_ROLES[tag](el);
  if (Object.hasOwn(TAG_ROLES, tag)) return TAG_ROLES[tag];
  return el.matches('[contenteditable]:not([contenteditable=false])') ? 'textbox' : null;
}

function inputRole(input: HTMLInputElement): string | null {
  // `type` reflects an unknown or missing attribute as 'text'.
  const role = INPUT_ROLES[input.type] ?? null;
  const suggests = role === 'textbox' || role === 'searchbox';
  return suggests && input.hasAttribute('list') ? 'combobox' : role;
}

function headerCellRole(el: Element): string {
  const scope = (el.getAttribute('scope') ?? '').toLowerCase();
  if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
  if (scope === 'col' || scope === 'colgroup') return 'columnheader';
  // Unscoped: a header sharing a body row with data cells labels that row.
  const row = el.parentElement;
  const rowHasData = row?.querySelector(':scope > td') != null;
  return rowHasData && !el.closest('thead') ? 'rowheader' : 'columnheader';
}

function isInGrid(el: Element): boolean {
  const table = el.closest('table');
  const role = table ? roleOf(table) : null;
  return role === 'grid' || role === 'treegrid';
}

function inSectioningContent(el: Element): boolean {
  return el.parentElement?.closest(SECTIONING) != null;
}

/** Author-supplied naming only; section/form roles must not recurse into the full computation. */
function hasAuthorName(el: Element): boolean {
  return (
    !!el.getAttribute('aria-label')?.trim() ||
    !!el.getAttribute('title')?.trim() ||
    labelledByTargets(el).length > 0
  );
}

function isFocusable(el: Element): boolean {
  return el.matches(FOCUSABLE) && !el.matches(':disabled');
}

/** State of one name computation (accname 1.2 §4.3.2). */
interface Walk {
  /** The element whose name is computed; its own value never names itself. */
  root: Element;
  /** Computing a part of the root's name (content, label, labelledby) rather than the root. */
  recursing: boolean;
  /** aria-labelledby is followed once, never chained, which also breaks id cycles. */
  inLabelledBy: boolean;
  /** Inside a hidden node that was referenced by id or by a label: its hidden content counts. */
  includeHidden: boolean;
  /** Levels of content below the root: past NAME_DEPTH the rest is read as plain text. */
  depth: number;
}

/**
 * Name from content follows the tree one level per step; a page nested thousands deep must not
 * overflow the call stack, and no name is read from that deep: below this the text is taken whole.
 */
const NAME_DEPTH = 64;

/** A name walk that starts at `el`. */
function walkFrom(el: Element): Walk {
  // A hidden element is still named, from all of its content, like a hidden labelledby target.
  return {
    root: el,
    recursing: false,
    inLabelledBy: false,
    includeHidden: isAriaHidden(el),
    depth: 0,
  };
}

/** The accessible name per accname 1.2, whitespace collapsed and trimmed. */
export function accessibleName(el: Element): string {
  return normalize(nameOf(el, walkFrom(el)));
}

/**
 * Each text that labels a control, read by the rule its accessible name uses: aria-labelledby's
 * text, aria-label, and every `<label>`'s text without the control's own content (a nested
 * select's options, its own value). Label targets match any one of them.
 */
export function labelTexts(el: Element): string[] {
  const walk = walkFrom(el);
  const texts: string[] = [];
  const targets = labelledByTargets(el);
  if (targets.length > 0)
    texts.push(targets.map((target) => referencedText(target, walk, true)).join(' '));
  const aria = el.getAttribute('aria-label');
  if (aria) texts.push(aria);
  for (const label of (el as HTMLInputElement).labels ?? [])
    texts.push(referencedText(label, walk, false));
  return texts.map(normalize).filter(Boolean);
}

function nameOf(el: Element, walk: Walk): string {
  if (walk.recursing && !walk.includeHidden && hiddenHere(el)) return '';

  if (!walk.inLabelledBy) {
    const targets = labelledByTargets(el);
    const text = targets.map((target) => referencedText(target, walk, true)).join(' ');
    if (text.trim()) return text;
  }

  const role = roleOf(el);
  if (walk.recursing && role && EMBEDDED_CONTROLS.has(role)) return controlValue(el);

  const label = el.getAttribute('aria-label');
  if (label?.trim()) return label;

  const native = nativeName(el, walk);
  if (native.trim()) return native;

  if (walk.recursing || (role && NAME_FROM_CONTENT.has(role))) {
    const text = contentText(el, walk);
    if (text.trim()) return text;
  }
  return el.getAttribute('title') ?? '';
}

/** Text of a node named by aria-labelledby or a label; it counts even when hidden. */
function referencedText(node: Element, walk: Walk, viaLabelledBy: boolean): string {
  return nameOf(node, {
    ...walk,
    recursing: true,
    inLabelledBy: walk.inLabelledBy || viaLabelledBy,
    includeHidden: walk.includeHidden || isAriaHidden(node),
    depth: walk.depth + 1,
  });
}

function nativeName(el: Element, walk: Walk): string {
  const tag = el.localName;
  if (tag === 'input') return inputName(el as HTMLInputElement, walk);
  if (LABELABLE.has(tag)) return fieldName(el, walk);
  switch (tag) {
    case 'img':
    case 'area':
      return el.getAttribute('alt') || el.getAttribute('title') || '';
    case 'fieldset':
      return childText(el, 'legend', walk);
    case 'table':
      return childText(el, 'caption', walk);
    case 'figure':
      return childText(el, 'figcaption', walk);
    default:
      return '';
  }
}

const DEFAULT_BUTTON_NAMES: Record<string, string> = { submit: 'Submit', reset: 'Reset' };

function inputName(input: HTMLInputElement, walk: Walk): string {
  const type = input.type;
  if (type === 'button' || type === 'submit' || type === 'reset') {
    return input.getAttribute('value') ?? DEFAULT_BUTTON_NAMES[type] ?? '';
  }
  if (type === 'image') {
    return input.getAttribute('alt') || input.getAttribute('value') || 'Submit';
  }
  return fieldName(input, walk);
}

/** Labels name only the root: inside another name a control contributes its value instead. */
function fieldName(el: Element, walk: Walk): string {
  if (walk.recursing) return '';
  const labels = [...((el as HTMLInputElement).labels ?? [])];
  const text = labels.map((label) => referencedText(label, walk, false)).join(' ');
  return text.trim() ? text : el.getAttribute('title') || el.getAttribute('placeholder') || '';
}

function childText(el: Element, tag: string, walk: Walk): string {
  const child = [...el.children].find((c) => c.localName === tag);
  return child ? nameOf(child, { ...walk, recursing: true, depth: walk.depth + 1 }) : '';
}

function controlValue(el: Element): string {
  const valueText = el.getAttribute('aria-valuetext');
  if (valueText) return valueText;
  if (el.localName === 'select') {
    return [...(el as HTMLSelectElement).selectedOptions].map((o) => o.text).join(' ');
  }
  if (el.localName === 'input' || el.localName === 'textarea') {
    return (el as HTMLInputElement).value;
  }
  return el.getAttribute('aria-valuenow') ?? el.textContent ?? '';
}

/** Name from content over the flattened tree: shadow roots and slot assignments, not light DOM. */
function contentText(el: Element, walk: Walk): string {
  const inner: Walk = { ...walk, recursing: true, depth: walk.depth + 1 };
  if (inner.depth > NAME_DEPTH) return el.textContent ?? '';
  let text = '';
  for (const child of flatChildren(el)) {
    if (child.nodeType === Node.TEXT_NODE) {
      text += child.textContent ?? '';
    } else if (child.nodeType === Node.ELEMENT_NODE) {
      const element = child as Element;
      if (element === walk.root || NEVER_NAMED_FROM.has(element.localName)) continue;
      const part = nameOf(element, inner);
      text += isInline(element) ? part : ` ${part} `;
    }
  }
  return text;
}

function flatChildren(el: Element): Node[] {
  if (el.localName === 'slot') {
    const assigned = (el as HTMLSlotElement).assignedNodes();
    if (assigned.length) return assigned;
  }
  return [...(el.shadowRoot ?? el).childNodes];
}

/** Block-level boxes separate words (accname 1.2 §2F.iii); slots (display: contents) do not. */
function isInline(el: Element): boolean {
  if (el.localName === 'br') return false;
  const display = getComputedStyle(el).display;
  return display === 'inline' || display === 'contents';
}

function labelledByTargets(el: Element): Element[] {
  const ids = (el.getAttribute('aria-labelledby') ?? '').trim().split(/\s+/);
  // Ids resolve in the element's own tree: a shadow root's ids are invisible to the document.
  const root = el.getRootNode() as Node & Partial<NonElementParentNode>;
  if (!root.getElementById) return [];
  return ids.flatMap((id) => (id ? (root.getElementById?.(id) ?? []) : []));
}

/** True when the element or a composed-tree ancestor is aria-hidden, display:none or invisible. */
export function isAriaHidden(el: Element): boolean {
  for (let node: Element | null = el; node; node = flatParent(node)) {
    if (node.getAttribute('aria-hidden') === 'true') return true;
  }
  return !isRendered(el);
}

/** Has a visible box: not under display:none, a closed <details>, or outside every slot. */
function isRendered(el: Element): boolean {
  // visibility inherits along the flat tree, so the element's own value covers its ancestors;
  // a detached element has none.
  if (getComputedStyle(el).visibility !== 'visible') return false;
  // display: contents (slots among them) has no box of its own: the nearest box decides.
  let box: Element | null = el;
  while (box && getComputedStyle(box).display === 'contents') box = flatParent(box);
  if (!box) return el.isConnected;
  if (typeof box.checkVisibility === 'function') return box.checkVisibility();
  for (let node: Element | null = box; node; node = flatParent(node)) {
    if (getComputedStyle(node).display === 'none') return false;
    if (!node.assignedSlot && node.parentElement?.shadowRoot) return false;
  }
  return true;
}

function hiddenHere(el: Element): boolean {
  if (el.getAttribute('aria-hidden') === 'true') return true;
  const style = getComputedStyle(el);
  return (
    style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse'
  );
}

function flatParent(el: Element): Element | null {
  if (el.assignedSlot) return el.assignedSlot;
  const parent = el.parentNode;
  if (!parent) return null;
  if (parent.nodeType === Node.DOCUMENT_FRAGMENT_NODE) return (parent as ShadowRoot).host ?? null;
  return parent.nodeType === Node.ELEMENT_NODE ? (parent as Element) : null;
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
