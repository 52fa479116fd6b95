import { h, type Child } from '../dom.js';

/**
 * A real button (Tab, Enter and Space work without help). `label` is its accessible name when
 * its content is an icon.
 */
export function button(
  content: Child,
  run: (event: MouseEvent) => void,
  options: { label?: string; tone?: 'primary' | 'danger'; testid?: string } = {},
): HTMLButtonElement {
  return h(
    'button',
    {
      type: 'button',
      class: `button ${options.tone ?? ''}`.trim(),
      'aria-label': options.label,
      title: options.label,
      'data-testid': options.testid,
      onclick: run as EventListener,
    },
    content,
  );
}
