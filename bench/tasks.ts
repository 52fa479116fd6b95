// The tasks: each one sequence of intents, executed the same way by every agent (bench/agents/).

/** An element as a person names it: its role and accessible name, optionally inside an iframe. */
export interface Target {
  role: string;
  name: string;
  /** CSS selector of the iframe that holds the element. */
  frame?: string;
  /** Found by its label (a password field has no role); role is what snapshots call it. */
  byLabel?: boolean;
}

export type Act =
  | { do: 'goto'; path: string }
  | { do: 'click'; target: Target; approved?: boolean }
  | { do: 'fill'; target: Target; value: string }
  | { do: 'select'; target: Target; value: string }
  | { do: 'check'; target: Target }
  | { do: 'hover'; target: Target }
  | { do: 'press'; target: Target; key: string };

/** The agent must learn `needle` before going on: from what it was already sent, or by reading. */
export interface Read {
  do: 'read';
  needle: string;
}

export type Intent = Act | Read;

export interface Task {
  name: string;
  what: string;
  intents: Intent[];
}

const role = (r: string, name: string, frame?: string): Target => ({ role: r, name, frame });
const box = (name: string) => role('textbox', name);

export const TASKS: Task[] = [
  {
    name: 'login-spa',
    what: 'sign in to an SPA, read the dashboard, open a report',
    intents: [
      { do: 'goto', path: '/app/login' },
      { do: 'fill', target: box('Email'), value: 'ada@example.com' },
      {
        do: 'fill',
        target: { role: 'textbox', name: 'Password', byLabel: true },
        value: 'correct horse',
      },
      { do: 'click', target: role('button', 'Sign in') },
      { do: 'read', needle: 'Welcome, Ada Lovelace' },
      { do: 'read', needle: 'Revenue: $48,210' },
      { do: 'click', target: role('link', 'Reports') },
      { do: 'read', needle: '$152,800' },
    ],
  },
  {
    name: 'data-table',
    what: '200-row table: filter, read the count, page, read a row',
    intents: [
      { do: 'goto', path: '/table.html' },
      { do: 'fill', target: box('Filter'), value: 'Oslo' },
      { do: 'read', needle: 'Showing 1–20 of 25' },
      { do: 'click', target: role('button', 'Next') },
      { do: 'read', needle: 'Customer 164' },
      { do: 'select', target: role('combobox', 'Status'), value: 'Closed' },
      { do: 'read', needle: 'Showing 1–5 of 5' },
    ],
  },
  {
    name: 'checkout',
    what: 'multi-step checkout with a validation error',
    intents: [
      { do: 'goto', path: '/checkout.html' },
      // SwiftBrowse asks approval for "checkout": the user asked for this purchase.
      { do: 'click', target: role('button', 'Checkout'), approved: true },
      { do: 'fill', target: box('Full name'), value: 'Ada Lovelace' },
      { do: 'fill', target: box('Street address'), value: '12 Rua Augusta' },
      { do: 'fill', target: box('City'), value: 'Lisbon' },
      { do: 'select', target: role('combobox', 'Country'), value: 'Portugal' },
      { do: 'click', target: role('button', 'Continue') },
      { do: 'read', needle: 'ZIP code is required' },
      { do: 'fill', target: box('ZIP code'), value: '1100-053' },
      { do: 'click', target: role('button', 'Continue') },
      { do: 'fill', target: box('Card number'), value: '4242424242424242' },
      { do: 'fill', target: box('Expiry date'), value: '12/29' },
      { do: 'check', target: role('checkbox', 'I accept the terms of sale') },
      { do: 'click', target: role('button', 'Place order'), approved: true },
      { do: 'read', needle: 'Order #A-1042 will ship to Lisbon' },
    ],
  },
  {
    name: 'hover-menu',
    what: 'open a hover menu and follow an item',
    intents: [
      { do: 'goto', path: '/menu.html' },
      { do: 'hover', target: role('link', 'Products') },
      { do: 'click', target: role('link', 'Analytics') },
      { do: 'read', needle: 'Analytics overview' },
    ],
  },
  {
    name: 'iframe-settings',
    what: 'change settings inside an iframe and save',
    intents: [
      { do: 'goto', path: '/settings.html' },
      { do: 'fill', target: role('textbox', 'Display name', 'iframe#profile'), value: 'Ada L.' },
      { do: 'check', target: role('checkbox', 'Email notifications', 'iframe#profile') },
      { do: 'select', target: role('combobox', 'Theme', 'iframe#profile'), value: 'Dark' },
      { do: 'click', target: role('button', 'Save settings', 'iframe#profile') },
      { do: 'read', needle: 'Settings saved for Ada L. (Dark theme, emails on)' },
    ],
  },
  {
    name: 'long-article',
    what: 'read the conclusion of a long article, go to the next one',
    intents: [
      { do: 'goto', path: '/article/1.html' },
      { do: 'read', needle: 'cut median latency by 42%' },
      { do: 'click', target: role('link', 'Next article') },
      { do: 'read', needle: 'kept the hit ratio above 90%' },
    ],
  },
  {
    name: 'search',
    what: 'search, read the count, page 2, open a result',
    intents: [
      { do: 'goto', path: '/search.html' },
      { do: 'fill', target: role('searchbox', 'Query'), value: 'browser' },
      { do: 'press', target: role('searchbox', 'Query'), key: 'Enter' },
      { do: 'read', needle: '24 results' },
      { do: 'click', target: role('link', 'Page 2') },
      { do: 'read', needle: 'Guide: browser security (61)' },
      { do: 'click', target: role('link', 'Guide: browser security (61)') },
      { do: 'read', needle: 'last reviewed on 2026-10-08' },
    ],
  },
  {
    name: 'modal-dialog',
    what: 'rename in a modal, then delete with a confirmation modal',
    intents: [
      { do: 'goto', path: '/modal.html' },
      { do: 'click', target: role('button', 'Rename Beta') },
      { do: 'fill', target: box('New name'), value: 'Delta' },
      { do: 'click', target: role('button', 'Save name') },
      { do: 'read', needle: 'Renamed Beta to Delta' },
      { do: 'click', target: role('button', 'Delete Gamma'), approved: true },
      { do: 'read', needle: 'its 14 deployments' },
      { do: 'click', target: role('button', 'Delete project'), approved: true },
      { do: 'read', needle: 'Gamma deleted' },
    ],
  },
  {
    name: 'signin-delay',
    what: 'two-field sign-in whose submit navigates by script 400 ms later',
    intents: [
      { do: 'goto', path: '/signin.html' },
      { do: 'fill', target: box('Email'), value: 'ada@example.com' },
      {
        do: 'fill',
        target: { role: 'textbox', name: 'Password', byLabel: true },
        value: 'correct horse',
      },
      { do: 'click', target: role('button', 'Sign in') },
      { do: 'read', needle: 'Signed in as ada@example.com' },
    ],
  },
  {
    name: 'todo-list',
    what: 'add two items with Enter, tick one, read the count',
    intents: [
      { do: 'goto', path: '/todo.html' },
      { do: 'fill', target: box('What needs to be done?'), value: 'Water the plants' },
      { do: 'press', target: box('What needs to be done?'), key: 'Enter' },
      { do: 'fill', target: box('What needs to be done?'), value: 'Walk the dog' },
      { do: 'press', target: box('What needs to be done?'), key: 'Enter' },
      { do: 'read', needle: '2 items left' },
      { do: 'check', target: role('checkbox', 'Water the plants') },
      { do: 'read', needle: '1 item left' },
    ],
  },
];

export const isRead = (i: Intent): i is Read => i.do === 'read';
