// Lint rules, including the layering of DESIGN §2: dependencies flow downward only.
import tseslint from 'typescript-eslint';

const BROWSER_LIBS = {
  group: ['playwright-core', 'selenium-webdriver'],
  message: 'Only src/drivers/ talks to a browser library.',
};
const SURFACES = {
  group: ['**/surfaces/**'],
  message: 'Surfaces sit on top: nothing below imports them.',
};

// One rule entry per room: ESLint keeps only the last setting of a rule for a file.
const layers = {
  'src/core/**/*.ts': [
    BROWSER_LIBS,
    {
      group: [
        '**/ops/**',
        '**/sessions/**',
        '**/drivers/**',
        '**/surfaces/**',
        '**/flows/**',
        '**/secrets/**',
        '**/files/**',
        '**/logs/**',
        '**/page/**',
      ],
      message: 'core/ is used by all and uses none of them.',
    },
  ],
  'src/page/**/*.ts': [
    {
      group: ['node:*', '../*', 'playwright-core', 'selenium-webdriver'],
      message: 'src/page/ runs in the browser: it imports nothing outside itself.',
    },
  ],
  'src/drivers/**/*.ts': [
    {
      group: ['**/ops/**', '**/sessions/**', '**/surfaces/**', '**/flows/**'],
      message: 'A driver never imports an op or a surface.',
    },
  ],
  'src/{ops,sessions,flows,secrets,files,logs}/**/*.ts': [BROWSER_LIBS, SURFACES],
  'src/surfaces/**/*.ts': [BROWSER_LIBS],
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'bench/results/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  ...Object.entries(layers).map(([files, patterns]) => ({
    files: [files],
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  })),
  {
    files: ['ui/admin/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src/**', 'node:*'],
              allowTypeImports: true,
              message: 'The console runs in the browser: it takes only types from src/.',
            },
          ],
        },
      ],
    },
  },
);
