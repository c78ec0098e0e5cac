// ESLint: typescript-eslint strict with type information, plus the layer rules of STYLE.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const infrastructure = [
  'fastify',
  'fastify/*',
  '@fastify/*',
  'kysely',
  'pg',
  'better-sqlite3',
  'undici',
  'node:fs',
  'node:fs/promises',
  'fs',
  'node:http',
  'node:net',
  'pino',
];

/** Handlers reach the domain through request.deps only (see http/routes/route-deps.ts). */
const ROUTES_USE_DEPS = {
  group: ['**/compose.js', '**/storage/**'],
  message: 'Routes use request.deps, never their own store.',
};

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'data/**',
      'coverage/**',
      'packages/server/src/portal/assets/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['packages/server/src/domain/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: infrastructure.filter((p) => !p.includes('*')),
          patterns: [
            'fastify/*',
            '@fastify/*',
            '**/storage/**',
            '**/http/**',
            '**/portal/**',
            '**/worker/**',
            '**/cli/**',
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'domain/ does no I/O; take a port.' },
        { name: 'process', message: 'config/ reads the environment.' },
      ],
    },
  },
  {
    files: ['packages/server/src/storage/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['fastify', '@fastify/*', '**/http/**', '**/portal/**'] },
      ],
    },
  },
  {
    // Handlers reach the domain through request.deps only (see http/routes/route-deps.ts).
    files: ['packages/server/src/http/**/*.ts', 'packages/server/src/portal/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [ROUTES_USE_DEPS],
        },
      ],
    },
  },
  {
    // http/ answers the API; the console and demo pages (portal/) sit beside it, never below it.
    files: ['packages/server/src/http/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ROUTES_USE_DEPS,
            { group: ['**/portal/**'], message: 'http/ does not import portal/; share through src/.' },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/contract/src/**/*.ts', 'packages/sdk/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['@presence/server', '**/server/**', 'fastify', 'kysely'] },
      ],
    },
  },
  {
    // Tests read JSON responses loosely; the assertions are the types.
    files: ['**/*.test.ts', 'packages/*/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
