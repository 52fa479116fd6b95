import type { BrowserTab, MouseButton } from '../drivers/driver.js';

export const MODIFIERS = ['Alt', 'Control', 'Meta', 'Shift'] as const;
export type Modifier = (typeof MODIFIERS)[number];

/** A full click at a point: move, press, release, `count` times, with modifiers held. */
export async function clickAt(
  tab: BrowserTab,
  point: { x: number; y: number },
  options: { button: MouseButton; count: number; modifiers: readonly Modifier[] },
): Promise<void> {
  await tab.mouseMove(point.x, point.y);
  for (const m of options.modifiers) await tab.keyDown(m);
  try {
    for (let i = 1; i <= options.count; i++) {
      await tab.mouseDown(options.button, i);
      await tab.mouseUp(options.button, i);
    }
  } finally {
    for (const m of [...options.modifiers].reverse()) await tab.keyUp(m);
  }
}
