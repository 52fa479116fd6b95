import { h, type Child } from '../dom.js';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export interface ModalOptions {
  title: string;
  body: Child[];
  /** The confirming action; absent for a modal that only shows. */
  confirm?: { label: string; danger?: boolean; run: () => Promise<void | 'keep-open'> };
  cancelLabel?: string;
}

/**
 * A dialog that holds focus until closed: Tab cycles inside it, Esc or Cancel closes it, and focus
 * returns to the element that opened it. `confirm.run` may throw: its message is shown in the
 * dialog, which stays open so the operator can read it.
 */
export function openModal(options: ModalOptions): { close: () => void; dialog: HTMLElement } {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const titleId = `modal-title-${Math.random().toString(36).slice(2, 8)}`;
  const status = h('p', { class: 'modal-status', role: 'alert' });
  const close = () => {
    backdrop.remove();
    document.removeEventListener('keydown', onKey, true);
    if (opener?.isConnected) opener.focus();
  };
  const confirmButton = options.confirm
    ? h(
        'button',
        {
          type: 'button',
          class: options.confirm.danger ? 'button danger' : 'button primary',
          onclick: async () => {
            const confirm = options.confirm!;
            confirmButton!.disabled = true;
            status.textContent = '';
            try {
              if ((await confirm.run()) !== 'keep-open') close();
            } catch (e) {
              status.textContent = (e as Error).message;
            } finally {
              confirmButton!.disabled = false;
            }
          },
        },
        options.confirm.label,
      )
    : undefined;
  const dialog = h(
    'div',
    { class: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, options.title),
    h('div', { class: 'modal-body' }, options.body),
    status,
    h(
      'div',
      { class: 'modal-actions' },
      h(
        'button',
        { type: 'button', class: 'button', onclick: close },
        options.cancelLabel ?? (options.confirm ? 'Cancel' : 'Close'),
      ),
      confirmButton,
    ),
  );
  const backdrop = h('div', { class: 'backdrop' }, dialog);
  const onKey = (event: KeyboardEvent) => {
    if (!backdrop.isConnected) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      close();
    } else if (event.key === 'Tab') {
      const items = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
      if (items.length === 0) return;
      const first = items[0];
      const last = items[items.length - 1];
      const inside = dialog.contains(document.activeElement);
      if (event.shiftKey && (document.activeElement === first || !inside)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (document.activeElement === last || !inside)) {
        event.preventDefault();
        first.focus();
      }
    }
  };
  document.addEventListener('keydown', onKey, true);
  document.body.appendChild(backdrop);
  const initial =
    dialog.querySelector<HTMLElement>('[data-autofocus]') ??
    dialog.querySelector<HTMLElement>(FOCUSABLE);
  initial?.focus();
  return { close, dialog };
}

/** A yes/no question before an action that cannot be undone. */
export function confirmModal(
  title: string,
  body: Child[],
  label: string,
  run: () => Promise<void>,
): void {
  openModal({ title, body, confirm: { label, danger: true, run } });
}
