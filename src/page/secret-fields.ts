import { elementOf } from './handles.js';

/**
 * Fields a secret was typed into. Their value is shown as `••••` in the text track (like a
 * password) and blanked in screenshots: the marker attribute lets a driver's screenshot style
 * ({@link SECRET_FIELD_ATTRIBUTE}) hide them, in this document and through shadow roots.
 */
const secretFields = new WeakSet<Element>();

/** Set on a field holding a secret; drivers blank `[data-swiftbrowse-secret]` in every capture. */
export const SECRET_FIELD_ATTRIBUTE = 'data-swiftbrowse-secret';

export function markSecretField(handle: number): boolean {
  const el = elementOf(handle);
  if (!el) return false;
  secretFields.add(el);
  el.setAttribute(SECRET_FIELD_ATTRIBUTE, '');
  return true;
}

/** Whether the field holds a secret (its value must not be read into any text). */
export function isSecretField(el: Element): boolean {
  return secretFields.has(el) || el.hasAttribute(SECRET_FIELD_ATTRIBUTE);
}
